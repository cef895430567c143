// train --check, bucket by bucket: after an observed step, every sum the update reads must be the sum of the
// replicas' own gradients. Each rank keeps its bucket's gradients as the backward made them (just before the
// reduction starts), the replicas exchange those through the connector (out of band: never through the communicator
// under test), and each rank sums them in float64 and compares with what its reduction left.
//
// The real gradients are not integers, so the comparison is not exact: the reduction adds the N replicas' values in
// an order of the library's choosing, rounding after each addition. For any order the computed sum s' of x_1..x_N
// satisfies |s' - s| <= gamma_k * sum |x_i|, gamma_k = k u / (1 - k u) (Higham, Accuracy and Stability of Numerical
// Algorithms, 2nd ed., section 4.2): k = N - 1 additions for float32 (u = 2^-24). bfloat16, from what the computation
// does: each replica's float32 gradient is rounded to bfloat16 once (8 significant bits, to nearest: relative error
// <= 2^-8); the backend's sum of two bfloat16 values is taken in float32 (<= 2^-24) and rounded to bfloat16 (<= 2^-8),
// so each of the N - 1 additions errs by at most (1 + 2^-24)(1 + 2^-8) - 1 < 2^-8 + 2^-23 = u. In any order each
// summand passes through at most N such roundings (its conversion and at most N - 1 additions), hence gamma_N(u); the
// sum's conversion back to float32 is exact. At N = 2 that is about 2^-7 sum |x_i|; the real reduction of random
// gradients reaches a good part of it (tests/mpi/test_train_mutants.cpp, TrainBf16Bound, which fails below 1/8 of it:
// a bound 16 times looser fails there). The float64 reference's own rounding is added. A bucket never reduced, reduced
// twice, scaled by N or 1/N, or summed from shifted or wrong data is off by about a replica's gradient, far beyond this
// bound wherever the replicas' gradients differ; an element whose replicas' gradients are all zero must come out
// exactly zero.
#pragma once

#include "benchmarks/train/data_parallel.hpp"
#include "benchmarks/train/held_reductions.hpp"
#include "benchmarks/train/mlp.hpp"
#include "core/comm/connector.hpp"
#include "core/device/dtype.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace distbench::train {

// The bound above for one element: `ranks` summands of absolute sum `abs_sum`, reduced as `wire`.
double reduction_error_bound(DType wire, std::size_t ranks, double abs_sum);

// What one observed step's check found on every rank (the same on all of them).
struct BucketCheckResult {
  std::int64_t wrong = 0;            // elements beyond their bound, over all ranks
  std::vector<std::size_t> buckets;  // the buckets holding them, ascending
  // The first of them (lowest rank, then element), in one line naming the step, the bucket, the rank, the element
  // and both values; empty when none.
  std::string first;
};

class BucketCheck final : public BucketObserver {
 public:
  // `replicas`: the connector ranks whose gradients this rank's reduction sums, itself included (its data-parallel
  // group: with --tp-size T the ranks of its tensor-parallel rank, strided_partition's group). `dp` must step `model`
  // with this check as its observer. Throws failure when `replicas` cannot be that group (this rank missing, a rank
  // outside the connector's world, or not as many ranks as `dp` reduces over).
  BucketCheck(Connector& connector, std::vector<int> replicas, Mlp& model, const DataParallel& dp, DType wire);

  void before_reduce(std::size_t bucket) override;
  // The observed step's reductions are held until waited for (held_reductions.hpp), so that a bucket read before its
  // own wait is read unreduced.
  Communicator& reductions(Communicator& real) override;
  // After step `step` (0-based) ran observed by this check. Collective over the connector: every rank calls it after
  // the same steps.
  BucketCheckResult verify(int step, const ArmedStep& armed);

 private:
  // What this rank found so far: elements beyond their bound, the first of them in words, their buckets.
  struct Findings {
    std::int64_t wrong = 0;
    std::string first;
    std::set<std::size_t> buckets;
  };
  // Every rank's gradients [from, to) as made (`parts`, by connector rank).
  struct Chunk {
    std::size_t from = 0, to = 0;
    std::vector<std::vector<std::byte>> parts;
  };
  // verify()'s steps: one chunk exchanged, one part of a bucket checked in it, the findings summed over the ranks.
  std::vector<std::vector<std::byte>> exchange(std::size_t from, std::size_t to, const ArmedStep& armed);
  void check_part(int step, std::size_t bucket, const ReducedPart& part, const Chunk& chunk,
                  const std::vector<float>& reduced, Findings& found) const;
  BucketCheckResult over_ranks(const Findings& found, const ArmedStep& armed);
  std::string describe(int step, std::size_t bucket, std::size_t element, double found, double expected,
                       double bound) const;

  Connector& connector_;
  std::vector<int> replicas_;
  Mlp& model_;
  const DataParallel& dp_;
  DType wire_;
  std::vector<float> local_;  // this rank's gradients as made, per element of the model
  std::optional<HeldReductions> held_;
};

}  // namespace distbench::train
