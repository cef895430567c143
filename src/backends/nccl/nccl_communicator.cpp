#include "backends/nccl/nccl_communicator.hpp"

#include "backends/nccl/cuda_check.hpp"
#include "backends/nccl/cuda_device.hpp"
#include "backends/nccl/cuda_events.hpp"
#include "backends/nccl/nccl_types.hpp"
#include "core/error.hpp"

#include <fmt/core.h>

#include <algorithm>

namespace distbench::nccl {
namespace {

const std::byte* bytes_at(const void* p) { return static_cast<const std::byte*>(p); }

bool same_call(const CollectiveCall& a, const CollectiveCall& b) {
  return a.collective == b.collective && a.send.buffer == b.send.buffer && a.send.byte_offset == b.send.byte_offset &&
         a.recv.buffer == b.recv.buffer && a.recv.byte_offset == b.recv.byte_offset && a.count == b.count &&
         a.dtype == b.dtype && a.op == b.op && a.root == b.root;
}

// Whether the part's send and receive positions are the in-place pair that buffer_shape() gives for `rank`.
bool in_place_for(const CollectiveCall& call, const void* send, const void* recv, int nranks, int rank) {
  const BufferShape shape = buffer_shape(call.collective, call.count, nranks, rank);
  const std::size_t elem = size_of(call.dtype);
  return bytes_at(send) - shape.in_place_send_offset * elem == bytes_at(recv) - shape.in_place_recv_offset * elem;
}

}  // namespace

NcclCommunicator::NcclCommunicator(std::shared_ptr<NcclGroup> group, const BackendOptions& options,
                                   std::shared_ptr<CudaMath> math)
    : group_(std::move(group)), options_(options), staging_(group_->parts().size(), nullptr), math_(std::move(math)) {}

void NcclCommunicator::order_after_math() {
  auto& parts = group_->parts();
  if (math_ != nullptr && parts.size() == 1 && parts.front().device == math_->device()) {
    math_->order_before(parts.front().stream);
  }
}

NcclCommunicator::~NcclCommunicator() {
  graphs_.clear();
  release_staging();
}

std::optional<std::string> NcclCommunicator::unsupported(Collective c, DType t, ReduceOp op) const {
  return nccl_unsupported(c, t, op);
}

void NcclCommunicator::release_staging() noexcept {
  const auto& parts = group_->parts();
  for (std::size_t p = 0; p < staging_.size(); ++p) {
    if (staging_[p] != nullptr && cudaSetDevice(parts[p].device) == cudaSuccess) cudaFree(staging_[p]);
    staging_[p] = nullptr;
  }
  staging_capacity_ = 0;
}

void NcclCommunicator::reserve_staging(std::size_t bytes) {
  if (bytes <= staging_capacity_) return;
  graphs_.clear();        // a captured graph may point at the old staging buffers
  series_calls_.clear();  // and so may a prepared series
  series_prepared_.clear();
  release_staging();
  const auto& parts = group_->parts();
  for (std::size_t p = 0; p < parts.size(); ++p) {
    DeviceGuard guard(parts[p].device);
    const cudaError_t status = cudaMalloc(&staging_[p], bytes);
    if (status != cudaSuccess) {
      cudaGetLastError();
      staging_[p] = nullptr;
      throw failure(
          fmt::format("could not allocate {} bytes on GPU {} to stage an in-place call: {}; lower "
                      "-e/--maxbytes",
                      bytes, parts[p].device, cuda_error_text(status)));
    }
  }
  staging_capacity_ = bytes;
}

void NcclCommunicator::register_buffers(const CollectiveCall& call) {
  BufferRegistry* registry = group_->registry();
  if (registry == nullptr) return;
  auto& parts = group_->parts();
  for (Buffer* buffer : {call.send.buffer, call.recv.buffer}) {
    auto* cuda = dynamic_cast<CudaBuffer*>(buffer);
    if (cuda == nullptr || !cuda->registrable()) continue;  // memory from elsewhere is used unregistered
    for (std::size_t p = 0; p < parts.size(); ++p) {
      registry->ensure(parts[p].comm, cuda->data(static_cast<int>(p)), cuda->bytes(), group_->timeout());
    }
  }
}

NcclCommunicator::Prepared NcclCommunicator::prepare(const CollectiveCall& call) {
  Prepared prepared;
  prepared.what =
      is_reduction(call.collective)
          ? fmt::format("{} of {} x {} ({})", name(call.collective), call.count, name(call.dtype), name(call.op))
          : fmt::format("{} of {} x {}", name(call.collective), call.count, name(call.dtype));
  group_->require_usable(prepared.what);
  if (const auto reason = unsupported(call.collective, call.dtype, call.op)) throw usage_error(*reason);
  const int n = size();
  if (is_rooted(call.collective) && (call.root < 0 || call.root >= n)) {
    throw usage_error(fmt::format("{}: root {} is not a rank of this group of {}", prepared.what, call.root, n));
  }
  auto& parts = group_->parts();
  for (const Buffer* buffer : {call.send.buffer, call.recv.buffer}) {
    if (buffer == nullptr || buffer->parts() < static_cast<int>(parts.size())) {
      throw failure(fmt::format("{}: a buffer with one part per GPU this process drives ({}) is needed", prepared.what,
                                parts.size()));
    }
  }
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const int part = static_cast<int>(p);
    prepared.parts.push_back({call.send.data(part), call.recv.data(part), parts[p].rank, n});
    prepared.inputs.push_back(call.send.data(part));
  }
  // In-place with -g: every part must hold its own rank's in-place pair (buffer_shape offsets differ per rank for
  // reduce-scatter, allgather, gather and scatter).
  if (call.send.buffer == call.recv.buffer && parts.size() > 1 &&
      in_place_for(call, prepared.parts[0].send, prepared.parts[0].recv, n, parts[0].rank)) {
    for (std::size_t p = 1; p < parts.size(); ++p) {
      if (!in_place_for(call, prepared.parts[p].send, prepared.parts[p].recv, n, parts[p].rank)) {
        throw usage_error(
            fmt::format("in-place {} with -g {}: GPU {} (rank {}) was given the in-place positions "
                        "of another rank; run it out of place or with -g 1",
                        name(call.collective), parts.size(), parts[p].device, parts[p].rank));
      }
    }
  }
  for (const auto& part : prepared.parts) {
    prepared.staging = std::max(prepared.staging, staging_bytes(call, part.send, part.recv, n));
  }
  if (prepared.staging > 0) {
    reserve_staging(prepared.staging);
    for (std::size_t p = 0; p < parts.size(); ++p) prepared.parts[p].send = staging_[p];
  }
  register_buffers(call);
  return prepared;
}

