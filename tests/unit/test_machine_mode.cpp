// The witnesses of a shared machine's run-wide mode: steal time from /proc/stat and the CPUs a rank may use.
#include "core/sys/machine_mode.hpp"

#include <gtest/gtest.h>

namespace distbench {
namespace {

// A real first line of /proc/stat (a 2-CPU VM): user nice system idle iowait irq softirq steal guest guest_nice.
constexpr std::string_view kProcStat =
    "cpu  1077424 2170 336211 14218316 6420 0 19374 52280 0 0\n"
    "cpu0 538163 1073 168391 7108806 3197 0 15121 26139 0 0\n";

TEST(MachineMode, ReadsStealAndTotalFromTheFirstLine) {
  const auto ticks = parse_cpu_ticks(kProcStat);
  ASSERT_TRUE(ticks);
  EXPECT_EQ(ticks->steal(), 52280u);
  const CpuTicks::Fields expected{1077424, 2170, 336211, 14218316, 6420, 0, 19374, 52280};  // guest is in user
  EXPECT_EQ(ticks->fields, expected);
}

TEST(MachineMode, RefusesWhatIsNotTheCpuLine) {
  EXPECT_FALSE(parse_cpu_ticks(""));
  EXPECT_FALSE(parse_cpu_ticks("cpu0 1 2 3 4 5 6 7 8\n"));  // a single CPU's line, not the machine's
  EXPECT_FALSE(parse_cpu_ticks("cpu  1 2 3 4 5 6 7\n"));    // an old kernel without steal
  EXPECT_FALSE(parse_cpu_ticks("cpu  1 2 x 4 5 6 7 8\n"));
}

CpuTicks ticks(std::uint64_t user, std::uint64_t idle, std::uint64_t steal) {
  CpuTicks t;
  t.fields = {user, 0, 0, idle, 0, 0, 0, steal};
  return t;
}

TEST(MachineMode, StealFractionIsTheShareOfTicksBetweenTwoReadings) {
  const CpuTicks before = ticks(5000, 4900, 100);
  EXPECT_DOUBLE_EQ(*steal_fraction(before, ticks(5600, 5250, 150)), 0.05);  // 50 of 1000 ticks
  EXPECT_DOUBLE_EQ(*steal_fraction(before, ticks(6000, 4900, 100)), 0.0);
  EXPECT_DOUBLE_EQ(*steal_fraction(before, ticks(5000, 4900, 200)), 1.0);  // all of it, never more
  EXPECT_FALSE(steal_fraction(before, before));                            // no tick passed
  // A counter that steps back between readings (proc(5): iowait can decrease; idle and steal are read from
  // per-CPU sources that are not updated together) counts as not grown; the others still give the figure.
  EXPECT_DOUBLE_EQ(*steal_fraction(before, ticks(5400, 4890, 100)), 0.0);
  EXPECT_DOUBLE_EQ(*steal_fraction(before, ticks(5400, 4900, 90)), 0.0);
  EXPECT_DOUBLE_EQ(*steal_fraction(before, ticks(5300, 4890, 200)), 0.25);  // 100 stolen of 300 + 100
}

TEST(MachineMode, CpuListsAreRanges) {
  EXPECT_EQ(cpu_list_text({}), "none");
  EXPECT_EQ(cpu_list_text({0}), "0");
  EXPECT_EQ(cpu_list_text({3, 0, 1, 2, 6}), "0-3,6");
  EXPECT_EQ(cpu_list_text({1, 1, 5, 7, 8}), "1,5,7-8");
}

TEST(MachineMode, ThisProcessMayRunOnSomeCpu) {
  const std::string cpus = allowed_cpus_text();
  EXPECT_NE(cpus, "none");
  EXPECT_NE(cpus, "");
}

}  // namespace
}  // namespace distbench
