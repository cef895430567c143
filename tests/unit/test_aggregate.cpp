// Reducing per-rank samples: the -a aggregation per sample, each rank's mean, the spread over ranks, and the
// collective's time, algbw and busbw from them (benchmarks/collective/aggregate, core/measure/phase_stats).
#include "benchmarks/collective/aggregate.hpp"
#include "core/measure/phase_stats.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace distbench::collective {
namespace {

// Rank 0 steady at 10 us, rank 1 at 20 us with one slow sample, rank 2 at 30 us.
const std::vector<std::vector<double>> kByRank = {
    {10e-6, 10e-6, 10e-6, 10e-6}, {20e-6, 20e-6, 20e-6, 60e-6}, {30e-6, 30e-6, 30e-6, 30e-6}};

TEST(PhaseStats, EachSampleIsAggregatedAcrossRanksAsAsked) {
  EXPECT_EQ(reduce_phase("t", kByRank, RankAverage::max).stats.samples,
            (std::vector<double>{30e-6, 30e-6, 30e-6, 60e-6}));
  EXPECT_EQ(reduce_phase("t", kByRank, RankAverage::min).stats.samples, std::vector<double>(4, 10e-6));
  EXPECT_EQ(reduce_phase("t", kByRank, RankAverage::rank0).stats.samples, std::vector<double>(4, 10e-6));
  const auto avg = reduce_phase("t", kByRank, RankAverage::avg).stats.samples;
  ASSERT_EQ(avg.size(), 4u);
  EXPECT_NEAR(avg[0], 20e-6, 1e-18);
  EXPECT_NEAR(avg[3], 100e-6 / 3, 1e-18);
}

TEST(PhaseStats, RankMeansAndTheirSpread) {
  const ReducedPhase p = reduce_phase("reduce", kByRank, RankAverage::avg);
  EXPECT_EQ(p.stats.name, "reduce");
  ASSERT_EQ(p.rank_means.size(), 3u);
  EXPECT_NEAR(p.rank_means[1], 30e-6, 1e-18);
  EXPECT_NEAR(p.stats.rank_spread.rank0, 10e-6, 1e-18);
  EXPECT_NEAR(p.stats.rank_spread.min, 10e-6, 1e-18);
  EXPECT_NEAR(p.stats.rank_spread.max, 30e-6, 1e-18);
  EXPECT_NEAR(p.stats.rank_spread.avg, 70e-6 / 3, 1e-18);
  EXPECT_EQ(p.stats.summary.samples, 4u);
  EXPECT_NEAR(pick(RankAverage::max, p.stats.rank_spread), 30e-6, 1e-18);
}

TEST(PhaseStats, NoRanksNoSamples) {
  const ReducedPhase p = reduce_phase("t", {}, RankAverage::avg);
  EXPECT_TRUE(p.stats.samples.empty());
  EXPECT_TRUE(p.rank_means.empty());
  EXPECT_EQ(p.stats.summary.samples, 0u);
}

// nccl-tests' figures: time is -a over the ranks' means; algbw = S / time; busbw = algbw * 2(n-1)/n for allreduce.
TEST(Aggregate, TimeAndBandwidthsFollowTheAverageAndTheBusFactor) {
  CaseResult r;
  r.bytes = 3000000;
  r.nranks = 3;
  aggregate_samples(kByRank, RankAverage::max, Collective::allreduce, r);
  EXPECT_NEAR(r.time_shown, 30e-6, 1e-18);
  EXPECT_NEAR(r.algbw, 3000000 / 30e-6 / 1e9, 1e-9);
  EXPECT_NEAR(r.busbw, r.algbw * 4.0 / 3.0, 1e-9);
  EXPECT_EQ(r.rank_means.size(), 3u);
  EXPECT_EQ(r.samples.size(), 4u);

  aggregate_samples(kByRank, RankAverage::rank0, Collective::broadcast, r);
  EXPECT_NEAR(r.time_shown, 10e-6, 1e-18);
  EXPECT_NEAR(r.busbw, r.algbw, 1e-12);  // broadcast's bus factor is 1
}

// The headline time: the interquartile mean of the -a samples for distbench's own timing (a preempted sample does not
// move it), the mean of each rank's mean (nccl-tests' time over its blocks, OSU's and IMB's averages) for the peers'.
TEST(Aggregate, TheHeadlineIsTheInterquartileMeanForSampledTimingAndTheMeanForThePeers) {
  std::vector<std::vector<double>> by_rank(2, std::vector<double>(20, 1e-6));
  by_rank[1][3] = 500e-6;  // one preempted sample on rank 1
  CaseResult sampled;
  sampled.bytes = 1000;
  sampled.nranks = 2;
  sampled.timing = "sampled";
  CaseResult blocks = sampled;
  blocks.timing = "nccl-tests";
  aggregate_samples(by_rank, RankAverage::avg, Collective::allreduce, sampled);
  aggregate_samples(by_rank, RankAverage::avg, Collective::allreduce, blocks);
  EXPECT_DOUBLE_EQ(sampled.time_shown, 1e-6);
  EXPECT_NEAR(sampled.algbw, 1000 / 1e-6 / 1e9, 1e-9);
  EXPECT_NEAR(blocks.time_shown, (19 * 1e-6 + (1e-6 + 500e-6) / 2) / 20, 1e-15);  // the mean over ranks' means
  EXPECT_EQ(time_statistic("osu"), TimeStatistic::mean);
  EXPECT_EQ(time_statistic("imb"), TimeStatistic::mean);
  EXPECT_EQ(time_statistic_text("sampled", RankAverage::max),
            "interquartile mean of the samples (per sample: slowest rank, -a max)");
  EXPECT_EQ(time_statistic_text("nccl-tests", RankAverage::avg),
            "mean of the blocks (per rank, then mean over ranks, -a avg)");
}

// What the sweep keeps of a case once its records are made holds no rank's figures, but the most faults and context
// switches over the ranks stay what they were: the warnings at the end judge them.
TEST(Aggregate, ACaseKeptAfterItsRecordsHoldsNoRankButTheMostOverRanks) {
  CaseResult r;
  aggregate_samples(kByRank, RankAverage::avg, Collective::allreduce, r);
  r.os_per_op = {
      {0.5, 0, 3, 0}, {4, 1, 0, 0}, {0, 0, 1, 9}, {2, 2, 0, 0}};  // faults: 0.5, 5, 0, 4; switches: 3, 0, 10, 0
  const CaseResult kept = without_rank_figures(r);
  EXPECT_TRUE(kept.rank_means.empty());
  EXPECT_EQ(kept.rank_means.capacity(), 0u);
  EXPECT_EQ(kept.os_per_op.size(), 2u);
  EXPECT_EQ(max_over_ranks(kept.os_per_op, &OsCounters::faults), 5);
  EXPECT_EQ(max_over_ranks(kept.os_per_op, &OsCounters::switches), 10);
  EXPECT_EQ(kept.samples, r.samples);
  EXPECT_EQ(kept.time_shown, r.time_shown);
}

}  // namespace
}  // namespace distbench::collective
