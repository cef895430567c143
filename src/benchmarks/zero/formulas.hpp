// What each ZeRO stage should cost, from the ZeRO paper (Rajbhandari et al., "ZeRO: Memory Optimizations Toward
// Training Trillion Parameter Models", 2020, section 5): model states per rank and the bytes each rank sends per
// step. distbench prints these next to what it measures.
//
// Memory (paper, section 5.1; Ψ parameters, N_d ranks, K bytes of optimizer state per parameter):
//   baseline (stage 0)       (2 + 2 + K) Ψ
//   P_os (stage 1)           2Ψ + 2Ψ + KΨ/N_d
//   P_os+g (stage 2)         2Ψ + (2 + K)Ψ/N_d
//   P_os+g+p (stage 3)       (2 + 2 + K)Ψ/N_d
// with 2-byte parameters and gradients and K = 12 for mixed-precision Adam (fp32 master weights, momentum and
// variance). With 4-byte parameters and gradients (fp32 training) the master copy is the parameters themselves:
// K = 8 (momentum and variance). Shards are padded (partition.hpp): Ψ/N_d is ceil(Ψ/N_d) here.
//
// Communication (paper, section 7; bytes each rank sends per step, ring algorithms, a = (N-1)/N):
//   stage 0: allreduce of the gradients                       2a Ψ g
//   stage 1: allreduce of the gradients (the seeds' form), then allgather of the updated parameters
//                                                              2a Ψ g + a Ψ p
//            with --zero1-reduce reduce-scatter (the paper's) a Ψ g + a Ψ p
//   stage 2: reduce-scatter of the gradients, allgather of the parameters
//                                                              a Ψ g + a Ψ p
//   stage 3: allgather of every layer's parameters before forward and again before backward, reduce-scatter of
//            each layer's gradients                            2a Ψ p + a Ψ g (Ψ padded layer by layer)
// g, p: bytes of a gradient and a parameter; Ψ padded to the collectives' equal blocks. With g = p this is the
// paper's 2Ψ for stages 0-2 (stage 1 in its reduce-scatter form) and 3Ψ for stage 3.
#pragma once

#include "benchmarks/zero/partition.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace distbench::zero {

enum class Stage { s0 = 0, s1 = 1, s2 = 2, s3 = 3 };

// Bytes per parameter of each model state.
struct Precision {
  std::size_t param = 2;       // the parameters the model computes with
  std::size_t grad = 2;        // their gradients
  std::size_t optimizer = 12;  // K: fp32 master weights, momentum, variance (8 when the parameters are fp32)
};
// "bf16", "fp16": 2, 2, 12; "fp32": 4, 4, 8. Throws usage_error for anything else.
Precision precision_of(std::string_view dtype);

enum class Zero1Reduce { allreduce, reduce_scatter };

// The segments a stage reduces and gathers: buckets of `bucket` elements for stages 0-2 (0: one bucket), layers for
// stage 3.
std::vector<Segment> stage_segments(Stage stage, const std::vector<std::size_t>& layers, std::size_t bucket,
                                    std::size_t ranks);

// Bytes of model states each rank holds (the paper's terms; shards padded as `segments` say; stage 0 unpadded).
struct Memory {
  std::uint64_t params = 0, grads = 0, optimizer = 0;
  std::uint64_t total() const { return params + grads + optimizer; }
};
Memory model_state_bytes(Stage stage, const std::vector<Segment>& segments, const Precision& p);

// Bytes a step holds beyond the model states, as distbench runs it: stage 2, one bucket of gradients as the backward
// makes them (reduce-scattered, then reused for the next bucket); stage 3, one layer's parameters gathered whole and
// its gradients (the paper's "live layers"); stages 0 and 1 reduce in place and hold none.
std::uint64_t step_buffer_bytes(Stage stage, const std::vector<Segment>& segments, const Precision& p);

// Bytes each rank sends per step (ring algorithms) as the header says; a ring receives as many as it sends.
std::uint64_t bytes_sent_per_step(Stage stage, const std::vector<Segment>& segments, const Precision& p,
                                  Zero1Reduce zero1 = Zero1Reduce::allreduce);

}  // namespace distbench::zero
