// The words and numbers the console table and the Markdown report share.
#include "benchmarks/collective/collective_text.hpp"
#include "core/report/text.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace distbench::collective {
namespace {

TEST(Text, NumbersKeepTheirColumnWidth) {
  EXPECT_EQ(time_text(12.345), "12.35");
  EXPECT_EQ(time_text(123456.78), "123456.8");
  EXPECT_EQ(time_text(1234567.8), "1234568");
  EXPECT_EQ(time_text(std::numeric_limits<double>::quiet_NaN()), "-");
  EXPECT_EQ(bandwidth_text(6.2852), "6.29");
  EXPECT_EQ(count_text(0.125), "0.12");
  EXPECT_EQ(count_text(8194), "8194");
}

// Percentages are written one way everywhere: fixed decimals below 10000 %, two significant digits and an exponent
// from there on (a change of 1e300 % once printed 300 digits), "-" when not finite.
TEST(Text, PercentagesAreBoundedInWidth) {
  EXPECT_EQ(percent_text(12.345), "12.3%");
  EXPECT_EQ(percent_text(12.345, 0), "12%");
  EXPECT_EQ(percent_text(-3.25, 1, Sign::always), "-3.2%");
  EXPECT_EQ(percent_text(0, 1, Sign::always), "+0.0%");
  EXPECT_EQ(percent_text(9999.4, 0), "9999%");
  EXPECT_EQ(percent_text(707227.0, 1, Sign::always), "+7.1e+05%");
  EXPECT_EQ(percent_text(1837488, 0), "1.8e+06%");
  EXPECT_EQ(percent_text(-1e300, 1, Sign::always), "-1.0e+300%");
  EXPECT_EQ(percent_text(std::numeric_limits<double>::infinity()), "-");
  EXPECT_EQ(percent_text(std::numeric_limits<double>::quiet_NaN(), 1, Sign::always), "-");
  EXPECT_EQ(percent_number(5.55), "5.5");  // the noise column: the '%' is in its title
  for (const double v : {1e4, 1e15, 1e300, std::numeric_limits<double>::max(), -std::numeric_limits<double>::max()}) {
    EXPECT_LE(percent_text(v, 1, Sign::always).size(), 10u) << v;
    EXPECT_LE(percent_text(v, 0).size(), 10u) << v;
  }
}

// Times, bandwidths and counts from a damaged report never print hundreds of digits.
TEST(Text, HugeFiguresTakeAnExponent) {
  EXPECT_EQ(time_text(1e300), "1e+300");
  EXPECT_EQ(bandwidth_text(-2.5e20), "-2.5e+20");
  EXPECT_EQ(count_text(1.234e18), "1.23e+18");
  EXPECT_EQ(fixed_text(999999999999999.0, 0), "999999999999999");
  EXPECT_EQ(timestamp_text(1e300), "-");
  EXPECT_EQ(timestamp_text(-1), "-");
}

// nccl-tests' numbers (its times in 7 characters, bandwidths in 6), as its sample in tests/data prints them.
TEST(Text, FittedNumbersShedDecimalsThenTakeAnExponentAsNcclTestsDoes) {
  EXPECT_EQ(fitted_text(6.92, 7), "6.92");
  EXPECT_EQ(fitted_text(2002.85, 7), "2002.85");
  EXPECT_EQ(fitted_text(1024.42, 6), "1024.4");  // %.2f would take 7
  EXPECT_EQ(fitted_text(21444.9, 6), "21445");   // then %.0f
  EXPECT_EQ(fitted_text(3.1e6, 6), "3e+06");     // then an exponent, no decimal below a width of 7
  EXPECT_EQ(fitted_text(12345678.9, 7), "1.2e+07");
  EXPECT_EQ(fitted_text(-1.5, 6), "-1.50");
  EXPECT_EQ(fitted_text(std::numeric_limits<double>::infinity(), 6), "-");
}

TEST(Text, TimestampsAreIso8601UtcWithMilliseconds) {
  EXPECT_EQ(timestamp_text(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(timestamp_text(1795423778.1239), "2026-11-23T08:49:38.123Z");
  EXPECT_EQ(timestamp_text(std::numeric_limits<double>::quiet_NaN()), "-");
}

TEST(Text, RanksPerHostAndGroups) {
  EXPECT_EQ(ranks_per_host_text({{0, "a", 0}, {1, "a", 1}, {2, "b", 0}, {3, "b", 1}}), "2 (2 hosts)");
  EXPECT_EQ(ranks_per_host_text({{0, "a", 0}, {1, "a", 1}, {2, "b", 0}}), "a 2, b 1");
  EXPECT_EQ(ranks_per_host_text({}), "unknown");
  SweepPlan plan;
  EXPECT_EQ(group_text(plan, 4), "world (1 group)");
  plan.group_size = 2;
  EXPECT_EQ(group_text(plan, 6), "group-size 2 (3 groups of 2 ranks)");
}

TEST(Text, SweepAndSamples) {
  EXPECT_EQ(sweep_text({8, 16, 32}), "8 .. 32 B, 3 sizes");
  EXPECT_EQ(sweep_text({}), "no sizes");
  StoppingRule rule;
  EXPECT_EQ(samples_text(rule), "20 per case, fewer past 0.05 s of sampling (at least 10)");
  rule.max_time_s = 0;
  EXPECT_EQ(samples_text(rule), "20 per case");
  EXPECT_EQ(average_text(RankAverage::max), "slowest rank");
}

}  // namespace
}  // namespace distbench::collective
