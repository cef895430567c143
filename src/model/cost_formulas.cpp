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
constexpr std::array<Algorithm, 10> kAll = {Algorithm::ring,   Algorithm::recursive_doubling,
                                            Algorithm::recursive_halving, Algorithm::rabenseifner,
                                            Algorithm::binomial, Algorithm::bruck,
                                            Algorithm::scatter_allgather, Algorithm::pairwise,
                                            Algorithm::linear,  Algorithm::direct};

// Per collective, its algorithms; the first is assumed when a report does not say which ran.
constexpr std::array<Algorithm, 4> kAllreduce = {Algorithm::ring, Algorithm::recursive_doubling,
                                                 Algorithm::rabenseifner, Algorithm::binomial};
constexpr std::array<Algorithm, 3> kAllgather = {Algorithm::ring, Algorithm::recursive_doubling, Algorithm::bruck};
constexpr std::array<Algorithm, 2> kReduceScatter = {Algorithm::ring, Algorithm::recursive_halving};
constexpr std::array<Algorithm, 3> kBroadcast = {Algorithm::ring, Algorithm::binomial, Algorithm::scatter_allgather};
constexpr std::array<Algorithm, 3> kReduce = {Algorithm::ring, Algorithm::binomial, Algorithm::rabenseifner};
constexpr std::array<Algorithm, 2> kAlltoall = {Algorithm::pairwise, Algorithm::bruck};
constexpr std::array<Algorithm, 2> kRooted = {Algorithm::linear, Algorithm::binomial};
constexpr std::array<Algorithm, 1> kSendrecv = {Algorithm::direct};

bool power_of_two(int p) { return p > 0 && (p & (p - 1)) == 0; }

// Allreduce (and reduce) by Rabenseifner's algorithm: reduce-scatter by recursive halving, then allgather by
// recursive doubling (reduce: a binomial gather, the same cost): 2 lg p alpha + 2 (p-1)/p S beta + (p-1)/p S gamma.
CostTerms rabenseifner_terms(int p) {
  const int q = floor_log2(p);
  const double pp = static_cast<double>(1 << q);
  CostTerms t{2.0 * q, 2.0 * (pp - 1) / pp, (pp - 1) / pp};
  if (!power_of_two(p)) t = {t.latency + 2, t.transfer + 2, t.reduction + 1};  // fold in, send back
  return t;
}

std::optional<CostTerms> allreduce_terms(Algorithm a, double p, int ranks) {
  switch (a) {
    case Algorithm::ring:  // reduce-scatter ring + allgather ring
      return CostTerms{2 * (p - 1), 2 * (p - 1) / p, (p - 1) / p};
    case Algorithm::recursive_doubling: {  // lg p steps exchanging the whole vector, each reduced
      const int q = floor_log2(ranks);
      if (power_of_two(ranks)) return CostTerms{1.0 * q, 1.0 * q, 1.0 * q};
      return CostTerms{q + 2.0, q + 2.0, q + 1.0};
    }
    case Algorithm::rabenseifner:
      return rabenseifner_terms(ranks);
    case Algorithm::binomial: {  // binomial reduce, then binomial broadcast
      const double l = ceil_log2(ranks);
      return CostTerms{2 * l, 2 * l, l};
    }
    default:
      return std::nullopt;
  }
}

std::optional<CostTerms> allgather_terms(Algorithm a, double p, int ranks) {
  switch (a) {
    case Algorithm::ring:
      return CostTerms{p - 1, (p - 1) / p, 0};
    case Algorithm::recursive_doubling: {
      const int q = floor_log2(ranks);
      if (power_of_two(ranks)) return CostTerms{1.0 * q, (p - 1) / p, 0};
      return CostTerms{q + 2.0, (p - 1) / p + 1 + 1 / p, 0};  // the extra rank's block in, the whole result out
    }
    case Algorithm::bruck:
      return CostTerms{1.0 * ceil_log2(ranks), (p - 1) / p, 0};
    default:
      return std::nullopt;
  }
}

std::optional<CostTerms> reduce_scatter_terms(Algorithm a, double p, int ranks) {
  switch (a) {
    case Algorithm::ring:
      return CostTerms{p - 1, (p - 1) / p, (p - 1) / p};
    case Algorithm::recursive_halving: {
      const int q = floor_log2(ranks);
      if (power_of_two(ranks)) return CostTerms{1.0 * q, (p - 1) / p, (p - 1) / p};
      const double pp = static_cast<double>(1 << q);
      return CostTerms{q + 2.0, (pp - 1) / pp + 1 + 1 / p, (pp - 1) / pp + 1};
    }
    default:
      return std::nullopt;
  }
}

