// Health's records (benchmarks/health/health_record): a check and its record round-trip; the table shows the declared
// metric.
#include "benchmarks/health/health_record.hpp"
#include "tests/support/health_checks.hpp"
#include "tests/support/layout_check.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace distbench::health {
namespace {

TEST(Verdict, RecordsRoundTrip) {
  Check c = figures({0.5})[0];
  c.phase = "links";
  c.host = "nodeC";
  c.status = Status::degraded;
  c.limit = ">= 0.7";
  c.why = "slow";
  const Check back = check_of(check_record(c));
  EXPECT_EQ(back.phase, c.phase);
  EXPECT_EQ(back.subject, c.subject);
  EXPECT_EQ(back.host, c.host);
  EXPECT_EQ(back.metric, c.metric);
  EXPECT_EQ(back.value, c.value);
  EXPECT_EQ(back.status, c.status);
  EXPECT_EQ(back.limit, c.limit);
  EXPECT_EQ(back.why, c.why);
  EXPECT_FALSE(back.screening);
  c.screening = true;
  EXPECT_TRUE(check_of(check_record(c)).screening);
}

// The one metric is declared once (metrics::value): the layout lists it, the table shows it and the builder sets it.
TEST(HealthRecord, TheTableShowsTheDeclaredMetricAndTheBuilderSetsIt) {
  EXPECT_EQ(test_support::shown_metrics(health_record_layout(), health_table()), std::vector<std::string>{"value"});
  Check c;
  c.value = 1.5;
  const Record r = check_record(c);
  EXPECT_EQ(test_support::metric_keys(r), test_support::metric_keys(health_record_layout()));
  EXPECT_EQ(check_of(r).value, 1.5);
}

}  // namespace
}  // namespace distbench::health
