#include "benchmarks/collective/case_check.hpp"

#include "benchmarks/collective/timing_method.hpp"

#include <fmt/format.h>

#include <functional>
#include <string>

namespace distbench::collective {
namespace {

// One run of a case inside the step it runs in, waited for.
using CheckedCall = std::function<void(const ArmedStep&)>;

// `call`'s send region filled with the case's pattern.
void fill_send_of(World& world, Communicator& comm, const CaseSetup& setup, const CollectiveCall& call) {
  world.device().fill(call.send, setup.size.shape.send_count, call.dtype, FillSpec{setup.pattern, comm.rank()});
}

// The region poisoned before `call` is checked: the case's, moved as far as `call`'s receive position is from the
// case's (a rotated position of nccl-tests' timing).
BufferRef poison_region(const CaseSetup& setup, const CollectiveCall& call) {
  return setup.poison_at.at(call.recv.byte_offset - setup.call.recv.byte_offset);
}

// This rank's wrong elements of `call`'s result, as the case's pattern predicts it.
std::int64_t count_wrong_of(World& world, Communicator& comm, const CaseSetup& setup, const CollectiveCall& call) {
  const CheckSpec spec{setup.pattern, call.op, call.collective, call.count, call.root, comm.rank()};
  return static_cast<std::int64_t>(world.device().count_wrong(comm.result_at(call), call.dtype, spec));
}

// Counting may wait on a device, agreeing on the count on every rank: a step of its own. The sum over all ranks.
std::int64_t sum_over_ranks(World& world, Watchdog& watchdog, const std::string& what, std::int64_t mine) {
  const ArmedStep step = watchdog.arm(StepKind::check_count, what);
  std::int64_t total = 0;
  for (auto w : allgather_value(world.connector(), mine, step)) total += w;
  return total;
}

// Fills the send region, runs the case once, and counts wrong elements of the result over all ranks.
std::int64_t verify(World& world, Communicator& comm, const CaseSetup& setup, const CheckedCall& once,
                    Watchdog& watchdog) {
  Device& device = world.device();
  device.poison(setup.poison_at, setup.recv_bytes);
  fill_send(world, comm, setup);
  device.synchronize();
  {
    const ArmedStep step = watchdog.arm(StepKind::verification, setup.label + ": verification");
    once(step);
  }
  return sum_over_ranks(world, watchdog, setup.label + ": counting the wrong elements",
                        count_wrong_of(world, comm, setup, setup.call));
}

// -c N: up to N verifications, each on freshly filled and poisoned buffers; the wrong elements of the first that
// finds any (as nccl-tests counts them), 0 when all pass, -1 when N is 0. Every rank takes the same decisions: the
// counts are summed over all ranks.
std::int64_t verify_times(int times, World& world, Communicator& comm, const CaseSetup& setup, const CheckedCall& once,
                          Watchdog& watchdog) {
  std::int64_t wrong = -1;
  for (int k = 0; k < times && wrong <= 0; ++k) wrong = verify(world, comm, setup, once, watchdog);
  return wrong;
}

// A rooted case is verified once more from another root (the one before the case's: rank nranks-1 at the default
// root 0), so that a call that always takes its data from one rank (rank 0) gives wrong data. 0 where there is no
// other root.
std::int64_t verify_other_root(World& world, Communicator& comm, const CaseSetup& setup, Seconds timeout,
                               Watchdog& watchdog) {
  const int n = comm.size();
  if (!is_rooted(setup.call.collective) || n < 2) return 0;
  CaseSetup other = setup;
  other.call.root = (setup.call.root + n - 1) % n;
  other.label += fmt::format(" from root {}", other.call.root);
  return verify(
      world, comm, other, [&](const ArmedStep& step) { run_waited(comm, other.call, timeout, step); }, watchdog);
}

}  // namespace

// What every case starts from: its send region filled with its pattern.
void fill_send(World& world, Communicator& comm, const CaseSetup& setup) {
  fill_send_of(world, comm, setup, setup.call);
}

// Whether what the timed calls leave is the result of one call. Out of place always: the input stays as it was
// filled. In place only where a call run again on its own result leaves that result: an idempotent operator (min,
// max, band, bor) of allreduce or reduce (a list is an allreduce), or a collective that only copies blocks to
// their places (broadcast, allgather, gather, scatter). Elsewhere each call overwrites the next one's input (a sum
// grows with every call; alltoall and sendrecv move the blocks on; MPI's in-place reduce-scatter leaves its block
// where another rank's input was): the timed calls' result is not checked there; the case's verification call is, as
// is the same case out of place.
bool timed_result_checkable(const CollectiveCall& call) {
  if (call.send.buffer != call.recv.buffer) return true;
  const Collective c = call.collective;
  if (c == Collective::broadcast || c == Collective::allgather || c == Collective::gather || c == Collective::scatter) {
    return true;
  }
  const ReduceOp op = call.op;
  const bool idempotent = op == ReduceOp::min || op == ReduceOp::max || op == ReduceOp::band || op == ReduceOp::bor;
  return idempotent && (c == Collective::allreduce || c == Collective::reduce);
}

TimedResults::TimedResults(World& world, Communicator& comm, const CaseSetup& setup, const TimedCase& timed)
    : world_(world), comm_(comm), setup_(setup), positions_(timed.timed_positions()) {
  if (positions_.empty()) positions_.push_back(setup.call);
}

void TimedResults::prepare(Watchdog& watchdog) const {
  const ArmedStep step = watchdog.arm(StepKind::verification, setup_.label + ": the timed calls' results poisoned");
  for (const CollectiveCall& call : positions_) {
    world_.device().poison(poison_region(setup_, call), setup_.recv_bytes);
    fill_send_of(world_, comm_, setup_, call);
  }
  world_.device().synchronize();
}

std::int64_t TimedResults::count_wrong(Watchdog& watchdog) const {
  std::int64_t mine = 0;
  for (const CollectiveCall& call : positions_) mine += count_wrong_of(world_, comm_, setup_, call);
  return sum_over_ranks(world_, watchdog, setup_.label + ": counting the timed calls' wrong elements", mine);
}

std::int64_t verify_case(World& world, Communicator& comm, const SweepPlan& plan, const CaseSetup& setup,
                         TimedCase& timed, Watchdog& watchdog) {
  if (plan.check_iters <= 0) return -1;
  const std::int64_t wrong = verify_times(
      plan.check_iters, world, comm, setup, [&timed](const ArmedStep& step) { timed.run_checked(step); }, watchdog);
  return wrong + verify_other_root(world, comm, setup, Seconds(plan.timeout_s), watchdog);
}

}  // namespace distbench::collective
