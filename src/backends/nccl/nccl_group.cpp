#include "backends/nccl/nccl_group.hpp"

#include "backends/nccl/cuda_check.hpp"
#include "backends/nccl/cuda_events.hpp"
#include "backends/nccl/nccl_calls.hpp"
#include "core/error.hpp"
#include "core/sys/deadline.hpp"

#include <fmt/core.h>

#include <chrono>
#include <thread>

namespace distbench::nccl {
namespace {

using Clock = std::chrono::steady_clock;

// Spin briefly (short operations), then sleep in growing steps up to 100 us (long ones), so that waiting neither
// adds much latency nor takes a core from the proxy threads.
class Backoff {
 public:
  explicit Backoff(bool spin) : spin_(spin) {}
  void pause() {
    if (spin_ || ++rounds_ < 64) {
      std::this_thread::yield();
      return;
    }
    std::this_thread::sleep_for(sleep_);
    if (sleep_ < std::chrono::microseconds(100)) sleep_ *= 2;
  }

 private:
  bool spin_;
  int rounds_ = 0;
  std::chrono::microseconds sleep_{1};
};

}  // namespace

NcclGroup::NcclGroup(const std::vector<int>& devices, int first_rank, int nranks, std::string label, Seconds timeout,
                     std::shared_ptr<BufferRegistry> registry)
    : nranks_(nranks), label_(std::move(label)), timeout_(timeout), registry_(std::move(registry)) {
  try {
    for (std::size_t p = 0; p < devices.size(); ++p) {
      NcclPart part;
      part.device = devices[p];
      part.rank = first_rank + static_cast<int>(p);
      DeviceGuard guard(part.device);
      check_cuda(cudaStreamCreateWithFlags(&part.stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
      parts_.push_back(part);
    }
  } catch (...) {
    finalize();
    throw;
  }
}

NcclGroup::~NcclGroup() { finalize(); }

void NcclGroup::finalize() noexcept {
  if (!aborted_) {
    // Finish outstanding work and release the communicators; on a failure or past the timeout, abort instead.
    try {
      ncclResult_t status = ncclGroupStart();
      for (auto& part : parts_) {
        if (part.comm == nullptr) continue;
        if (registry_) registry_->forget_comm(part.comm, true);
        status = worse(status, ncclCommFinalize(part.comm));
      }
      status = worse(status, ncclGroupEnd());
      settle(status, "ncclCommFinalize");
      wait([] { return true; }, timeout_, "ncclCommFinalize");  // until every communicator is quiescent
      for (auto& part : parts_) {
        if (part.comm != nullptr) ncclCommDestroy(part.comm);
        part.comm = nullptr;
      }
    } catch (const Error&) {
      abort();  // settle() has aborted already unless the error came from elsewhere
    }
  }
  for (auto& part : parts_) {
    if (part.stream != nullptr && cudaSetDevice(part.device) == cudaSuccess) cudaStreamDestroy(part.stream);
    part.stream = nullptr;
  }
}

void NcclGroup::abort() noexcept {
  for (auto& part : parts_) {
    if (part.comm == nullptr) continue;
    if (registry_) registry_->forget_comm(part.comm, false);
    ncclCommAbort(part.comm);
    part.comm = nullptr;
  }
  aborted_ = true;
}

void NcclGroup::defer_start(PartEvents* events) {
  if (pending_start_ != nullptr && pending_start_ != events) record_pending_start();  // another timer started first
  pending_start_ = events;
}

void NcclGroup::record_pending_start() {
  if (pending_start_ == nullptr) return;
  PartEvents* events = pending_start_;
  pending_start_ = nullptr;
  events->record(parts_);
}

void NcclGroup::require_usable(std::string_view what) const {
  if (aborted_) {
    throw failure(fmt::format("{}: the NCCL communicators of group {} were aborted after an earlier failure ({})", what,
                              label_, abort_reason_));
  }
}

bool NcclGroup::in_progress(std::string_view what) {
  bool pending = false;
  for (auto& part : parts_) {
    if (part.comm == nullptr) continue;
    ncclResult_t state = ncclSuccess;
    const ncclResult_t query = ncclCommGetAsyncError(part.comm, &state);
    if (query != ncclSuccess) state = query;
    if (state == ncclInProgress) {
      pending = true;
    } else if (state != ncclSuccess) {
      const std::string text = nccl_error_text(state, part.comm);
      abort_reason_ = fmt::format("{}: {}", what, text);
      abort();
      throw failure(fmt::format("{} on NCCL group {} (rank {}, GPU {}) failed: {}; the communicators were aborted",
                                what, label_, part.rank, part.device, text));
    }
  }
  return pending;
}

void NcclGroup::settle(ncclResult_t status, std::string_view what) {
  if (status == ncclSuccess) return;
  if (status != ncclInProgress) {
    const std::string text = nccl_error_text(status, parts_.empty() ? nullptr : parts_.front().comm);
    abort_reason_ = fmt::format("{}: {}", what, text);
    abort();
    throw failure(fmt::format("{} on NCCL group {} failed: {}; the communicators were aborted", what, label_, text));
  }
  wait([] { return true; }, timeout_, what);
}

void NcclGroup::wait(const std::function<bool()>& finished, Seconds timeout, std::string_view what, bool spin) {
  require_usable(what);
  const auto deadline = deadline_after(timeout.count());
  Backoff backoff(spin);
  while (true) {
    if (!in_progress(what)) {
      bool done = false;
      try {
        done = finished();
      } catch (const Error& e) {
        abort_reason_ = e.what();
        abort();
        throw;
      }
      if (done) return;
    }
    if (Clock::now() > deadline) {
      abort_reason_ = fmt::format("{}: timed out after {:.3g} s", what, timeout.count());
      abort();
      throw Error(ExitCode::timeout, fmt::format("{} on NCCL group {} did not complete within {:.3g} s; its "
                                                 "communicators were aborted (ncclCommAbort)",
                                                 what, label_, timeout.count()));
    }
    backoff.pause();
  }
}

}  // namespace distbench::nccl
