// tp's records (benchmarks/tp/tp_record): the tables show the records' metrics.
#include "benchmarks/tp/tp_record.hpp"
#include "tests/support/layout_check.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace distbench::tp {
namespace {

using test_support::shown_metrics;

TEST(TpRecord, TheTablesShowTheRecordsMetrics) {
  EXPECT_EQ(shown_metrics(ops_layout(), ops_table()),
            (std::vector<std::string>{"time_us", "algbw_gbps", "busbw_gbps", "wrong"}));
  EXPECT_EQ(shown_metrics(layers_layout(), layers_table()),  // every one but max_over_bound (in the reports only)
            (std::vector<std::string>{"forward_ms", "backward_ms", "step_ms", "comm_ms", "comm_share", "tflops",
                                      "max_rel_diff", "wrong"}));
  EXPECT_EQ(layers_layout().metrics.size(), 9u);
}

}  // namespace
}  // namespace distbench::tp