std::optional<CostTerms> broadcast_terms(Algorithm a, double p, int ranks) {
  switch (a) {
    case Algorithm::ring:  // a pipelined chain, in the limit of many segments: p-1 start-ups, S over each link once
      return CostTerms{p - 1, 1, 0};
    case Algorithm::binomial:
      return CostTerms{1.0 * ceil_log2(ranks), 1.0 * ceil_log2(ranks), 0};
    case Algorithm::scatter_allgather:  // binomial scatter, then ring allgather (van de Geijn)
      return CostTerms{ceil_log2(ranks) + p - 1, 2 * (p - 1) / p, 0};
    default:
      return std::nullopt;
  }
}

std::optional<CostTerms> reduce_terms(Algorithm a, double p, int ranks) {
  switch (a) {
    case Algorithm::ring:  // a pipelined chain, reducing at every hop
      return CostTerms{p - 1, 1, 1};
    case Algorithm::binomial:
      return CostTerms{1.0 * ceil_log2(ranks), 1.0 * ceil_log2(ranks), 1.0 * ceil_log2(ranks)};
    case Algorithm::rabenseifner:  // reduce-scatter by halving, then a binomial gather: the allreduce's cost
      return rabenseifner_terms(ranks);
    default:
      return std::nullopt;
  }
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
  const auto known = algorithms_of(c);
  bool implements = false;
  for (Algorithm k : known) implements = implements || k == a;
  if (!implements) return std::nullopt;
  if (p < 2) return CostTerms{};
  const double n = p;
  switch (c) {
    case Collective::allreduce:
      return allreduce_terms(a, n, p);
    case Collective::allgather:
      return allgather_terms(a, n, p);
    case Collective::reduce_scatter:
      return reduce_scatter_terms(a, n, p);
    case Collective::broadcast:
      return broadcast_terms(a, n, p);
    case Collective::reduce:
      return reduce_terms(a, n, p);
    case Collective::alltoall:  // pairwise: p-1 exchanges of S/p; Bruck: ceil(lg p) steps of S/2
      if (a == Algorithm::pairwise) return CostTerms{n - 1, (n - 1) / n, 0};
      return CostTerms{1.0 * ceil_log2(p), ceil_log2(p) / 2.0, 0};
    case Collective::gather:
    case Collective::scatter:  // the root's link carries (p-1)/p S either way; the tree saves start-ups
      if (a == Algorithm::linear) return CostTerms{n - 1, (n - 1) / n, 0};
      return CostTerms{1.0 * ceil_log2(p), (n - 1) / n, 0};
    case Collective::sendrecv:
      return CostTerms{1, 1, 0};
  }
  return std::nullopt;
}

std::optional<double> largest_message_share(Collective c, Algorithm a, int p) {
  if (!cost_terms(c, a, p) || p < 2) return std::nullopt;
  const double n = p;
  switch (a) {
    case Algorithm::ring:  // a block of S/p per step; broadcast's and reduce's chains send segments instead
      if (c == Collective::broadcast || c == Collective::reduce) return std::nullopt;
      return 1 / n;
    case Algorithm::pairwise:
    case Algorithm::linear:
      return 1 / n;
    case Algorithm::recursive_doubling:  // allreduce: the whole vector; allgather: half of it in the last step
      return c == Collective::allreduce ? 1.0 : 0.5;
    case Algorithm::recursive_halving:
    case Algorithm::rabenseifner:
    case Algorithm::bruck:
    case Algorithm::scatter_allgather:
      return 0.5;
    case Algorithm::binomial:  // the whole vector down (or up) the tree; gather and scatter: half of it at the root
      return c == Collective::gather || c == Collective::scatter ? 0.5 : 1.0;
    case Algorithm::direct:
      return 1.0;
  }
  return std::nullopt;
}

double cost_seconds(const CostTerms& t, double bytes, double alpha, double beta, double gamma) {
  return t.latency * alpha + t.transfer * bytes * beta + t.reduction * bytes * gamma;
}

std::span<const Algorithm> algorithms_of(Collective c) {
  switch (c) {
    case Collective::allreduce:
      return kAllreduce;
    case Collective::allgather:
      return kAllgather;
    case Collective::reduce_scatter:
      return kReduceScatter;
    case Collective::broadcast:
      return kBroadcast;
    case Collective::reduce:
      return kReduce;
    case Collective::alltoall:
      return kAlltoall;
    case Collective::gather:
    case Collective::scatter:
      return kRooted;
    case Collective::sendrecv:
      return kSendrecv;
  }
  return {};
}

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
