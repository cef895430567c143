// The GPUs of one process as a Device: one allocation per GPU it drives (-g), filled and checked by CUDA kernels.
// Every operation completes before it returns (so that it is ordered with the communicators' streams, which run
// apart from this device's own streams); count_wrong() expects the communicator to have been synchronized.
#pragma once

#include "backends/nccl/buffer_registry.hpp"
#include "backends/nccl/cuda_math.hpp"
#include "core/device/device.hpp"

#include <cuda_runtime_api.h>

#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace distbench::nccl {

// One allocation per device, with cudaMalloc or ncclMemAlloc (--alloc, and always for -R: NCCL registers only
// memory it allocated).
class CudaBuffer final : public Buffer {
 public:
  CudaBuffer(const std::vector<int>& devices, std::size_t bytes, bool nccl_mem_alloc,
             std::shared_ptr<BufferRegistry> registry);
  ~CudaBuffer() override;
  CudaBuffer(const CudaBuffer&) = delete;
  CudaBuffer& operator=(const CudaBuffer&) = delete;

  std::size_t bytes() const override { return bytes_; }
  int parts() const override { return static_cast<int>(data_.size()); }
  void* data(int part) override;
  // Allocated with ncclMemAlloc for registration with communicators (-R).
  bool registrable() const { return registry_ != nullptr; }

 private:
  void release() noexcept;

  std::vector<int> devices_;
  std::vector<void*> data_;
  std::size_t bytes_;
  bool nccl_mem_alloc_;
  std::shared_ptr<BufferRegistry> registry_;  // null: not registered
};

class CudaDevice final : public Device {
 public:
  // `devices`: the CUDA ordinals this process drives, in part order. `processes_per_gpu`: processes of this node that
  // share each GPU (1 normally). `registry`: set when buffers are to be registered (-R). `math`: the dense math on
  // the first GPU (null: none). `nccl_mem_alloc`: buffers from ncclMemAlloc (as nccl-tests allocates them) rather
  // than cudaMalloc; implied by a registry.
  CudaDevice(std::vector<int> devices, int processes_per_gpu, std::shared_ptr<BufferRegistry> registry,
             std::shared_ptr<CudaMath> math = nullptr, bool nccl_mem_alloc = false);
  ~CudaDevice() override;
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  std::string describe() const override;
  // Free memory of the fullest GPU this process drives, divided among the processes that share it. The argument
  // (processes sharing host memory) does not apply to GPU memory.
  std::uint64_t memory_available(int processes_sharing) const override;
  int memory_sharers(int) const override { return processes_per_gpu_; }  // the ranks on one GPU
  std::unique_ptr<Buffer> allocate(std::size_t bytes) override;
  void fill(BufferRef at, std::size_t count, DType dtype, const FillSpec& spec) override;
  void poison(BufferRef at, std::size_t bytes) override;
  std::uint64_t count_wrong(BufferRef at, DType dtype, const CheckSpec& spec) override;
  void fill_expected(BufferRef at, DType dtype, const CheckSpec& spec, std::span<const std::uint64_t> corrupt) override;
  void copy(BufferRef dst, BufferRef src, std::size_t bytes) override;
  void synchronize() override;
  // Pinned host memory to and from the first GPU this process drives (copy_bandwidth.hpp).
  std::vector<std::pair<std::string, double>> host_transfer_gbps() override;
  std::string model_name() const override { return names_.empty() ? std::string() : names_.front(); }
  PeerCopies peer_copies() override;
  std::string pci_bus_id() const override;
  DenseMath* math() override { return math_.get(); }

  const std::vector<int>& devices() const { return devices_; }

 private:
  struct Part {
    int device = 0;
    cudaStream_t stream = nullptr;
    ExpectBlock* blocks = nullptr;  // device copy of the expected blocks of one check
    std::size_t capacity = 0;       // entries `blocks` holds
    unsigned long long* counter = nullptr;
  };

  void release() noexcept;
  void require_parts(BufferRef at, std::string_view what) const;
  void synchronize_parts(std::string_view what);
  // Queues the copy of `blocks` to the part's device memory (they must stay alive until the part's stream has run
  // it); returns the largest block count.
  std::uint64_t upload_blocks(Part& part, const std::vector<ExpectBlock>& blocks);

  std::vector<int> devices_;
  std::vector<std::string> names_;
  int processes_per_gpu_;
  bool nccl_mem_alloc_;
  std::shared_ptr<BufferRegistry> registry_;
  std::vector<Part> parts_;
  std::shared_ptr<CudaMath> math_;
};

}  // namespace distbench::nccl
