// One ZeRO training step over a communicator, stages 0-3, in the phases the
// benchmark times: the gradients reduced segment by segment (buckets; layers in stage 3), the owned shard updated by
// the fused Adam pass, the parameters gathered (stages 1-2: every bucket once after the update; stage 3: every layer
// before the forward and again before the backward, each into one reused buffer). What each rank holds is what the
// stage keeps: full or sharded parameters, gradients and optimizer state, plus the buffers formulas.hpp states.
// They live where the backend's collectives work: host memory (MPI), or a GPU's memory (NCCL), where the update is the
// device's fused Adam kernel (DenseMath::mixed_adam), bit-identical to the host's.
//
// Gradients are either exact (the check: small integers made for each step, whose sums over ranks are exact in 16
// bits) or zero (timing: made once; the reductions keep them zero, so neither the collectives' nor the update's
// speed depends on a value, and no state drifts into denormals over thousands of steps).
#pragma once

#include "benchmarks/zero/formulas.hpp"
#include "benchmarks/zero/partition.hpp"
#include "benchmarks/zero/step_array.hpp"
#include "core/comm/communicator.hpp"
#include "core/device/dense_math.hpp"
#include "core/device/device.hpp"
#include "core/measure/timer.hpp"
#include "numerics/adam.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace distbench::zero {

// Element `i` of a buffer of `t` (bfloat16, float16 or float32), written from and read as a float.
void store_value(DType t, std::byte* at, std::size_t i, float value);
float load_value(DType t, const std::byte* at, std::size_t i);

// The gradient of global element `i` on `rank` at step `step`: an integer in [-4, 4], different on any two of 9
// consecutive ranks (so that a block from the wrong peer, or a rank counted twice, changes the sum).
float gradient_value(std::uint64_t i, int rank, int step);
// The initial master weight of global element `i`.
float initial_weight(std::uint64_t i);

enum class Gradients { exact, zero };

// Where a check found its first difference: what (e.g. "master weight"), the global element, both values, and how
// many elements differ.
struct Mismatch {
  std::string what;
  std::uint64_t index = 0;
  float got = 0, expected = 0;
  std::uint64_t count = 0;
};

struct StepConfig {
  Stage stage = Stage::s0;
  DType type = DType::bfloat16;
  std::vector<std::size_t> layers;
  std::size_t bucket = 0;     // gradient elements per bucket (stages 0-2); 0: one bucket
  numerics::AdamConfig adam;  // grad_scale is set to 1/N
  Zero1Reduce zero1 = Zero1Reduce::allreduce;
  Gradients gradients = Gradients::exact;
};

// One collective of a step and how often a step runs it with that count.
struct StepCall {
  Collective collective = Collective::allreduce;
  std::size_t count = 0;  // as CollectiveCall::count
  int times = 0;
  bool in_place = true;
};

class ZeroStep {
 public:
  // On host memory, updated by numerics/adam.hpp; or, with `math`, on the memory `device` allocates, updated by `math`.
  ZeroStep(Communicator& comm, StepConfig config, Device* device = nullptr, DenseMath* math = nullptr);

  // The phases of one step, in this order (stage 3: forward_gathers, backward_gathers, reduce, update; stages 1-2:
  // reduce, update, gather; stage 0: reduce, update). Each wait is bounded by `timeout`.
  void forward_gathers(Seconds timeout);
  void backward_gathers(Seconds timeout);
  void reduce(Seconds timeout);
  void update();  // ends the step; on a device, returns once the update has run
  void gather(Seconds timeout);
  // A whole step.
  void run(Seconds timeout);
  int steps_done() const { return next_step_ - 1; }

  const std::vector<Segment>& segments() const { return segments_; }
  // The collectives a step runs (what the prediction times alone).
  std::vector<StepCall> calls() const;
  // Bytes this step allocated: model states and buffers.
  std::uint64_t state_bytes() const;
  std::uint64_t buffer_bytes() const;
  // Elements the update moves over (this rank's shard).
  std::size_t updated_elements() const;

