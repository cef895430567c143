// The algorithms' cost formulas, T = a alpha + b S beta + c S gamma, checked against values worked out by hand from
// Thakur, Rabenseifner & Gropp 2005 (allreduce, allgather, reduce-scatter, broadcast, reduce, alltoall) and Chan et
// al. 2007 (broadcast as scatter + allgather).
#include "model/cost_formulas.hpp"

#include <gtest/gtest.h>

namespace distbench::model {
namespace {

void expect_terms(Collective c, Algorithm a, int p, double latency, double transfer, double reduction) {
  const auto t = cost_terms(c, a, p);
  ASSERT_TRUE(t.has_value()) << name(c) << " " << name(a);
  EXPECT_DOUBLE_EQ(t->latency, latency) << name(c) << " " << name(a) << " p=" << p;
  EXPECT_DOUBLE_EQ(t->transfer, transfer) << name(c) << " " << name(a) << " p=" << p;
  EXPECT_DOUBLE_EQ(t->reduction, reduction) << name(c) << " " << name(a) << " p=" << p;
}

TEST(CostFormulas, RingAllreduceIsReduceScatterThenAllgather) {
  // Thakur et al. 2005, ring: 2(p-1) alpha + 2(p-1)/p n beta + (p-1)/p n gamma
  expect_terms(Collective::allreduce, Algorithm::ring, 2, 2, 1, 0.5);
  expect_terms(Collective::allreduce, Algorithm::ring, 4, 6, 1.5, 0.75);
  expect_terms(Collective::allreduce, Algorithm::ring, 8, 14, 1.75, 0.875);
}

TEST(CostFormulas, RecursiveDoublingAllreduceSendsTheWholeVectorEachStep) {
  // lg p alpha + n lg p beta + n lg p gamma, p a power of two
  expect_terms(Collective::allreduce, Algorithm::recursive_doubling, 8, 3, 3, 3);
  // p = 6: p' = 4 (2 steps) + one step folding the extra ranks in and one sending them the result
  expect_terms(Collective::allreduce, Algorithm::recursive_doubling, 6, 4, 4, 3);
}

TEST(CostFormulas, RabenseifnerIsHalvingThenDoubling) {
  // 2 lg p alpha + 2(p-1)/p n beta + (p-1)/p n gamma
  expect_terms(Collective::allreduce, Algorithm::rabenseifner, 8, 6, 1.75, 0.875);
  // p = 3: p' = 2: 2 alpha + 1 n beta + 0.5 n gamma, then + 2 alpha + 2 n beta + n gamma
  expect_terms(Collective::allreduce, Algorithm::rabenseifner, 3, 4, 3, 1.5);
  expect_terms(Collective::reduce, Algorithm::rabenseifner, 8, 6, 1.75, 0.875);
}

TEST(CostFormulas, BinomialAllreduceIsReduceThenBroadcast) {
  // 2 ceil(lg p) (alpha + n beta) + ceil(lg p) n gamma
  expect_terms(Collective::allreduce, Algorithm::binomial, 5, 6, 6, 3);
}

TEST(CostFormulas, Allgather) {
  expect_terms(Collective::allgather, Algorithm::ring, 4, 3, 0.75, 0);                // (p-1) a + (p-1)/p n b
  expect_terms(Collective::allgather, Algorithm::recursive_doubling, 4, 2, 0.75, 0);  // lg p a + (p-1)/p n b
  expect_terms(Collective::allgather, Algorithm::bruck, 5, 3, 0.8, 0);                // ceil(lg p) a + (p-1)/p n b
}

TEST(CostFormulas, ReduceScatter) {
  expect_terms(Collective::reduce_scatter, Algorithm::ring, 4, 3, 0.75, 0.75);
  expect_terms(Collective::reduce_scatter, Algorithm::recursive_halving, 8, 3, 0.875, 0.875);
}

TEST(CostFormulas, BroadcastReduceAlltoallRootedAndSendrecv) {
  expect_terms(Collective::broadcast, Algorithm::binomial, 8, 3, 3, 0);               // lg p (a + n b)
  expect_terms(Collective::broadcast, Algorithm::scatter_allgather, 8, 10, 1.75, 0);  // (lg p + p-1) a + 2(p-1)/p n b
  expect_terms(Collective::broadcast, Algorithm::ring, 8, 7, 1, 0);
  expect_terms(Collective::reduce, Algorithm::binomial, 4, 2, 2, 2);
  expect_terms(Collective::alltoall, Algorithm::pairwise, 4, 3, 0.75, 0);
  expect_terms(Collective::alltoall, Algorithm::bruck, 8, 3, 1.5, 0);  // lg p (a + n/2 b)
  expect_terms(Collective::gather, Algorithm::binomial, 8, 3, 0.875, 0);
  expect_terms(Collective::scatter, Algorithm::linear, 8, 7, 0.875, 0);
  expect_terms(Collective::sendrecv, Algorithm::direct, 8, 1, 1, 0);
}

TEST(CostFormulas, OneRankSendsNothingAndUnknownPairsAreRefused) {
  expect_terms(Collective::allreduce, Algorithm::ring, 1, 0, 0, 0);
  EXPECT_FALSE(cost_terms(Collective::allgather, Algorithm::rabenseifner, 4).has_value());
  EXPECT_FALSE(cost_terms(Collective::sendrecv, Algorithm::ring, 4).has_value());
}

TEST(CostFormulas, LargestMessageOfOneStep) {
  EXPECT_DOUBLE_EQ(*largest_message_share(Collective::allreduce, Algorithm::ring, 4), 0.25);
  EXPECT_DOUBLE_EQ(*largest_message_share(Collective::allreduce, Algorithm::recursive_doubling, 4), 1.0);
  EXPECT_DOUBLE_EQ(*largest_message_share(Collective::allreduce, Algorithm::rabenseifner, 8), 0.5);
  EXPECT_DOUBLE_EQ(*largest_message_share(Collective::allgather, Algorithm::ring, 3), 1.0 / 3);
  EXPECT_DOUBLE_EQ(*largest_message_share(Collective::alltoall, Algorithm::pairwise, 4), 0.25);
  EXPECT_DOUBLE_EQ(*largest_message_share(Collective::sendrecv, Algorithm::direct, 2), 1.0);
  // the library's segments, an algorithm the collective lacks, one rank: unknown
  EXPECT_FALSE(largest_message_share(Collective::broadcast, Algorithm::ring, 4).has_value());
  EXPECT_FALSE(largest_message_share(Collective::allgather, Algorithm::rabenseifner, 4).has_value());
  EXPECT_FALSE(largest_message_share(Collective::allreduce, Algorithm::ring, 1).has_value());
}

TEST(CostFormulas, SecondsAddTheThreeTerms) {
  // ring allreduce, p = 4, S = 1 MB, alpha = 10 us, beta = 1 ns/B, gamma = 0.5 ns/B:
  // 6 * 10 us + 1.5 * 1e6 * 1 ns + 0.75 * 1e6 * 0.5 ns = 60 us + 1500 us + 375 us
  const auto t = cost_terms(Collective::allreduce, Algorithm::ring, 4);
  EXPECT_NEAR(cost_seconds(*t, 1e6, 10e-6, 1e-9, 0.5e-9), 1935e-6, 1e-12);
}

TEST(CostFormulas, LogarithmsAndNames) {
  EXPECT_EQ(ceil_log2(1), 0);
  EXPECT_EQ(ceil_log2(5), 3);
  EXPECT_EQ(ceil_log2(8), 3);
  EXPECT_EQ(floor_log2(7), 2);
  EXPECT_EQ(floor_log2(8), 3);
  for (Algorithm a : all_algorithms()) EXPECT_EQ(parse_algorithm(name(a)), a);
  EXPECT_FALSE(parse_algorithm("tree").has_value());
  EXPECT_EQ(algorithms_of(Collective::allreduce).front(), Algorithm::ring);
}

// The model's row of each collective is complete: at least one algorithm, each with terms at every p, a formula to
// print and a largest message where it has one; Open MPI's algorithms name only formulas of that collective.
TEST(CostFormulas, EveryCollectiveHasItsAlgorithmsAndOpenMpiNames) {
  for (Collective c : all_collectives()) {
    const std::vector<Algorithm> algorithms = algorithms_of(c);
    ASSERT_FALSE(algorithms.empty()) << name(c);
    for (Algorithm a : algorithms) {
      EXPECT_FALSE(formula_of(c, a).empty()) << name(c) << " " << name(a);
      for (int p = 2; p <= 9; ++p) {
        const auto t = cost_terms(c, a, p);
        ASSERT_TRUE(t.has_value()) << name(c) << " " << name(a);
        EXPECT_GT(t->latency, 0) << name(c) << " " << name(a) << " p=" << p;
        EXPECT_GT(t->transfer, 0) << name(c) << " " << name(a) << " p=" << p;
        EXPECT_EQ(t->reduction > 0, is_reduction(c)) << name(c) << " " << name(a) << " p=" << p;
      }
    }
    EXPECT_FALSE(open_mpi_names(c).name.empty()) << name(c);
    for (const OpenMpiAlgorithm& o : open_mpi_names(c).algorithms) {
      if (!o.formula) continue;
      EXPECT_TRUE(cost_terms(c, *o.formula, 4).has_value()) << name(c) << " " << o.name;
    }
  }
  EXPECT_EQ(open_mpi_names(Collective::broadcast).name, "bcast");
  EXPECT_EQ(open_mpi_names(Collective::reduce_scatter).name, "reduce_scatter");
  EXPECT_TRUE(formula_of(Collective::sendrecv, Algorithm::ring).empty());
}

}  // namespace
}  // namespace distbench::model
