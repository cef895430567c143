// What a record keeps of its ranks' figures: every rank up to the threshold (--per-rank auto), the summary above it or
// when asked (summary), every rank when asked (all); the summary names the ranks at either end with their hosts, and
// the reporters keep each record in the form the run's description asks for.
#include "core/report/per_rank.hpp"

#include "core/report/reporter.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace distbench {
namespace {

// `n` ranks on hosts of 4 ranks each ("node0", "node1", ...): time_us = 10 + rank, faults = 0 but rank 5's 2.
Record record_of(std::size_t n) {
  Record r;
  r.kind = "collective";
  r.set("bytes", std::int64_t{8});
  for (std::size_t i = 0; i < n; ++i) {
    RankFigures f;
    f.rank = static_cast<int>(i);
    f.host = "node" + std::to_string(i / 4);
    f.figures = {{"time_us", 10.0 + static_cast<double>(i)}, {"faults", i == 5 ? 2.0 : 0.0}};
    r.ranks.push_back(std::move(f));
  }
  return r;
}

TEST(PerRank, AutoKeepsEveryRankUpToTheThresholdAndTheSummaryAbove) {
  const PerRankPolicy automatic{PerRankForm::automatic, kPerRankThreshold};
  EXPECT_TRUE(automatic.keeps_every_rank(64));
  EXPECT_FALSE(automatic.keeps_every_rank(65));
  EXPECT_TRUE((PerRankPolicy{PerRankForm::all}).keeps_every_rank(100000));
  EXPECT_FALSE((PerRankPolicy{PerRankForm::summary}).keeps_every_rank(3));
  EXPECT_EQ(kPerRankThreshold, 64u);  // the figure docs/scale.md and --help state
  EXPECT_EQ(PerRankOptions{}.policy().form, PerRankForm::automatic);
  EXPECT_EQ(parse_per_rank_form("summary"), PerRankForm::summary);
  EXPECT_EQ(parse_per_rank_form("every"), std::nullopt);
}

TEST(PerRank, TheSummaryHasEachFigureInOrderWithTheRanksAtEitherEndAndTheirHosts) {
  const RankSummary s = summarize_ranks(record_of(10).ranks);
  EXPECT_EQ(s.ranks, 10u);
  ASSERT_EQ(s.figures.size(), 2u);
  EXPECT_EQ(s.figures[0].key, "time_us");
  EXPECT_EQ(s.figures[1].key, "faults");
  const RankDistribution& time = s.figures[0].over_ranks;
  EXPECT_EQ(time.min, 10);
  EXPECT_EQ(time.max, 19);
  EXPECT_DOUBLE_EQ(time.median, 14.5);
  ASSERT_EQ(time.highest.size(), 3u);
  EXPECT_EQ(time.highest[0].rank, 9);
  EXPECT_EQ(time.highest[0].host, "node2");
  EXPECT_EQ(time.lowest[0].rank, 0);
  EXPECT_EQ(time.lowest[0].host, "node0");
  EXPECT_EQ(s.figures[1].over_ranks.highest[0].rank, 5);
  EXPECT_EQ(s.figures[1].over_ranks.highest[0].host, "node1");
}

TEST(PerRank, AFigureARankLacksIsNotMeasuredThere) {
  std::vector<RankFigures> ranks = record_of(3).ranks;
  ranks[1].figures.pop_back();  // rank 1 has no "faults"
  const RankSummary s = summarize_ranks(ranks);
  EXPECT_EQ(s.figures[1].over_ranks.ranks, 2u);
  EXPECT_EQ(s.figures[0].over_ranks.ranks, 3u);
}

TEST(PerRank, CondensingReplacesTheRanksAndFreesThem) {
  Record big = record_of(65);
  condense_ranks(big, PerRankPolicy{PerRankForm::automatic});
  EXPECT_TRUE(big.ranks.empty());
  EXPECT_EQ(big.ranks.capacity(), 0u);
  EXPECT_EQ(big.rank_summary.ranks, 65u);

  Record small = record_of(64);
  condense_ranks(small, PerRankPolicy{PerRankForm::automatic});
  EXPECT_EQ(small.ranks.size(), 64u);
  EXPECT_TRUE(small.rank_summary.empty());

  Record forced = record_of(3);
  condense_ranks(forced, PerRankPolicy{PerRankForm::summary});
  EXPECT_TRUE(forced.ranks.empty());
  EXPECT_EQ(forced.rank_summary.ranks, 3u);
  condense_ranks(forced, PerRankPolicy{PerRankForm::summary});  // already condensed: left as it is
  EXPECT_EQ(forced.rank_summary.ranks, 3u);
}

// Keeps what the base class kept and was given, per add().
class Keeper final : public Reporter {
 public:
  std::vector<Record> given;
  const std::vector<Record>& kept() const { return records(); }

 protected:
  void do_begin(const RunInfo&) override {}
  void do_add(const std::vector<Record>& row) override { given.insert(given.end(), row.begin(), row.end()); }
  void do_end(const RunInfo&) override {}
};

TEST(PerRank, ReportersKeepAndShowEachRecordInTheFormTheDescriptionAsks) {
  RunDescription d;
  d.per_rank = PerRankPolicy{PerRankForm::summary};
  Keeper k;
  k.begin(RunInfo{}, d);
  k.add({record_of(3), record_of(3)});
  ASSERT_EQ(k.kept().size(), 2u);
  EXPECT_TRUE(k.kept()[0].ranks.empty());
  EXPECT_EQ(k.kept()[0].rank_summary.ranks, 3u);
  ASSERT_EQ(k.given.size(), 2u);
  EXPECT_TRUE(k.given[1].ranks.empty());
  EXPECT_EQ(k.given[1].rank_summary.figures.size(), 2u);

  Keeper as_given;  // a description that says nothing (a replay) keeps records as they come
  as_given.begin(RunInfo{}, RunDescription{});
  as_given.add({record_of(100)});
  EXPECT_EQ(as_given.kept()[0].ranks.size(), 100u);
}

}  // namespace
}  // namespace distbench
