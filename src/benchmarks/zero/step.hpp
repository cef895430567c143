// One ZeRO training step over a communicator, stages 0-3, on host memory (the MPI backend): gradients made
// deterministically (small integers, so that their sums over ranks are exact in 16 bits), reduced as the stage says,
// the owned shard updated by the fused Adam pass, the parameters gathered as the stage says. What each rank holds is
// what the stage keeps: full or sharded parameters, gradients and optimizer state.
#pragma once

#include "benchmarks/zero/adam.hpp"
#include "benchmarks/zero/formulas.hpp"
#include "benchmarks/zero/partition.hpp"
#include "core/communicator.hpp"
#include "core/timer.hpp"

#include <cstdint>
#include <vector>

namespace distbench::zero {

// The gradient of global element `i` on `rank` at step `step`: an integer in [-4, 4].
float gradient_value(std::uint64_t i, int rank, int step);
// The initial master weight of global element `i`.
float initial_weight(std::uint64_t i);

class ZeroStep {
 public:
  ZeroStep(Communicator& comm, Stage stage, DType type, std::vector<std::size_t> layers, AdamConfig adam,
           Zero1Reduce zero1 = Zero1Reduce::allreduce);

  // One step (1-based), every wait bounded by `timeout`.
  void run(int step, Seconds timeout);

  // The global elements this rank updates, and their master weights and parameters (as floats), in global order.
  std::vector<std::uint64_t> owned() const;
  std::vector<float> owned_master() const;
  std::vector<float> owned_params() const;
  // Stages 0-2: every parameter this rank holds (all of them), as floats.
  std::vector<float> full_params() const;

 private:
  struct Shard {  // one run of owned elements: [global, global + count), at `local` in the shard buffers
    std::uint64_t global = 0;
    std::size_t count = 0, local = 0;
  };
  void reduce_gradients(int step, Seconds timeout);
  void update(int step);
  void gather_params(Seconds timeout);
  void run_collective(Collective c, void* send, void* recv, std::size_t count, DType t, Seconds timeout);

  Communicator& comm_;
  Stage stage_;
  DType type_;
  std::vector<std::size_t> layers_;
  AdamConfig adam_;
  Zero1Reduce zero1_;
  std::size_t psi_ = 0;
  Partition flat_;
  std::vector<Partition> per_layer_;
  std::vector<Shard> shards_;          // what this rank owns
  std::size_t shard_elements_ = 0;     // sum of the shards' counts
  std::vector<std::byte> params_;      // full (stages 0-2, padded) or this rank's layer shards (stage 3, padded)
  std::vector<std::byte> grads_;       // reduced gradients of the owned elements (after reduce_gradients)
  std::vector<float> master_, m_, v_;  // owned elements
};

}  // namespace distbench::zero
