// The NCCL communicators this process holds in one group (one per GPU it drives), their streams, and the rule for
// every wait on them: bounded, watching NCCL's asynchronous error state; an error or an expired wait aborts the
// communicators (ncclCommAbort) and throws. A group that ends normally is finalized and destroyed.
#pragma once

#include "backends/nccl/buffer_registry.hpp"
#include "core/comm/communicator.hpp"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace distbench::nccl {

// Bound on waits that the Communicator interface gives no timeout for: communicator set-up, enqueueing on a
// non-blocking communicator, blocking calls (-z) and finalization.
inline constexpr Seconds kDefaultTimeout{300.0};

class PartEvents;

struct NcclPart {
  int device = 0;
  int rank = 0;  // group rank
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
};

class NcclGroup {
 public:
  // Creates one non-blocking stream per device; communicators are filled in by the caller (see nccl_comm_init.hpp).
  NcclGroup(const std::vector<int>& devices, int first_rank, int nranks, std::string label, Seconds timeout,
            std::shared_ptr<BufferRegistry> registry);
  ~NcclGroup();
  NcclGroup(const NcclGroup&) = delete;
  NcclGroup& operator=(const NcclGroup&) = delete;

  std::vector<NcclPart>& parts() { return parts_; }
  int nranks() const { return nranks_; }
  const std::string& label() const { return label_; }
  Seconds timeout() const { return timeout_; }
  BufferRegistry* registry() const { return registry_.get(); }

  // After an NCCL call: returns on ncclSuccess; on ncclInProgress waits (up to timeout()) until every communicator
  // has settled; otherwise aborts and throws Error(failure) naming `what`.
  void settle(ncclResult_t status, std::string_view what);
  // Whether any communicator is still in progress; aborts and throws Error(failure) on an asynchronous NCCL error.
  bool in_progress(std::string_view what);
  // Polls until no communicator is in progress and `finished()` answers true. On an asynchronous error (or an
  // exception from `finished`) aborts and throws Error(failure); past `timeout` aborts and throws Error(timeout).
  // Between polls it yields, then sleeps in growing steps; `spin`: it only yields (a host clock waits on it).
  void wait(const std::function<bool()>& finished, Seconds timeout, std::string_view what, bool spin = false);
  // Throws Error(failure) when an earlier error or timeout aborted the communicators.
  void require_usable(std::string_view what) const;
  void abort() noexcept;

  // A timer's start events, recorded just before the next operation is enqueued rather than when the timer starts,
  // so that host work in between (graph capture, first-use registration, staging allocation) is not timed.
  void defer_start(PartEvents* events);
  // Records the deferred start events now, if any (never call it while the streams are being captured).
  void record_pending_start();
  void cancel_pending_start(const PartEvents* events) {
    if (pending_start_ == events) pending_start_ = nullptr;
  }

 private:
  void finalize() noexcept;

  std::vector<NcclPart> parts_;
  int nranks_;
  std::string label_;
  Seconds timeout_;
  std::shared_ptr<BufferRegistry> registry_;
  PartEvents* pending_start_ = nullptr;
  bool aborted_ = false;
  std::string abort_reason_;
};

}  // namespace distbench::nccl
