// ZeRO's records (benchmarks/zero/zero_record): the layout, the table and the builder agree on the metrics.
#include "benchmarks/zero/zero_record.hpp"
#include "core/measure/phase_stats.hpp"
#include "tests/support/layout_check.hpp"

#include <gtest/gtest.h>

#include <iterator>
#include <string>
#include <vector>

namespace distbench::zero {
namespace {

// Each metric is declared once (metrics::all): the layout lists them all, the table shows every one with a title in
// the layout's order (with both forms of stage 1, beside the zero1_reduce parameter), and the builder sets exactly
// these.
TEST(ZeroRecord, TheTableShowsTheDeclaredMetricsAndTheBuilderSetsThem) {
  const std::vector<std::string> shown = {"step_ms",         "reduce_ms",    "update_ms",         "gather_ms",
                                          "layer_gather_ms", "predicted_ms", "step_vs_predicted", "update_vs_copy",
                                          "sent_mb",         "net_sent_mb",  "state_mb",          "buffer_mb",
                                          "library_mb",      "peak_rss_mb",  "device_mb",         "wrong"};
  EXPECT_EQ(test_support::shown_metrics(zero_record_layout(), zero_table()), shown);
  EXPECT_EQ(test_support::shown_metrics(zero_record_layout(), zero_table(true)), shown);
  EXPECT_EQ(zero_record_layout().metrics.size(), std::size(metrics::all));
  StageResult s;
  s.stage = Stage::s3;
  s.backend = "mpi";
  s.layers = 2;
  s.ranks = 2;
  s.phase_names = {"fwd_gather", "bwd_gather", "reduce", "update"};
  s.phases.assign(4, reduce_phase("phase", {{1e-4, 2e-4}, {1e-4, 2e-4}}, RankAverage::avg));
  s.step = reduce_phase("step", {{1e-3, 2e-3}, {1e-3, 2e-3}}, RankAverage::avg);
  s.predicted_s = 1e-3;
  s.hosts = {"a", "a"};
  EXPECT_EQ(test_support::metric_keys(zero_record(s)), test_support::metric_keys(zero_record_layout()));
}

}  // namespace
}  // namespace distbench::zero
