#include "benchmarks/zero/formulas.hpp"

#include "core/error.hpp"

#include <algorithm>
#include <numeric>

namespace distbench::zero {
namespace {

std::uint64_t sum(const std::vector<std::size_t>& v) { return std::accumulate(v.begin(), v.end(), std::uint64_t{0}); }

// Elements each rank sends in a ring reduce-scatter or allgather of `padded` elements over `ranks`: (N-1)/N of them.
std::uint64_t ring_share(std::uint64_t padded, std::size_t ranks) { return padded / ranks * (ranks - 1); }

}  // namespace

Precision precision_of(std::string_view dtype) {
  if (dtype == "bf16" || dtype == "fp16") return {2, 2, 12};
  if (dtype == "fp32") return {4, 4, 8};
  throw usage_error(fmt::format("--dtype {}: choose bf16, fp16 or fp32", dtype));
}

std::vector<Segment> stage_segments(Stage stage, const std::vector<std::size_t>& layers, std::size_t bucket,
                                    std::size_t ranks) {
  if (stage == Stage::s3) return layer_segments(layers, ranks);
  return bucket_segments(sum(layers), bucket, ranks);
}

Memory model_state_bytes(Stage stage, const std::vector<Segment>& segments, const Precision& p) {
  std::uint64_t psi = 0;
  for (const Segment& s : segments) psi += s.part.elements;
  const std::uint64_t padded = padded_elements(segments);
  const std::uint64_t shard = shard_elements(segments);
  switch (stage) {
    case Stage::s0: return {psi * p.param, psi * p.grad, psi * p.optimizer};
    case Stage::s1: return {padded * p.param, padded * p.grad, shard * p.optimizer};
    case Stage::s2: return {padded * p.param, shard * p.grad, shard * p.optimizer};
    case Stage::s3: return {shard * p.param, shard * p.grad, shard * p.optimizer};
  }
  return {};
}

std::uint64_t step_buffer_bytes(Stage stage, const std::vector<Segment>& segments, const Precision& p) {
  const std::uint64_t largest = largest_padded(segments);
  if (stage == Stage::s2) return largest * p.grad;
  if (stage == Stage::s3) return largest * (p.param + p.grad);
  return 0;
}

std::uint64_t bytes_sent_per_step(Stage stage, const std::vector<Segment>& segments, const Precision& p,
                                  Zero1Reduce zero1) {
  std::uint64_t share = 0;  // a Ψ, in elements, segment by segment
  for (const Segment& s : segments) share += ring_share(s.part.padded(), s.part.ranks);
  switch (stage) {
    case Stage::s0: return 2 * share * p.grad;
    case Stage::s1: return (zero1 == Zero1Reduce::allreduce ? 2 * share : share) * p.grad + share * p.param;
    case Stage::s2: return share * p.grad + share * p.param;
    case Stage::s3:
      return 2 * share * p.param + share * p.grad;  // each layer gathered twice, its gradients reduce-scattered
  }
  return 0;
}

}  // namespace distbench::zero
