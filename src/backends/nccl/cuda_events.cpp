#include "backends/nccl/cuda_events.hpp"

#include "backends/nccl/cuda_check.hpp"
#include "core/error.hpp"

#include <fmt/core.h>

#include <algorithm>

namespace distbench::nccl {

PartEvents::PartEvents(const std::vector<NcclPart>& parts, bool timing) {
  const unsigned flags = timing ? cudaEventDefault : cudaEventDisableTiming;
  try {
    for (const auto& part : parts) {
      DeviceGuard guard(part.device);
      cudaEvent_t event = nullptr;
      check_cuda(cudaEventCreateWithFlags(&event, flags), "cudaEventCreateWithFlags");
      devices_.push_back(part.device);
      events_.push_back(event);
    }
  } catch (...) {
    release();
    throw;
  }
}

PartEvents::~PartEvents() { release(); }

void PartEvents::release() noexcept {
  for (std::size_t p = 0; p < events_.size(); ++p) {
    if (cudaSetDevice(devices_[p]) == cudaSuccess) cudaEventDestroy(events_[p]);
  }
  events_.clear();
}

void PartEvents::record(const std::vector<NcclPart>& parts) {
  for (std::size_t p = 0; p < events_.size(); ++p) {
    check_cuda(cudaEventRecord(events_[p], parts[p].stream), fmt::format("cudaEventRecord on GPU {}", devices_[p]));
  }
}

bool PartEvents::complete() const {
  for (std::size_t p = 0; p < events_.size(); ++p) {
    const cudaError_t status = cudaEventQuery(events_[p]);
    if (status == cudaErrorNotReady) return false;
    check_cuda(status, fmt::format("cudaEventQuery on GPU {}", devices_[p]));
  }
  return true;
}

EventTimer::EventTimer(std::shared_ptr<NcclGroup> group)
    : group_(std::move(group)), start_(group_->parts(), true), stop_(group_->parts(), true) {}

EventTimer::~EventTimer() { group_->cancel_pending_start(&start_); }

void EventTimer::start() { group_->defer_start(&start_); }

void EventTimer::stop() {
  group_->record_pending_start();  // nothing was enqueued since start(): an empty interval
  stop_.record(group_->parts());
}

double EventTimer::seconds() {
  float slowest_ms = 0;
  for (std::size_t p = 0; p < group_->parts().size(); ++p) {
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, start_.at(p), stop_.at(p)),
               "cudaEventElapsedTime (synchronize the communicator before reading a timer)");
    slowest_ms = std::max(slowest_ms, ms);
  }
  return slowest_ms * 1e-3;
}

EventWork::EventWork(std::shared_ptr<NcclGroup> group, std::string what)
    : group_(std::move(group)), events_(group_->parts(), false), what_(std::move(what)) {
  events_.record(group_->parts());
}

bool EventWork::done() {
  group_->require_usable(what_);
  return !group_->in_progress(what_) && events_.complete();
}

void EventWork::wait(Seconds timeout) {
  group_->wait([this] { return events_.complete(); }, timeout, what_);
}

}  // namespace distbench::nccl
