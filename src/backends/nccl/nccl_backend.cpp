#include "backends/nccl/nccl_backend.hpp"

#include "backends/nccl/copy_bandwidth.hpp"
#include "backends/nccl/cuda_check.hpp"
#include "backends/nccl/cuda_device.hpp"
#include "backends/nccl/gpu_info.hpp"
#include "backends/nccl/nccl_comm_init.hpp"
#include "backends/nccl/nccl_communicator.hpp"
#include "backends/nccl/rank_layout.hpp"
#include "core/error.hpp"
#include "core/sys/gpu_sharing.hpp"

#include <fmt/core.h>

namespace distbench::nccl {
namespace {

void validate(const BackendOptions& options) {
  if (options.agg_iters < 1) {
    throw usage_error(fmt::format("-m/--agg-iters must be at least 1 (got {})", options.agg_iters));
  }
  if (options.graph_launches < 0) {
    throw usage_error(fmt::format("-G/--cudagraph must be 0 or more (got {})", options.graph_launches));
  }
  if (options.gpus_per_process < 1) {
    throw usage_error(fmt::format("-g/--ngpus must be at least 1 (got {})", options.gpus_per_process));
  }
}

// Processes of this node that use each GPU: 1 unless there are more local ranks x GPUs than GPUs.
int processes_per_gpu(const Connector& connector, const BackendOptions& options, int device_count) {
  if (options.device_index >= 0) return connector.local_size();
  const int wanted = connector.local_size() * options.gpus_per_process;
  return std::max(1, (wanted + device_count - 1) / device_count);
}

class NcclBackend final : public Backend {
 public:
  NcclBackend(Connector& connector, const BackendOptions& options) : connector_(connector), options_(options) {
    validate(options_);
    if (const auto reason = cuda_unavailable_reason()) {
      throw Error(ExitCode::unavailable, fmt::format("backend 'nccl' cannot run here: {}", *reason));
    }
    int count = 0;
    check_cuda(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
    const auto devices =
        choose_devices(connector_.local_rank(), options_.gpus_per_process, options_.device_index, count);
    if (options_.register_buffers) registry_ = std::make_shared<BufferRegistry>();
    math_ = std::make_shared<CudaMath>(devices.front());
    sharing_ = processes_per_gpu(connector_, options_, count);
    if (sharing_ > 1) mps_ = find_mps();
    device_ = std::make_unique<CudaDevice>(devices, sharing_, registry_, math_, options_.nccl_mem_alloc);
  }

  std::string_view name() const override { return "nccl"; }
  Device& device() override { return *device_; }

  std::unique_ptr<Communicator> create_communicator(const Partition& partition, const ArmedStep& step) override {
    GroupSetup setup;
    setup.devices = device_->devices();
    setup.blocking = options_.blocking;
    setup.timeout = Seconds(options_.timeout_s);
    setup.registry = registry_;
    return std::make_unique<NcclCommunicator>(init_group(connector_, partition, setup, step), options_, math_);
  }

  KeyValues describe() const override {
    KeyValues out = {{"device", device_->describe()}};
    if (auto text = gpu_sharing_text(sharing_, mps_)) out.emplace_back("gpu.sharing", std::move(*text));
    for (auto& entry : runtime_versions()) out.push_back(std::move(entry));
    for (auto& entry : gpu_entries()) out.push_back(std::move(entry));
    for (int device : device_->devices()) {
      try {
        for (auto& entry : copy_bandwidth_entries(device, measure_copy_bandwidth(device))) {
          out.push_back(std::move(entry));
        }
      } catch (const Error& e) {
        out.emplace_back(fmt::format("copy.gpu{}", device), fmt::format("not measured: {}", e.what()));
      }
    }
    return out;
  }

  KeyValues library_versions() const override {
    KeyValues out;
    for (auto& entry : runtime_versions()) {
      if (entry.first != "warning" && entry.first != "nccl.header") out.push_back(std::move(entry));
    }
    return out;
  }

  KeyValues cautions() const override {
    if (auto text = gpu_sharing_warning(sharing_, mps_)) return {{"gpu_shared", std::move(*text)}};
    return {};
  }

 private:
  Connector& connector_;
  BackendOptions options_;
  std::shared_ptr<BufferRegistry> registry_;  // -R only
  std::shared_ptr<CudaMath> math_;            // the first GPU's: models computed on it (train)
  std::unique_ptr<CudaDevice> device_;
  int sharing_ = 1;  // processes of this node per GPU
  MpsDaemon mps_;    // looked for only when they share one
};

}  // namespace

BackendEntry nccl_backend_entry() {
  return {"nccl",
          "NCCL collectives on GPU memory (CUDA streams and events, graphs, -g GPUs per process)",
          cuda_unavailable_reason,
          [](Connector& connector, const BackendOptions& options) -> std::unique_ptr<Backend> {
            return std::make_unique<NcclBackend>(connector, options);
          },
          build_versions,
          {},
          /*bitwise_reductions=*/false};
}

}  // namespace distbench::nccl
