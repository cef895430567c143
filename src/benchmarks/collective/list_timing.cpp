#include "benchmarks/collective/fused_allreduce.hpp"
#include "benchmarks/collective/timing_methods.hpp"

namespace distbench::collective {
namespace {

// The list of tensors a --tensors case reduces: consecutive slices of the in-place buffer, so that every element
// keeps its index and the whole buffer checks as one allreduce.
std::vector<TensorRef> tensor_list(const CaseSetup& setup) {
  const auto& call = setup.call;
  const auto n = static_cast<std::size_t>(setup.tensors);
  const std::size_t each = call.count / n, elem = setup.size.elem;
  std::vector<TensorRef> out;
  for (std::size_t k = 0; k < n; ++k) {
    out.push_back({call.recv.at(k * each * elem), k + 1 == n ? call.count - k * each : each});
  }
  return out;
}

// One allreduce per tensor, back to back.
class PerTensorCase final : public TimedCase {
 public:
  explicit PerTensorCase(const CaseContext& c) : TimedCase(c.comm, c.timeout) {
    for (const TensorRef& t : tensor_list(c.setup)) {
      CollectiveCall call = c.setup.call;
      call.send = call.recv = t.data;
      call.count = t.count;
      calls_.push_back(call);
    }
    operation_ = {c.setup.label,
                  [this](int times, const ArmedStep& step) {
                    for (int i = 0; i < times; ++i) {
                      for (const CollectiveCall& call : calls_) comm_.run(call, step);
                    }
                  },
                  waiter(comm_),
                  clock_where_it_runs(comm_, c.plan.cpu_time),
                  {}};
    rules_ = sampled_rules(c);
  }
  void run_checked(const ArmedStep& step) override {
    for (const CollectiveCall& call : calls_) comm_.run(call, step);
    comm_.synchronize(timeout_);
  }

 private:
  std::vector<CollectiveCall> calls_;
};

// Packed into one buffer, one allreduce, unpacked: each part a phase on its own timer (the device's for the copies).
class FusedCase final : public TimedCase {
 public:
  explicit FusedCase(const CaseContext& c)
      : TimedCase(c.comm, c.timeout),
        dtype_(c.setup.call.dtype),
        op_(c.setup.call.op),
        tensors_(tensor_list(c.setup)),
        fused_(c.comm, c.world.device()) {
    Device& device = c.world.device();
    const auto device_timer = [&device] { return device.make_timer(); };
    const TimerFactory comm_timer = clock_where_it_runs(comm_, c.plan.cpu_time);
    operation_ = {c.setup.label,
                  {},
                  waiter(comm_),
                  comm_timer,
                  {{"pack", [this](const ArmedStep&) { packed_ = fused_.pack(tensors_, dtype_, op_); }, device_timer},
                   {"allreduce",
                    [this](const ArmedStep& step) {
                      comm_.run(packed_, step);
                      comm_.synchronize(timeout_);
                    },
                    comm_timer},
                   {"unpack", [this](const ArmedStep&) { fused_.unpack(tensors_, dtype_); }, device_timer}}};
    rules_ = sampled_rules(c);
  }
  void run_checked(const ArmedStep& step) override { fused_.run(tensors_, dtype_, op_, timeout_, step); }

 private:
  DType dtype_;
  ReduceOp op_;
  std::vector<TensorRef> tensors_;
  FusedAllreduce fused_;
  CollectiveCall packed_;
};

}  // namespace

std::unique_ptr<TimedCase> PerTensorTiming::prepare(const CaseContext& context) const {
  return std::make_unique<PerTensorCase>(context);
}

std::unique_ptr<TimedCase> FusedTiming::prepare(const CaseContext& context) const {
  return std::make_unique<FusedCase>(context);
}

}  // namespace distbench::collective
