// The data-corruption soak on every rank: verified allreduce calls in rounds until the budget is spent.
#include "benchmarks/health/soak.hpp"

#include "core/device/pattern.hpp"
#include "core/error.hpp"
#include "core/measure/sizes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>

namespace distbench::health {
namespace {

// One case of the rotation, ready to call again and again: its buffers, filled once (an allreduce leaves its input
// as it was), and what this rank saw of it.
struct SoakCall {
  std::string what;  // "allreduce of 8 MiB float32"
  std::unique_ptr<Buffer> send, recv;
  CollectiveCall call;
  PatternParams pattern;
  std::size_t bytes = 0;
  std::uint64_t calls_wrong = 0;
};

SoakCall prepare_soak_call(Device& device, Communicator& comm, const SoakCase& c) {
  SoakCall s;
  s.what = fmt::format("allreduce of {} {}", format_bytes(c.bytes), name(c.dtype));
  s.bytes = c.bytes - c.bytes % size_of(c.dtype);
  s.send = device.allocate(s.bytes);
  s.recv = device.allocate(s.bytes);
  s.call.collective = Collective::allreduce;
  s.call.send = {s.send.get(), 0};
  s.call.recv = {s.recv.get(), 0};
  s.call.count = s.bytes / size_of(c.dtype);
  s.call.dtype = c.dtype;
  s.call.op = ReduceOp::sum;
  // Without subnormals, which a CPU adds many times slower (pattern.hpp): the soak is many calls, not one.
  s.pattern = without_subnormals(make_pattern(Collective::allreduce, ReduceOp::sum, c.dtype, comm.size()));
  device.fill(s.call.send, s.call.count, c.dtype, FillSpec{s.pattern, comm.rank()});
  device.synchronize();
  return s;
}

// Whether any rank's budget is spent, asked of every rank through the communicator (one int32, max): the same
// answer everywhere, so that every rank makes the same calls; a rank that stops answering is a timeout here as in
// any other call.
bool soak_budget_spent(Device& device, Communicator& comm, Buffer& flag, bool spent_here, PhaseContext& ctx) {
  std::int32_t value = spent_here ? 1 : 0;
  if (DenseMath* math = device.math()) {
    math->upload(flag.data(), &value, sizeof(value));
    math->synchronize();  // on the math's own queue, before the collective's
  } else if (device.host_memory()) {
    std::memcpy(flag.data(), &value, sizeof(value));
  } else {
    throw failure("the soak's agreement to stop needs host memory or a device that uploads");
  }
  CollectiveCall call;
  call.collective = Collective::allreduce;
  call.send = call.recv = {&flag, 0};
  call.count = 1;
  call.dtype = DType::int32;
  call.op = ReduceOp::max;
  ctx.step = "soak: agreeing whether the budget is spent";
  wait_within(*comm.start(call), ctx);
  const BufferRef result = comm.result_at(call);
  if (DenseMath* math = device.math()) {
    math->download(&value, result.data(), sizeof(value));
  } else {
    std::memcpy(&value, result.data(), sizeof(value));
  }
  return value != 0;
}

}  // namespace

std::vector<SoakCase> soak_cases(const HealthPlan& plan) {
  const std::vector<SoakCase> rotation = {{DType::float32, plan.allreduce_bytes},
                                          {DType::bfloat16, std::size_t{1} << 20},
                                          {DType::int32, std::size_t{64} << 10},
                                          {DType::float64, std::size_t{4} << 10}};
  std::vector<SoakCase> out;
  for (SoakCase c : rotation) {
    c.bytes = std::min(c.bytes, plan.allreduce_bytes);
    if (c.bytes >= size_of(c.dtype)) out.push_back(c);
  }
  return out;
}

nlohmann::json probe_soak(World& world, Communicator& comm, const HealthPlan& plan, PhaseContext& ctx) {
  Device& device = world.device();
  ctx.step = "soak: preparing the calls";
  std::vector<SoakCall> calls;
  for (const SoakCase& c : soak_cases(plan)) {
    if (!comm.unsupported(Collective::allreduce, c.dtype, ReduceOp::sum)) {
      calls.push_back(prepare_soak_call(device, comm, c));
    }
  }
  auto flag = device.allocate(sizeof(std::int32_t));
  std::uint64_t run = 0, wrong_calls = 0, wrong_elements = 0, checked = 0, first_wrong = 0;
  const auto began = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - began).count(); };
  do {
    for (SoakCall& s : calls) {
      ctx.step = fmt::format("soak: {}, call {}", s.what, run + 1);
      device.poison(s.call.recv, s.bytes);
      device.synchronize();
      wait_within(*comm.start(s.call), ctx);
      const std::uint64_t wrong =
          device.count_wrong(comm.result_at(s.call), s.call.dtype,
                             CheckSpec{s.pattern, s.call.op, s.call.collective, s.call.count, 0, comm.rank()});
      ++run;
      checked += s.call.count;
      if (wrong == 0) continue;
      if (wrong_calls == 0) first_wrong = run;
      ++wrong_calls;
      ++s.calls_wrong;
      wrong_elements += wrong;
    }
  } while (!soak_budget_spent(device, comm, *flag, elapsed() >= plan.soak_seconds, ctx));
  nlohmann::json cases = nlohmann::json::object();
  for (const SoakCall& s : calls) {
    if (s.calls_wrong > 0) cases[s.what] = s.calls_wrong;
  }
  nlohmann::json out = {{"device", device.describe()}, {"calls", run},
                        {"calls_wrong", wrong_calls},  {"elements_wrong", wrong_elements},
                        {"elements_checked", checked}, {"seconds", elapsed()}};
  if (wrong_calls > 0) {
    out["first_wrong_call"] = first_wrong;
    out["wrong_cases"] = cases;
  }
  return out;
}

}  // namespace distbench::health
