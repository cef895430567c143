// CUDA graphs for -G: a stretch of operations captured once from a group's streams (one graph per GPU, captured
// together because one ncclGroupEnd launches on all of them) and replayed with cudaGraphLaunch.
#pragma once

#include "backends/nccl/nccl_group.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace distbench::nccl {

class CapturedGraph {
 public:
  // Captures what `enqueue` puts on the parts' streams (nothing runs during capture). Throws Error(failure) when
  // capture or instantiation fails, leaving the streams out of capture mode.
  CapturedGraph(const std::vector<NcclPart>& parts, const std::function<void()>& enqueue);
  ~CapturedGraph();
  CapturedGraph(const CapturedGraph&) = delete;
  CapturedGraph& operator=(const CapturedGraph&) = delete;

  void launch(const std::vector<NcclPart>& parts);

 private:
  void release() noexcept;

  std::vector<int> devices_;
  std::vector<cudaGraphExec_t> execs_;
};

// How `times` operations are replayed with `graph_launches` launches of one graph: `per_launch` operations captured,
// launched `launches` times, and `rest` operations run directly (times = per_launch * launches + rest).
struct GraphPlan {
  int per_launch = 1;
  int launches = 0;
  int rest = 0;
};
GraphPlan plan_graph(int times, int graph_launches);

// The last graph a communicator captured, with the signature of what it holds (call, buffers, batch): a repeated
// call with the same signature replays it, a different one replaces it.
class GraphCache {
 public:
  CapturedGraph* find(const std::vector<std::uintptr_t>& signature);
  CapturedGraph& store(std::vector<std::uintptr_t> signature, std::unique_ptr<CapturedGraph> graph);
  void clear();

 private:
  std::vector<std::uintptr_t> signature_;
  std::unique_ptr<CapturedGraph> graph_;
};

}  // namespace distbench::nccl
