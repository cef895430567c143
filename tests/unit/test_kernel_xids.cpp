// XIDs read from kernel log lines (core/sys/kernel_xids): the driver's format, counts per GPU and XID, bounds.
#include "core/sys/kernel_xids.hpp"

#include <gtest/gtest.h>

namespace distbench {
namespace {

TEST(KernelXids, CountsEachGpuAndXidFromTheDriversLines) {
  const std::vector<std::string> lines = {
      "4,1021,5231234567,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the bus.\n",
      "6,1022,5231234600,-;nvidia-peermem: loaded",
      "4,1023,5231239999,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the bus.",
      "NVRM: Xid (PCI:0000:86:00): 13, Graphics SM Warp Exception",  // dmesg's text, no prefix
  };
  const auto xids = parse_kernel_xids(lines);
  ASSERT_EQ(xids.size(), 2u);
  EXPECT_EQ(xids[0].bus_id, "0000:3b:00");
  EXPECT_EQ(xids[0].xid, 79);
  EXPECT_EQ(xids[0].count, 2u);
  EXPECT_EQ(xids[0].last_line, "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the bus.");
  EXPECT_EQ(xids[1].bus_id, "0000:86:00");
  EXPECT_EQ(xids[1].xid, 13);
}

TEST(KernelXids, IgnoresLinesThatOnlyLookAlike) {
  const auto xids = parse_kernel_xids({"NVRM: Xid (PCI:0000:3b:00): not a number", "NVRM: Xid (PCI:0000:3b:00",
                                       "Xid 79 without the driver's mark", "NVRM: Xid (PCI:0000:3b:00): -5, x"});
  EXPECT_TRUE(xids.empty());
}

TEST(KernelXids, KeepsABoundedNumberOfKindsAndCutsLongLines) {
  std::vector<std::string> lines;
  for (int i = 0; i < 100; ++i)
    lines.push_back("NVRM: Xid (PCI:0000:3b:00): " + std::to_string(i) + ", " + std::string(1000, 'x'));
  const auto xids = parse_kernel_xids(lines, 8);
  ASSERT_EQ(xids.size(), 8u);
  for (const auto& x : xids) EXPECT_LE(x.last_line.size(), 200u);
}

TEST(KernelXids, AFileThatCannotBeOpenedSaysWhy) {
  const KernelXids k = read_kernel_xids("/nonexistent/kmsg");
  EXPECT_FALSE(k.readable);
  EXPECT_NE(k.why.find("No such file"), std::string::npos) << k.why;
}

TEST(KernelXids, ReadsAnOrdinaryFileToItsEnd) {
  // /dev/kmsg gives a record per read(); a regular file gives its bytes in blocks, which still ends (n == 0).
  const KernelXids k = read_kernel_xids("/proc/self/status", 1000, 1.0);
  EXPECT_TRUE(k.readable) << k.why;
  EXPECT_GE(k.records, 1u);
}

}  // namespace
}  // namespace distbench
