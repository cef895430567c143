#include "backends/nccl/cuda_graph.hpp"

#include "backends/nccl/cuda_check.hpp"
#include "core/error.hpp"

#include <fmt/core.h>

#include <algorithm>

namespace distbench::nccl {
namespace {

// Ends capture on every stream that is still capturing, dropping the partial graphs.
void end_capture(const std::vector<NcclPart>& parts) noexcept {
  for (const auto& part : parts) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(part.stream, &status) != cudaSuccess || status == cudaStreamCaptureStatusNone) continue;
    cudaGraph_t graph = nullptr;
    if (cudaStreamEndCapture(part.stream, &graph) == cudaSuccess && graph != nullptr) cudaGraphDestroy(graph);
  }
  cudaGetLastError();  // a failed capture leaves a non-sticky error behind
}

// Captured graphs, destroyed once instantiated (or when instantiation fails).
struct Graphs {
  std::vector<cudaGraph_t> list;
  Graphs() = default;
  Graphs(const Graphs&) = delete;
  Graphs& operator=(const Graphs&) = delete;
  ~Graphs() {
    for (auto graph : list) cudaGraphDestroy(graph);
  }
};

}  // namespace

CapturedGraph::CapturedGraph(const std::vector<NcclPart>& parts, const std::function<void()>& enqueue) {
  try {
    for (const auto& part : parts) {
      check_cuda(cudaStreamBeginCapture(part.stream, cudaStreamCaptureModeThreadLocal),
                 fmt::format("cudaStreamBeginCapture on GPU {} (-G)", part.device));
    }
    enqueue();
    Graphs graphs;
    for (const auto& part : parts) {
      cudaGraph_t graph = nullptr;
      const cudaError_t status = cudaStreamEndCapture(part.stream, &graph);
      if (graph != nullptr) graphs.list.push_back(graph);
      check_cuda(status, fmt::format("cudaStreamEndCapture on GPU {} (-G)", part.device));
    }
    for (std::size_t p = 0; p < parts.size(); ++p) {
      DeviceGuard guard(parts[p].device);
      cudaGraphExec_t exec = nullptr;
      check_cuda(cudaGraphInstantiate(&exec, graphs.list.at(p), 0),
                 fmt::format("cudaGraphInstantiate on GPU {} (-G)", parts[p].device));
      devices_.push_back(parts[p].device);
      execs_.push_back(exec);
    }
  } catch (...) {
    end_capture(parts);
    release();
    throw;
  }
}

CapturedGraph::~CapturedGraph() { release(); }

void CapturedGraph::release() noexcept {
  for (std::size_t p = 0; p < execs_.size(); ++p) {
    if (cudaSetDevice(devices_[p]) == cudaSuccess) cudaGraphExecDestroy(execs_[p]);  // freed once it has run
  }
  execs_.clear();
  devices_.clear();
}

void CapturedGraph::launch(const std::vector<NcclPart>& parts) {
  for (std::size_t p = 0; p < execs_.size(); ++p) {
    check_cuda(cudaGraphLaunch(execs_[p], parts[p].stream), fmt::format("cudaGraphLaunch on GPU {}", parts[p].device));
  }
}

GraphPlan plan_graph(int times, int graph_launches) {
  if (times <= 0) return {1, 0, 0};
  const int per_launch = std::max(1, times / std::max(1, graph_launches));
  const int launches = times / per_launch;
  return {per_launch, launches, times - per_launch * launches};
}

CapturedGraph* GraphCache::find(const std::vector<std::uintptr_t>& signature) {
  return graph_ && signature == signature_ ? graph_.get() : nullptr;
}

CapturedGraph& GraphCache::store(std::vector<std::uintptr_t> signature, std::unique_ptr<CapturedGraph> graph) {
  signature_ = std::move(signature);
  graph_ = std::move(graph);
  return *graph_;
}

void GraphCache::clear() {
  graph_.reset();
  signature_.clear();
}

}  // namespace distbench::nccl
