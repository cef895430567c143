// The ranks' CPU distance in the report: unknown with no co-located pair, a warning when the two readings part.
#include "cli/cpu_pair_probe.hpp"

#include "tests/support/test_step.hpp"

#include "connectors/single_connector.hpp"

#include <gtest/gtest.h>

#include <chrono>

namespace distbench::cli {
namespace {

CpuDistance reading(double ns) { return {ns, 0, 1, 1, {}}; }

TEST(CpuPairProbe, OneProcessHasNoPairToPing) {
  connectors::SingleConnector connector;
  CpuPairProbe probe(connector, test_step());
  const CpuDistance d = probe.measure(std::chrono::milliseconds(100));
  EXPECT_FALSE(d.ns.has_value());
  EXPECT_EQ(cpu_distance_text(d), "unknown: no two ranks share a host");
}

TEST(CpuPairProbe, TheTextNamesTheFarthestPair) {
  EXPECT_EQ(cpu_distance_text({42.4, 2, 5, 3, {}}),
            "42 ns one way between ranks 2 and 5 (a cache line's trip; the farthest of 3 pairs)");
}

TEST(CpuPairProbe, ReadingsThatPartWarnThatTheCpusMoved) {
  RunInfo info;
  std::vector<Warning> warnings;
  note_cpu_distance(info, warnings, reading(42), reading(190));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].code, "cpu_distance");
  EXPECT_EQ(warnings[0].message,
            "the host moved the ranks' CPUs: 42 ns apart at the start, 190 at the end; rerun to compare");
  EXPECT_LE(std::string("warning: ").size() + warnings[0].message.size(), kWarningColumns);
  EXPECT_NE(warnings[0].detail.find("42 ns apart at the start of the run and 190 ns at its end"), std::string::npos);
  EXPECT_EQ(info.version("cpu_distance.end"), cpu_distance_text(reading(190)));
  warnings.clear();
  note_cpu_distance(info, warnings, reading(190), reading(42));  // either way
  EXPECT_EQ(warnings.size(), 1u);
  warnings.clear();
  note_cpu_distance(info, warnings, reading(42), reading(70));    // within one placement's noise
  note_cpu_distance(info, warnings, reading(42), CpuDistance{});  // one reading unknown: nothing to compare
  // Microseconds: the pair shared one CPU (a loaded or oversubscribed host), which is no placement.
  note_cpu_distance(info, warnings, reading(150), reading(9000));
  note_cpu_distance(info, warnings, reading(1200), reading(30000));
  EXPECT_TRUE(warnings.empty());
  note_cpu_distance(info, warnings, reading(40), reading(990));  // two placements, far apart
  EXPECT_EQ(warnings.size(), 1u);
}

}  // namespace
}  // namespace distbench::cli