void NcclCommunicator::stage(const Prepared& prepared) {
  if (prepared.staging == 0) return;
  auto& parts = group_->parts();
  for (std::size_t p = 0; p < parts.size(); ++p) {
    const cudaError_t copied =
        cudaMemcpyAsync(staging_[p], prepared.inputs[p], prepared.staging, cudaMemcpyDeviceToDevice, parts[p].stream);
    if (copied != cudaSuccess) {  // the message is formatted only on failure: this runs on every call
      check_cuda(copied, fmt::format("{}: staging the in-place input (cudaMemcpyAsync)", prepared.what));
    }
  }
}

void NcclCommunicator::enqueue(std::span<const CollectiveCall> calls, std::span<const Prepared> prepared, int ops,
                               bool capturing) {
  auto& parts = group_->parts();
  const int batch = std::max(1, options_.agg_iters);
  const std::size_t kinds = prepared.size();
  if (!capturing) order_after_math();
  for (int done = 0; done < ops;) {
    const int k = std::min(batch, ops - done);
    if (!capturing) group_->record_pending_start();
    ncclResult_t status = ncclGroupStart();
    for (int i = 0; i < k; ++i) {
      const std::size_t which = static_cast<std::size_t>(done + i) % kinds;
      for (std::size_t p = 0; p < parts.size(); ++p) {
        status = worse(status, enqueue_part(calls[which], prepared[which].parts[p], parts[p].comm, parts[p].stream));
      }
    }
    status = worse(status, ncclGroupEnd());
    group_->settle(status, prepared.front().what);
    if (options_.blocking && !capturing) {
      group_->wait([this] { return streams_idle(); }, group_->timeout(), prepared.front().what);
    }
    done += k;
  }
}

std::vector<std::uintptr_t> NcclCommunicator::signature(std::span<const CollectiveCall> calls,
                                                        std::span<const Prepared> prepared, int ops) const {
  const CollectiveCall& call = calls.front();
  std::vector<std::uintptr_t> key = {static_cast<std::uintptr_t>(call.collective),
                                     static_cast<std::uintptr_t>(call.dtype),
                                     static_cast<std::uintptr_t>(call.op),
                                     static_cast<std::uintptr_t>(call.root),
                                     call.count,
                                     static_cast<std::uintptr_t>(ops),
                                     static_cast<std::uintptr_t>(std::max(1, options_.agg_iters)),
                                     prepared.front().staging,
                                     prepared.size()};
  for (const Prepared& one : prepared) {
    for (std::size_t p = 0; p < one.parts.size(); ++p) {
      key.push_back(reinterpret_cast<std::uintptr_t>(one.inputs[p]));
      key.push_back(reinterpret_cast<std::uintptr_t>(one.parts[p].send));
      key.push_back(reinterpret_cast<std::uintptr_t>(one.parts[p].recv));
    }
  }
  return key;
}

void NcclCommunicator::run(const CollectiveCall& call, const ArmedStep&) { enqueue_call(call); }

void NcclCommunicator::enqueue_call(const CollectiveCall& call) {
  const Prepared prepared = prepare(call);
  last_what_ = prepared.what;
  group_->record_pending_start();  // a timer started before this call sees its staging copy too
  order_after_math();
  stage(prepared);
  enqueue(std::span(&call, 1), std::span(&prepared, 1), 1, false);
}

