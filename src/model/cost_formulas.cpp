#include "model/cost_formulas.hpp"

#include <array>

namespace distbench::model {
namespace {

struct AlgorithmName {
  Algorithm id;
  std::string_view name;
};
constexpr std::array<AlgorithmName, 10> kAlgorithmNames = {{
    {Algorithm::ring, "ring"},
    {Algorithm::recursive_doubling, "recursive-doubling"},
    {Algorithm::recursive_halving, "recursive-halving"},
    {Algorithm::rabenseifner, "rabenseifner"},
    {Algorithm::binomial, "binomial"},
    {Algorithm::bruck, "bruck"},
    {Algorithm::scatter_allgather, "scatter-allgather"},
    {Algorithm::pairwise, "pairwise"},
    {Algorithm::linear, "linear"},
    {Algorithm::direct, "direct"},
}};
constexpr std::array<Algorithm, 10> kAll = {Algorithm::ring,
                                            Algorithm::recursive_doubling,
                                            Algorithm::recursive_halving,
                                            Algorithm::rabenseifner,
                                            Algorithm::binomial,
                                            Algorithm::bruck,
                                            Algorithm::scatter_allgather,
                                            Algorithm::pairwise,
                                            Algorithm::linear,
                                            Algorithm::direct};

bool power_of_two(int p) { return p > 0 && (p & (p - 1)) == 0; }

// Allreduce (and reduce) by Rabenseifner's algorithm: reduce-scatter by recursive halving, then allgather by
// recursive doubling (reduce: a binomial gather, the same cost): 2 lg p alpha + 2 (p-1)/p S beta + (p-1)/p S gamma.
CostTerms rabenseifner_terms(double, int p) {
  const int q = floor_log2(p);
  const double pp = static_cast<double>(1 << q);
  CostTerms t{2.0 * q, 2.0 * (pp - 1) / pp, (pp - 1) / pp};
  if (!power_of_two(p)) t = {t.latency + 2, t.transfer + 2, t.reduction + 1};  // fold in, send back
  return t;
}

// Allreduce by recursive doubling: lg p steps exchanging the whole vector, each reduced.
CostTerms recursive_doubling_allreduce(double, int ranks) {
  const int q = floor_log2(ranks);
  if (power_of_two(ranks)) return CostTerms{1.0 * q, 1.0 * q, 1.0 * q};
  return CostTerms{q + 2.0, q + 2.0, q + 1.0};
}

CostTerms recursive_doubling_allgather(double p, int ranks) {
  const int q = floor_log2(ranks);
  if (power_of_two(ranks)) return CostTerms{1.0 * q, (p - 1) / p, 0};
  return CostTerms{q + 2.0, (p - 1) / p + 1 + 1 / p, 0};  // the extra rank's block in, the whole result out
}

CostTerms recursive_halving_reduce_scatter(double p, int ranks) {
  const int q = floor_log2(ranks);
  if (power_of_two(ranks)) return CostTerms{1.0 * q, (p - 1) / p, (p - 1) / p};
  const double pp = static_cast<double>(1 << q);
  return CostTerms{q + 2.0, (pp - 1) / pp + 1 + 1 / p, (pp - 1) / pp + 1};
}

// The largest message one step sends: the library's own segments (not known here), S/p, S/2 or S.
enum class Largest { segments, block, half, whole };

// One algorithm of one collective: its terms at p >= 2 ranks (p also as an int, for the logarithms), its largest
// message, and its formula as the model prints it.
struct AlgorithmCost {
  Algorithm algorithm;
  CostTerms (*terms)(double p, int ranks);
  Largest largest;
  std::string_view formula;
};

using A = Algorithm;
constexpr AlgorithmCost kAllreduce[] = {
    {A::ring,  // reduce-scatter ring + allgather ring
     [](double p, int) {
       return CostTerms{2 * (p - 1), 2 * (p - 1) / p, (p - 1) / p};
     },
     Largest::block, "2(p-1) alpha + 2(p-1)/p S beta + (p-1)/p S gamma"},
    {A::recursive_doubling, recursive_doubling_allreduce, Largest::whole, "lg p (alpha + S beta + S gamma)"},
    {A::rabenseifner, rabenseifner_terms, Largest::half, "2 lg p alpha + 2(p-1)/p S beta + (p-1)/p S gamma"},
    {A::binomial,  // binomial reduce, then binomial broadcast
     [](double, int ranks) {
       const double l = ceil_log2(ranks);
       return CostTerms{2 * l, 2 * l, l};
     },
     Largest::whole, "2 ceil(lg p) (alpha + S beta) + ceil(lg p) S gamma"},
};
constexpr AlgorithmCost kAllgather[] = {
    {A::ring,
     [](double p, int) {
       return CostTerms{p - 1, (p - 1) / p, 0};
     },
     Largest::block, "(p-1) alpha + (p-1)/p S beta"},
    {A::recursive_doubling, recursive_doubling_allgather, Largest::half, "lg p alpha + (p-1)/p S beta"},
    {A::bruck,
     [](double p, int ranks) {
       return CostTerms{1.0 * ceil_log2(ranks), (p - 1) / p, 0};
     },
     Largest::half, "ceil(lg p) alpha + (p-1)/p S beta"},
};
constexpr AlgorithmCost kReduceScatter[] = {
    {A::ring,
     [](double p, int) {
       return CostTerms{p - 1, (p - 1) / p, (p - 1) / p};
     },
     Largest::block, "(p-1) alpha + (p-1)/p S (beta + gamma)"},
    {A::recursive_halving, recursive_halving_reduce_scatter, Largest::half, "lg p alpha + (p-1)/p S (beta + gamma)"},
};
constexpr AlgorithmCost kBroadcast[] = {
    // a pipelined chain, in the limit of many segments: p-1 start-ups, S over each link once
    {A::ring,
     [](double p, int) {
       return CostTerms{p - 1, 1, 0};
     },
     Largest::segments, "(p-1) alpha + S beta (pipelined)"},
    {A::binomial,
     [](double, int ranks) {
       return CostTerms{1.0 * ceil_log2(ranks), 1.0 * ceil_log2(ranks), 0};
     },
     Largest::whole, "ceil(lg p) (alpha + S beta)"},
    {A::scatter_allgather,  // binomial scatter, then ring allgather (van de Geijn)
     [](double p, int ranks) {
       return CostTerms{ceil_log2(ranks) + p - 1, 2 * (p - 1) / p, 0};
     },
     Largest::half, "(ceil(lg p) + p-1) alpha + 2(p-1)/p S beta"},
};
constexpr AlgorithmCost kReduce[] = {
    {A::ring,
     [](double p, int) {
       return CostTerms{p - 1, 1, 1};
     },
     Largest::segments,  // a chain reducing at each hop
     "(p-1) alpha + S (beta + gamma) (pipelined)"},
    {A::binomial,
     [](double, int ranks) {
       return CostTerms{1.0 * ceil_log2(ranks), 1.0 * ceil_log2(ranks), 1.0 * ceil_log2(ranks)};
     },
     Largest::whole, "ceil(lg p) (alpha + S beta + S gamma)"},
    // reduce-scatter by halving, then a binomial gather: the allreduce's cost
    {A::rabenseifner, rabenseifner_terms, Largest::half, "2 lg p alpha + 2(p-1)/p S beta + (p-1)/p S gamma"},
};
constexpr AlgorithmCost kAlltoall[] = {
    {A::pairwise,
     [](double p, int) {
       return CostTerms{p - 1, (p - 1) / p, 0};
     },
     Largest::block,  // p-1 of S/p
     "(p-1) alpha + (p-1)/p S beta"},
    {A::bruck,
     [](double, int ranks) {
       return CostTerms{1.0 * ceil_log2(ranks), ceil_log2(ranks) / 2.0, 0};
     },
     Largest::half, "ceil(lg p) (alpha + S/2 beta)"},  // ceil(lg p) steps of S/2
};
// Gather and scatter: the root's link carries (p-1)/p S either way; the tree saves start-ups.
constexpr AlgorithmCost kRooted[] = {
    {A::linear,
     [](double p, int) {
       return CostTerms{p - 1, (p - 1) / p, 0};
     },
     Largest::block, "(p-1) alpha + (p-1)/p S beta"},
    {A::binomial,
     [](double p, int ranks) {
       return CostTerms{1.0 * ceil_log2(ranks), (p - 1) / p, 0};
     },
     Largest::half, "ceil(lg p) alpha + (p-1)/p S beta"},  // half of the data at the root in the last step
};
constexpr AlgorithmCost kSendrecv[] = {
    {A::direct,
     [](double, int) {
       return CostTerms{1, 1, 0};
     },
     Largest::whole, "alpha + S beta"},
};

// Open MPI 4.1's names and numbers (ompi_info --param coll tuned --level 9), in order from 1; no formula where none
// here models it (a linear or k-nomial variant, a segmented tree).
constexpr OpenMpiAlgorithm kOmpiAllreduce[] = {{"basic_linear", std::nullopt},
                                               {"nonoverlapping", A::binomial},
                                               {"recursive_doubling", A::recursive_doubling},
                                               {"ring", A::ring},
                                               {"segmented_ring", A::ring},
                                               {"rabenseifner", A::rabenseifner}};
constexpr OpenMpiAlgorithm kOmpiAllgather[] = {
    {"linear", std::nullopt}, {"bruck", A::bruck},        {"recursive_doubling", A::recursive_doubling},
    {"ring", A::ring},        {"neighbor", std::nullopt}, {"two_proc", A::ring}};
constexpr OpenMpiAlgorithm kOmpiReduceScatter[] = {{"non-overlapping", std::nullopt},
                                                   {"recursive_halving", A::recursive_halving},
                                                   {"ring", A::ring},
                                                   {"butterfly", std::nullopt}};
constexpr OpenMpiAlgorithm kOmpiBcast[] = {{"basic_linear", std::nullopt},
                                           {"chain", A::ring},
                                           {"pipeline", A::ring},
                                           {"split_binary_tree", std::nullopt},
                                           {"binary_tree", std::nullopt},
                                           {"binomial", A::binomial},
                                           {"knomial", std::nullopt},
                                           {"scatter_allgather", A::scatter_allgather},
                                           {"scatter_allgather_ring", A::scatter_allgather}};
constexpr OpenMpiAlgorithm kOmpiReduce[] = {
    {"linear", std::nullopt},         {"chain", A::ring},        {"pipeline", A::ring},
    {"binary", std::nullopt},         {"binomial", A::binomial}, {"in-order_binary", std::nullopt},
    {"rabenseifner", A::rabenseifner}};
constexpr OpenMpiAlgorithm kOmpiAlltoall[] = {{"linear", A::pairwise},
                                              {"pairwise", A::pairwise},
                                              {"modified_bruck", A::bruck},
                                              {"linear_sync", A::pairwise},
                                              {"two_proc", A::pairwise}};
constexpr OpenMpiAlgorithm kOmpiGather[] = {
    {"basic_linear", A::linear}, {"binomial", A::binomial}, {"linear_sync", A::linear}};
constexpr OpenMpiAlgorithm kOmpiScatter[] = {
    {"basic_linear", A::linear}, {"binomial", A::binomial}, {"linear_nb", A::linear}};

// What the model knows of each collective, one row per collective (checked complete at compile time): the
// algorithms that implement it, the first being the one assumed when a report does not say which ran (ring where
// there is one: what NCCL runs and what Open MPI picks for large messages), and Open MPI's names.
struct CollectiveCosts {
  Collective id;
  std::span<const AlgorithmCost> algorithms;
  OpenMpiCollective open_mpi;
};
constexpr std::array<CollectiveCosts, kCollectiveCount> kCollectiveCosts = {{
    {Collective::allreduce, kAllreduce, {"allreduce", kOmpiAllreduce}},
    {Collective::reduce_scatter, kReduceScatter, {"reduce_scatter", kOmpiReduceScatter}},
    {Collective::allgather, kAllgather, {"allgather", kOmpiAllgather}},
    {Collective::broadcast, kBroadcast, {"bcast", kOmpiBcast}},
    {Collective::reduce, kReduce, {"reduce", kOmpiReduce}},
    {Collective::alltoall, kAlltoall, {"alltoall", kOmpiAlltoall}},
    {Collective::gather, kRooted, {"gather", kOmpiGather}},
    {Collective::scatter, kRooted, {"scatter", kOmpiScatter}},
    {Collective::sendrecv, kSendrecv, {"sendrecv", {}}},
}};
static_assert(one_row_per_collective(kCollectiveCosts),
              "kCollectiveCosts must list every collective in the order of enum Collective");

// The row of `a` for `c`; nullptr when `a` does not implement `c`.
const AlgorithmCost* algorithm_cost(Collective c, Algorithm a) {
  for (const AlgorithmCost& k : kCollectiveCosts[static_cast<std::size_t>(c)].algorithms) {
    if (k.algorithm == a) return &k;
  }
  return nullptr;
}

}  // namespace

int ceil_log2(int p) {
  int l = 0;
  while ((1LL << l) < p) ++l;
  return l;
}

int floor_log2(int p) {
  int l = 0;
  while ((2LL << l) <= p) ++l;
  return l;
}

std::optional<CostTerms> cost_terms(Collective c, Algorithm a, int p) {
  const AlgorithmCost* k = algorithm_cost(c, a);
  if (k == nullptr) return std::nullopt;
  if (p < 2) return CostTerms{};
  return k->terms(p, p);
}

std::optional<double> largest_message_share(Collective c, Algorithm a, int p) {
  const AlgorithmCost* k = algorithm_cost(c, a);
  if (k == nullptr || p < 2) return std::nullopt;
  switch (k->largest) {
    case Largest::segments: return std::nullopt;
    case Largest::block: return 1 / static_cast<double>(p);
    case Largest::half: return 0.5;
    case Largest::whole: return 1.0;
  }
  return std::nullopt;
}

std::string_view formula_of(Collective c, Algorithm a) {
  const AlgorithmCost* k = algorithm_cost(c, a);
  return k == nullptr ? std::string_view() : k->formula;
}

double cost_seconds(const CostTerms& t, double bytes, double alpha, double beta, double gamma) {
  return t.latency * alpha + t.transfer * bytes * beta + t.reduction * bytes * gamma;
}

std::vector<Algorithm> algorithms_of(Collective c) {
  std::vector<Algorithm> out;
  for (const AlgorithmCost& k : kCollectiveCosts[static_cast<std::size_t>(c)].algorithms) out.push_back(k.algorithm);
  return out;
}

const OpenMpiCollective& open_mpi_names(Collective c) { return kCollectiveCosts[static_cast<std::size_t>(c)].open_mpi; }

std::string_view name(Algorithm a) {
  for (const AlgorithmName& n : kAlgorithmNames) {
    if (n.id == a) return n.name;
  }
  return "?";
}

std::optional<Algorithm> parse_algorithm(std::string_view text) {
  for (const AlgorithmName& n : kAlgorithmNames) {
    if (n.name == text) return n.id;
  }
  return std::nullopt;
}

std::span<const Algorithm> all_algorithms() { return kAll; }

}  // namespace distbench::model