  // Brings the state to where the accessors below read it (a device's arrays to their host copies; nothing on host
  // memory): call it after the steps and before reading.
  void to_host();

  // The runs of consecutive global elements this rank updates (in global order), and an element's master weight and
  // parameter as floats (`k` within run `run`).
  std::size_t owned_runs() const { return runs_.size(); }
  Range owned_run(std::size_t run) const { return {runs_[run].global, runs_[run].global + runs_[run].count}; }
  float master_at(std::size_t run, std::size_t k) const;
  float param_at(std::size_t run, std::size_t k) const;
  // Adam's moments of the same element.
  float m_at(std::size_t run, std::size_t k) const { return host_floats(m_)[runs_[run].state + k]; }
  float v_at(std::size_t run, std::size_t k) const { return host_floats(v_)[runs_[run].state + k]; }
  // Stages 0-2 hold every parameter; `i` (global) as this rank holds it.
  bool holds_full_params() const { return config_.stage != Stage::s3; }
  float held_param(std::uint64_t i) const;
  std::uint64_t parameters() const;  // Ψ

  // The same, whole (small models: tests).
  std::vector<std::uint64_t> owned() const;
  std::vector<float> owned_master() const;
  std::vector<float> owned_params() const;
  // Stages 0-2: every parameter this rank holds (all of them), as floats, in global order; stage 3: none.
  std::vector<float> full_params() const;

 private:
  struct Run {  // owned elements [global, global + count): at `state` in master/m/v, `param` in params_, `grad` in
                // grads_
    std::uint64_t global = 0;
    std::size_t count = 0, state = 0, param = 0, grad = 0;
  };
  void collective(Collective c, BufferRef send, BufferRef recv, std::size_t count, Seconds timeout);
  BufferRef params_at(std::size_t element) { return {&params_.buffer(), element * size_of(config_.type)}; }
  BufferRef grads_at(std::size_t element) { return {&grads_.buffer(), element * size_of(config_.type)}; }
  static const float* host_floats(const StepArray& a) { return reinterpret_cast<const float*>(a.host()); }
  // Exact gradients: this step's gradients of the segment's elements, written to `to` from element `at` on.
  void make_gradients(StepArray& to, std::size_t at, const Segment& s);
  void gather_layer(std::size_t l, Seconds timeout);
  // The constructor's steps: each segment's place in the full and sharded buffers, the arrays, the runs this rank
  // owns in segment `b`, the initial weights.
  void place_segments();
  void allocate_arrays();
  void plan_owned_run(std::size_t b);
  void write_initial_weights();

  Communicator& comm_;
  StepConfig config_;
  Device* device_ = nullptr;
  DenseMath* math_ = nullptr;  // null: host memory, numerics/adam.hpp's update
  std::size_t me_ = 0;
  int next_step_ = 1;
  std::vector<Segment> segments_;
  std::vector<std::size_t> slot_;      // per segment: its first element in the full buffers (stages 0-2)
  std::vector<std::size_t> shard_at_;  // per segment: its shard's first element in the sharded buffers
  std::vector<Run> runs_;              // what this rank owns, in global order
  std::size_t full_elements_ = 0;      // elements of the full buffers (stages 0-2)
  std::size_t sharded_elements_ = 0;   // elements of the sharded buffers
  std::size_t state_elements_ = 0;     // master/m/v elements
  StepArray params_;                   // full (stages 0-2; padded per bucket but for stage 0) or shards (stage 3)
  StepArray grads_;                    // full (stages 0-1) or shards (stages 2-3)
  StepArray staging_;                  // stage 2: one bucket's gradients; stage 3: one layer's gradients
  StepArray gathered_;                 // stage 3: one layer's parameters
  StepArray master_, m_, v_;           // fp32; no master copy for fp32 parameters
};

}  // namespace distbench::zero