// Whether each call's buffers still have the device memory its preparation saw (a Buffer freed and another made at
// the same address would not).
bool NcclCommunicator::same_memory(std::span<const CollectiveCall> calls, std::span<const Prepared> prepared) const {
  if (calls.size() != prepared.size()) return false;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    for (std::size_t p = 0; p < prepared[i].parts.size(); ++p) {
      const int part = static_cast<int>(p);
      if (calls[i].send.data(part) != prepared[i].inputs[p] || calls[i].recv.data(part) != prepared[i].parts[p].recv) {
        return false;
      }
    }
  }
  return true;
}

void NcclCommunicator::run_series(std::span<const CollectiveCall> calls, int times, const ArmedStep&) {
  if (times <= 0 || calls.empty()) return;
  // The samples of a case run the same series again and again: its calls are worked out once, not inside every
  // timed block (formatting and checking each call costs the host more than a small NCCL call's enqueue). All of
  // them, however few this run takes: the warm-up's one call prepares the series the timed blocks run (--blocks
  // times the first block it runs, with no untimed block before it).
  if (!std::equal(calls.begin(), calls.end(), series_calls_.begin(), series_calls_.end(), same_call) ||
      !same_memory(calls, series_prepared_)) {
    std::vector<Prepared> made;  // prepare() may reserve staging afresh, which forgets the series it held
    for (const CollectiveCall& call : calls) made.push_back(prepare(call));
    series_prepared_ = std::move(made);
    series_calls_.assign(calls.begin(), calls.end());
    // Every staged call shares one staging buffer: the first one's input is copied when the series is new (the
    // warm-up or first batch of a case), so that no timed block holds the copy, on the host clock or the device's.
    order_after_math();
    stage(series_prepared_.front());
  } else {
    group_->require_usable(series_prepared_.front().what);
  }
  const std::vector<Prepared>& prepared = series_prepared_;
  last_what_ = prepared.front().what;
  order_after_math();
  if (options_.graph_launches <= 0) {
    enqueue(calls, prepared, times, false);
    return;
  }
  const GraphPlan plan = plan_graph(times, options_.graph_launches);
  auto key = signature(calls, prepared, plan.per_launch);
  CapturedGraph* graph = graphs_.find(key);
  if (graph == nullptr) {
    graphs_.clear();
    auto captured =
        std::make_unique<CapturedGraph>(group_->parts(), [&] { enqueue(calls, prepared, plan.per_launch, true); });
    graph = &graphs_.store(std::move(key), std::move(captured));
  }
  group_->record_pending_start();  // after the capture: the timer sees the replays only
  for (int launch = 0; launch < plan.launches; ++launch) {
    graph->launch(group_->parts());
    if (options_.blocking) group_->wait([this] { return streams_idle(); }, group_->timeout(), last_what_);
  }
  if (plan.rest > 0) enqueue(calls, prepared, plan.rest, false);
}

std::unique_ptr<Work> NcclCommunicator::start(const CollectiveCall& call) {
  enqueue_call(call);
  return std::make_unique<EventWork>(group_, last_what_);
}

std::unique_ptr<Work> NcclCommunicator::start_send(BufferRef data, std::size_t bytes, int peer) {
  return start_p2p(data, bytes, peer, true);
}

std::unique_ptr<Work> NcclCommunicator::start_recv(BufferRef data, std::size_t bytes, int peer) {
  return start_p2p(data, bytes, peer, false);
}

std::unique_ptr<Work> NcclCommunicator::start_p2p(BufferRef data, std::size_t bytes, int peer, bool sends) {
  std::string what =
      fmt::format("{} of {} bytes {} group rank {}", sends ? "send" : "receive", bytes, sends ? "to" : "from", peer);
  group_->require_usable(what);
  if (peer < 0 || peer >= size() || peer == rank()) {
    throw usage_error(fmt::format("{}: the peer must be another rank of this group of {}", what, size()));
  }
  if (data.buffer == nullptr || data.buffer->parts() != 1 || group_->parts().size() != 1) {
    throw usage_error(fmt::format("{}: point to point moves a buffer of one part; run with -g 1", what));
  }
  NcclPart& part = group_->parts().front();
  order_after_math();
  group_->record_pending_start();
  const ncclResult_t status = sends ? ncclSend(data.data(), bytes, ncclInt8, peer, part.comm, part.stream)
                                    : ncclRecv(data.data(), bytes, ncclInt8, peer, part.comm, part.stream);
  group_->settle(status, what);
  last_what_ = what;
  return std::make_unique<EventWork>(group_, std::move(what));
}

bool NcclCommunicator::streams_idle() const {
  for (const auto& part : group_->parts()) {
    const cudaError_t status = cudaStreamQuery(part.stream);
    if (status == cudaErrorNotReady) return false;
    check_cuda(status, fmt::format("cudaStreamQuery on GPU {}", part.device));
  }
  return true;
}

void NcclCommunicator::synchronize(Seconds timeout) {
  group_->wait([this] { return streams_idle(); }, timeout, last_what_);
}

void NcclCommunicator::synchronize_spinning(Seconds timeout) {
  group_->wait([this] { return streams_idle(); }, timeout, last_what_, true);
}

std::unique_ptr<Timer> NcclCommunicator::make_timer() { return std::make_unique<EventTimer>(group_); }

}  // namespace distbench::nccl
