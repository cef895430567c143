// The cost of a collective under the latency-bandwidth model (Hockney), per algorithm:
//   T(p, S) = a(p) * alpha + b(p) * S * beta + c(p) * S * gamma
// alpha: seconds per message (start-up), beta: seconds per byte moved over one link, gamma: seconds per byte
// reduced; p: ranks; S: the case's size in nccl-tests' convention (core/device/collective.hpp: allreduce S = count,
// allgather
// and reduce-scatter S = count * p). The coefficients a, b, c are the algorithm's, from
//   R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of Collective Communication Operations in MPICH",
//   IJHPCA 19(1), 2005, and
//   E. Chan, M. Heimlich, A. Purkayastha, R. van de Geijn, "Collective communication: theory, practice, and
//   experience", CCPE 19(13), 2007.
// Every function here is pure; test_cost_formulas.cpp checks each against values worked out by hand. What the model
// knows of each collective (its algorithms with their terms and formulas, Open MPI's names) is one row of one table
// in cost_formulas.cpp, checked complete at compile time.
#pragma once

#include "core/device/collective.hpp"

#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace distbench::model {

enum class Algorithm {
  ring,                // p-1 neighbour steps per phase
  recursive_doubling,  // lg p steps, the whole vector (allreduce) or a growing half (allgather) each step
  recursive_halving,   // reduce-scatter: lg p steps, halving the vector each step
  rabenseifner,        // reduce-scatter by recursive halving, then allgather by recursive doubling
  binomial,            // a binomial tree: ceil(lg p) steps of the whole vector (allreduce: reduce, then broadcast)
  bruck,               // Bruck's concatenation: ceil(lg p) steps for any p
  scatter_allgather,   // broadcast as van de Geijn's scatter, then a ring allgather
  pairwise,            // alltoall: p-1 pairwise exchanges
  linear,              // the root talks to every rank in turn (gather, scatter)
  direct,              // sendrecv: one message each way
};

// The coefficients a, b, c of T(p, S) above.
struct CostTerms {
  double latency = 0;    // a: messages on the critical path (times alpha)
  double transfer = 0;   // b: bytes moved on the critical path per byte of S (times S * beta)
  double reduction = 0;  // c: bytes reduced on the critical path per byte of S (times S * gamma)
};

// The algorithm's terms for `c` at p ranks; nullopt when the algorithm does not implement `c`. p < 2: all zero
// (nothing is sent). Where an algorithm needs p a power of two (recursive doubling and halving, Rabenseifner), other
// p fold the r = p - p' extra ranks into p' = 2^floor(lg p) first and send them the result last (Thakur et al.,
// section 4): one step in, one step out (allreduce: + 2 alpha + 2 S beta + S gamma; allgather: + 2 alpha + (1 + 1/p) S
// beta, the extra rank's block in and the whole result out).
std::optional<CostTerms> cost_terms(Collective c, Algorithm a, int p);

// The largest message one step of the algorithm sends, as a share of S (ring allreduce: 1/p; recursive doubling: 1;
// the halving and Bruck algorithms: 1/2); nullopt where the library cuts the data into segments of its own choosing
// (the pipelined chains of ring broadcast and reduce) or `a` does not implement `c`. With a transport's eager limit it
// tells which protocol carried a case's messages (model/transport.hpp).
std::optional<double> largest_message_share(Collective c, Algorithm a, int p);

// T(p, S) in seconds for the given alpha (s), beta (s/B) and gamma (s/B).
double cost_seconds(const CostTerms& t, double bytes, double alpha, double beta, double gamma);

// The algorithms that implement `c`, the first being the one assumed when a report does not say (ring where there is
// one: what NCCL runs and what Open MPI picks for large messages).
std::vector<Algorithm> algorithms_of(Collective c);

// T(p, S) of `a` for `c` as the model prints it ("(p-1) alpha + (p-1)/p S beta"); empty where `a` does not implement
// `c`.
std::string_view formula_of(Collective c, Algorithm a);

// One of Open MPI 4.1's algorithms for coll_tuned_<collective>_algorithm (numbered in order from 1): its name, and the
// formula that models it (none where no formula here does: a linear or k-nomial variant, a segmented tree).
struct OpenMpiAlgorithm {
  std::string_view name;
  std::optional<Algorithm> formula;
};
// Open MPI's name of a collective in its MCA variables ("bcast") and its algorithms in order.
struct OpenMpiCollective {
  std::string_view name;
  std::span<const OpenMpiAlgorithm> algorithms;
};
const OpenMpiCollective& open_mpi_names(Collective c);

std::string_view name(Algorithm a);  // "ring", "recursive-doubling", ...
std::optional<Algorithm> parse_algorithm(std::string_view text);
std::span<const Algorithm> all_algorithms();

// ceil(log2 p) and floor(log2 p) for p >= 1.
int ceil_log2(int p);
int floor_log2(int p);

}  // namespace distbench::model
