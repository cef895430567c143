// A Communicator moves data among the ranks of one group (RAF's Communicator). One per group, created collectively.
#pragma once

#include "core/device/buffer.hpp"
#include "core/device/collective.hpp"
#include "core/device/dtype.hpp"
#include "core/device/reduce_op.hpp"
#include "core/measure/timer.hpp"
#include "core/sys/watchdog.hpp"

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace distbench {

// Which of a library's calls makes a collective it offers in two forms. MPI's reduce-scatter has a block form
// (MPI_Reduce_scatter_block: NCCL's shape, distbench's own) and a vector form with a count per rank
// (MPI_Reduce_scatter with equal counts: the call IMB-MPI1 and osu_reduce_scatter make, so --timing osu|imb makes it
// too). Open MPI runs the two through different algorithms. A backend with one form ignores the choice.
enum class CallForm { block, vector };

// One collective call. Counts follow NCCL (see BufferShape in collective.hpp); `root` is a group rank.
// In-place calls pass buffer positions that overlap as buffer_shape()'s in-place offsets describe.
struct CollectiveCall {
  Collective collective = Collective::allreduce;
  BufferRef send;
  BufferRef recv;
  std::size_t count = 0;
  DType dtype = DType::float32;
  ReduceOp op = ReduceOp::sum;
  int root = 0;
  CallForm form = CallForm::block;
};

// Completion of an asynchronous call.
class Work {
 public:
  virtual ~Work() = default;
  virtual bool done() = 0;
  // Throws Error(ExitCode::timeout) when the call has not completed within `timeout`.
  virtual void wait(Seconds timeout) = 0;
};

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int rank() const = 0;                  // group rank of this process's first part
  virtual int size() const = 0;                  // ranks in the group
  virtual int local_parts() const { return 1; }  // ranks this process drives (GPUs with -g)
  virtual std::string_view backend() const = 0;

  // Why this backend cannot run `call`'s collective/dtype/op, if it cannot.
  virtual std::optional<std::string> unsupported(Collective c, DType t, ReduceOp op) const = 0;

  // The blocking calls (run, run_series, prepared's, send and recv) wait on the group's ranks without a deadline of
  // their own: they take the ArmedStep they run in (core/sys/watchdog.hpp). start() and Work::wait() are bounded by
  // their timeout instead.
  //
  // Runs `call`: complete on return for host backends, enqueued for stream backends (see synchronize()).
  virtual void run(const CollectiveCall& call, const ArmedStep& step) = 0;
  // Runs `call` `times` times back to back (a backend may batch them).
  void run_repeated(const CollectiveCall& call, int times, const ArmedStep& step) {
    run_series(std::span(&call, 1), times, step);
  }
  // Runs `times` operations back to back, the i-th being calls[i % calls.size()] (the same call at other buffer
  // positions: nccl-tests' rotation, so that no operation finds its data in a cache the previous one warmed). For
  // timing only: a backend may stage an input once for the whole series instead of before each operation.
  virtual void run_series(std::span<const CollectiveCall> calls, int times, const ArmedStep& step) {
    for (int i = 0; i < times; ++i) run(calls[static_cast<std::size_t>(i) % calls.size()], step);
  }
  // `call` ready to run again and again, as run() would, with whatever can be done once done now (for timing one
  // call at a time, OSU's and IMB's loops: nothing but the library's call between two clock reads).
  using PreparedCall = std::function<void(const ArmedStep&)>;
  virtual PreparedCall prepared(const CollectiveCall& call) {
    return [this, call](const ArmedStep& step) { run(call, step); };
  }
  virtual std::unique_ptr<Work> start(const CollectiveCall& call) = 0;
  // Point to point with any peer of the group (group ranks), asynchronous: `bytes` bytes from/to `data` (one part:
  // throws usage_error on a multi-part buffer). Both sides must call; sends to one peer arrive in order.
  virtual std::unique_ptr<Work> start_send(BufferRef data, std::size_t bytes, int peer) = 0;
  virtual std::unique_ptr<Work> start_recv(BufferRef data, std::size_t bytes, int peer) = 0;
  // Point to point, blocking (osu_latency's MPI_Send and MPI_Recv): returns once `data` may be reused (send) or holds
  // the message (recv). A backend whose library has blocking calls makes them (a hang is the watchdog's, as for
  // run()); by default the asynchronous call is started and waited for, within `timeout`.
  virtual void send(BufferRef data, std::size_t bytes, int peer, Seconds timeout, const ArmedStep&) {
    start_send(data, bytes, peer)->wait(timeout);
  }
  virtual void recv(BufferRef data, std::size_t bytes, int peer, Seconds timeout, const ArmedStep&) {
    start_recv(data, bytes, peer)->wait(timeout);
  }
  // Where this rank's result of `call` is once it has run: the receive position unless the backend says otherwise
  // (what verification checks). A backend that moves no data where its library promises none says so here instead
  // of copying inside the timed call.
  virtual BufferRef result_at(const CollectiveCall& call) const { return call.recv; }
  // Waits for everything run() enqueued; throws Error(ExitCode::timeout) past `timeout`.
  virtual void synchronize(Seconds timeout) = 0;
  // The same wait without ever sleeping (nccl-tests polls its streams this way), for a host clock that stops on it.
  virtual void synchronize_spinning(Seconds timeout) { synchronize(timeout); }
  // Whether calls run on a device, after run() returns (make_timer() then times them there, not on the host).
  virtual bool runs_on_device() const { return false; }
  // Whether an in-place call of `c` copies its data even where nothing needs to move (one rank): a backend that
  // runs it out of place from a staged copy of its input.
  virtual bool copies_in_place(Collective) const { return false; }
  virtual std::unique_ptr<Timer> make_timer() = 0;
};

}  // namespace distbench
