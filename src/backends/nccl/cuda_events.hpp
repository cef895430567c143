// CUDA events on a group's streams: a Timer that measures where the GPUs run the calls (one pair of events per GPU;
// the slowest GPU's time counts), and the Work of an asynchronous call (an event recorded after it on every stream).
#pragma once

#include "backends/nccl/nccl_group.hpp"
#include "core/comm/communicator.hpp"

#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

namespace distbench::nccl {

// Events of one kind, one per part of a group, created on each part's device.
class PartEvents {
 public:
  PartEvents(const std::vector<NcclPart>& parts, bool timing);
  ~PartEvents();
  PartEvents(const PartEvents&) = delete;
  PartEvents& operator=(const PartEvents&) = delete;

  void record(const std::vector<NcclPart>& parts);
  // True once every event has completed; throws Error(failure) on a CUDA error.
  bool complete() const;
  cudaEvent_t at(std::size_t part) const { return events_[part]; }

 private:
  void release() noexcept;

  std::vector<int> devices_;
  std::vector<cudaEvent_t> events_;
};

// start() defers its events to the next operation the communicator enqueues (NcclGroup::defer_start), so the time
// runs from the first operation's launch to stop().
class EventTimer final : public Timer {
 public:
  explicit EventTimer(std::shared_ptr<NcclGroup> group);
  ~EventTimer() override;
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  void start() override;
  void stop() override;
  double seconds() override;

 private:
  std::shared_ptr<NcclGroup> group_;
  PartEvents start_;
  PartEvents stop_;
};

class EventWork final : public Work {
 public:
  // Records the completion events now, after the call was enqueued. `what` names the call for errors.
  EventWork(std::shared_ptr<NcclGroup> group, std::string what);
  bool done() override;
  void wait(Seconds timeout) override;

 private:
  std::shared_ptr<NcclGroup> group_;
  PartEvents events_;
  std::string what_;
};

}  // namespace distbench::nccl
