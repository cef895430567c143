// How -G splits a repeated call into graph launches (no device needed).
#include "backends/nccl/cuda_graph.hpp"

#include <gtest/gtest.h>

namespace distbench::nccl {
namespace {

void expect_plan(int times, int launches_asked, GraphPlan want) {
  const GraphPlan got = plan_graph(times, launches_asked);
  EXPECT_EQ(got.per_launch, want.per_launch) << times << " over " << launches_asked;
  EXPECT_EQ(got.launches, want.launches) << times << " over " << launches_asked;
  EXPECT_EQ(got.rest, want.rest) << times << " over " << launches_asked;
  if (times > 0) {
    EXPECT_EQ(got.per_launch * got.launches + got.rest, times);
  }
}

TEST(PlanGraph, RunsExactlyTheOperationsAskedFor) {
  expect_plan(10, 5, {2, 5, 0});
  expect_plan(100, 1, {100, 1, 0});
  expect_plan(7, 10, {1, 7, 0});    // fewer operations than launches: one per launch
  expect_plan(25, 10, {2, 12, 1});  // the remainder runs outside the graph
  expect_plan(0, 3, {1, 0, 0});
}

}  // namespace
}  // namespace distbench::nccl
