// The Communicator over NCCL on GPU memory. Calls are enqueued on the group's streams (one per GPU this process
// drives) and complete later: synchronize() waits for them, bounded, watching NCCL's asynchronous errors, and aborts
// the communicators when the wait expires. run_repeated() batches agg_iters operations per ncclGroupStart/End (-m)
// and, with graph_launches > 0 (-G), replays a captured CUDA graph instead of enqueueing each operation.
#pragma once

#include "backends/nccl/cuda_graph.hpp"
#include "backends/nccl/cuda_math.hpp"
#include "backends/nccl/nccl_calls.hpp"
#include "backends/nccl/nccl_group.hpp"
#include "core/comm/backend.hpp"
#include "core/comm/communicator.hpp"

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace distbench::nccl {

class NcclCommunicator final : public Communicator {
 public:
  // `math`: the device's dense math, whose queue every call is ordered after (null: none).
  NcclCommunicator(std::shared_ptr<NcclGroup> group, const BackendOptions& options,
                   std::shared_ptr<CudaMath> math = nullptr);
  ~NcclCommunicator() override;
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;

  int rank() const override { return group_->parts().front().rank; }
  int size() const override { return group_->nranks(); }
  int local_parts() const override { return static_cast<int>(group_->parts().size()); }
  std::string_view backend() const override { return "nccl"; }
  std::optional<std::string> unsupported(Collective c, DType t, ReduceOp op) const override;

  void run(const CollectiveCall& call, const ArmedStep& step) override;
  // Runs exactly `times` operations. With -G the graph holds times / graph_launches of them (at least one) and is
  // launched until at most graph_launches - 1 operations are left, which run directly; the graph is captured once
  // per call signature (buffers, count, type, batch) and replayed by later calls with the same signature.
  // The i-th operation is calls[i % calls.size()] (run_repeated() is a series of one call). An in-place alltoall or
  // sendrecv (which NCCL cannot run in place) copies its input aside once, when a series is first run (a case's
  // warm-up), instead of before each operation: the operations then read that input, which a timing does not mind.
  void run_series(std::span<const CollectiveCall> calls, int times, const ArmedStep& step) override;
  std::unique_ptr<Work> start(const CollectiveCall& call) override;
  // ncclSend/ncclRecv of bytes on the stream, with -g 1 only (a process driving several GPUs would need every part
  // in one NCCL group call); never to this rank itself, which NCCL pairs only inside one group call.
  std::unique_ptr<Work> start_send(BufferRef data, std::size_t bytes, int peer) override;
  std::unique_ptr<Work> start_recv(BufferRef data, std::size_t bytes, int peer) override;
  void synchronize(Seconds timeout) override;
  void synchronize_spinning(Seconds timeout) override;
  bool runs_on_device() const override { return true; }
  // NCCL has no in-place alltoall or sendrecv: they run from a staged copy of the input.
  bool copies_in_place(Collective c) const override { return nccl::copies_in_place(c); }
  std::unique_ptr<Timer> make_timer() override;

 private:
  // run()'s enqueue, which start() shares (it waits for nothing: start's Work bounds the wait).
  void enqueue_call(const CollectiveCall& call);
  struct Prepared {
    std::vector<PartCall> parts;
    std::vector<const void*> inputs;  // each part's own send pointer (staged from when staging > 0)
    std::size_t staging = 0;          // bytes copied aside before the operations (in-place alltoall, sendrecv)
    std::string what;                 // "allreduce of 262144 x float32 (sum)" for errors
  };

  Prepared prepare(const CollectiveCall& call);
  void register_buffers(const CollectiveCall& call);
  void reserve_staging(std::size_t bytes);
  // Copies the in-place input aside (when `prepared` stages), on the streams.
  void stage(const Prepared& prepared);
  // Enqueues `ops` operations, the i-th being calls[i % calls.size()], agg_iters per NCCL group. `capturing`: inside
  // graph capture, where nothing may wait on the streams.
  void enqueue(std::span<const CollectiveCall> calls, std::span<const Prepared> prepared, int ops, bool capturing);
  bool streams_idle() const;
  // Orders the next calls on the streams after what the math queued (with one part on the math's GPU).
  void order_after_math();
  // A checked point-to-point call: sends when `sends`, receives otherwise. Never waits, even with -z: both sides
  // may post their sends before their receives.
  std::unique_ptr<Work> start_p2p(BufferRef data, std::size_t bytes, int peer, bool sends);
  std::vector<std::uintptr_t> signature(std::span<const CollectiveCall> calls, std::span<const Prepared> prepared,
                                        int ops) const;
  void release_staging() noexcept;
  bool same_memory(std::span<const CollectiveCall> calls, std::span<const Prepared> prepared) const;

  std::shared_ptr<NcclGroup> group_;
  BackendOptions options_;
  std::vector<void*> staging_;  // one per part
  std::size_t staging_capacity_ = 0;
  GraphCache graphs_;
  // The last series run_series() ran, worked out; reused while the calls and their device memory are the same.
  std::vector<CollectiveCall> series_calls_;
  std::vector<Prepared> series_prepared_;
  std::string last_what_ = "NCCL calls";
  std::shared_ptr<CudaMath> math_;
};

}  // namespace distbench::nccl
