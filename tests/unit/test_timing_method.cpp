// The timing methods as objects: each says which of the sweep's options it takes, and a case is timed by its own.
#include "benchmarks/collective/timing_method.hpp"

#include "core/error.hpp"

#include <gtest/gtest.h>

namespace distbench::collective {
namespace {

TEST(TimingMethod, EachMethodOwnsItsRules) {
  EXPECT_TRUE(timing_method(Timing::nccl_tests).counts_blocks());
  EXPECT_TRUE(timing_method(Timing::nccl_tests).warms_up_sizes());
  EXPECT_FALSE(timing_method(Timing::sampled).counts_blocks());
  EXPECT_TRUE(timing_method(Timing::sampled).times_lists());
  for (Timing peer : {Timing::osu, Timing::imb}) {
    EXPECT_FALSE(timing_method(peer).keeps_noise_target()) << name(peer);
    EXPECT_TRUE(timing_method(peer).calls_as_peers()) << name(peer);
    EXPECT_FALSE(timing_method(peer).times_lists()) << name(peer);
  }
  EXPECT_TRUE(timing_method(Timing::osu).page_aligned_buffers());
  EXPECT_FALSE(timing_method(Timing::imb).page_aligned_buffers());
  EXPECT_THROW(timing_method(Timing::automatic), Error);  // resolved for the backend first
}

TEST(TimingMethod, AListIsTimedByItsOwnMethodWhateverTheTiming) {
  CaseSetup one;
  one.timing = Timing::osu;
  EXPECT_EQ(&method_of(one), &timing_method(Timing::osu));
  CaseSetup list;
  list.tensors = 4;
  const TimingMethod& per_tensor = method_of(list);
  list.fused = true;
  const TimingMethod& fused = method_of(list);
  EXPECT_NE(&per_tensor, &fused);
  EXPECT_NE(&per_tensor, &timing_method(Timing::sampled));
  EXPECT_NE(&fused, &timing_method(Timing::sampled));
}

// The header's counts in each method's words.
TEST(TimingMethod, EachMethodDescribesItsCounts) {
  SweepPlan plan;
  EXPECT_EQ(timing_method(Timing::sampled).warmup_text(plan), "5 iterations");
  EXPECT_EQ(timing_method(Timing::nccl_tests).warmup_text(plan), "5 at each size (doubling) first, 5 per case");
  EXPECT_EQ(timing_method(Timing::osu).warmup_text(plan), "the peer's, per size");
  plan.iters_given = 7;
  EXPECT_EQ(timing_method(Timing::imb).samples_text(plan), "7 calls per case (-n), one at a time");
  EXPECT_NE(timing_method(Timing::osu).timing_text(plan, false).find("page boundary"), std::string::npos);
  EXPECT_EQ(timing_method(Timing::imb).timing_text(plan, false).find("page boundary"), std::string::npos);
}

}  // namespace
}  // namespace distbench::collective
