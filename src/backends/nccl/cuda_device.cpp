#include "backends/nccl/cuda_device.hpp"

#include "backends/nccl/copy_bandwidth.hpp"

#include "backends/nccl/cuda_check.hpp"
#include "backends/nccl/pattern_kernels.hpp"
#include "backends/nccl/verify_tolerance.hpp"
#include "core/device/checker_check.hpp"
#include "core/error.hpp"
#include "core/report/text.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cstddef>
#include <limits>

namespace distbench::nccl {
namespace {

constexpr int kPoisonByte = 0xA5;  // the host device's poison byte: no pattern value has it in any dtype

std::string device_name(int device) {
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, device), fmt::format("cudaGetDeviceProperties({})", device));
  return prop.name;
}

}  // namespace

CudaBuffer::CudaBuffer(const std::vector<int>& devices, std::size_t bytes, bool nccl_mem_alloc,
                       std::shared_ptr<BufferRegistry> registry)
    : devices_(devices), bytes_(bytes), nccl_mem_alloc_(nccl_mem_alloc || registry), registry_(std::move(registry)) {
  const std::size_t size = std::max<std::size_t>(bytes, 1);
  try {
    for (int device : devices_) {
      DeviceGuard guard(device);
      void* ptr = nullptr;
      if (nccl_mem_alloc_) {
        const ncclResult_t status = ncclMemAlloc(&ptr, size);
        if (status != ncclSuccess) {
          throw failure(
              fmt::format("could not allocate {} bytes on GPU {} with ncclMemAlloc ({}): {}; lower "
                          "the sizes asked for (-e/--maxbytes, or the command's size options){}",
                          bytes, device, registry_ ? "-R" : "--alloc", nccl_error_text(status),
                          registry_ ? "" : ", or allocate with cudaMalloc (--alloc cudaMalloc)"));
        }
      } else {
        const cudaError_t status = cudaMalloc(&ptr, size);
        if (status != cudaSuccess) {
          cudaGetLastError();  // clear the (non-sticky) allocation error
          throw failure(
              fmt::format("could not allocate {} bytes on GPU {}: {}; lower the sizes asked for (-e/--maxbytes, or the "
                          "command's size options)",
                          bytes, device, cuda_error_text(status)));
        }
      }
      data_.push_back(ptr);
    }
  } catch (...) {
    release();
    throw;
  }
}

CudaBuffer::~CudaBuffer() { release(); }

void CudaBuffer::release() noexcept {
  for (std::size_t p = 0; p < data_.size(); ++p) {
    try {
      DeviceGuard guard(devices_[p]);
      if (registry_) registry_->forget_buffer(data_[p]);
      if (nccl_mem_alloc_) {
        ncclMemFree(data_[p]);
      } else {
        cudaFree(data_[p]);
      }
    } catch (const Error&) {
      // freeing after a device failure: nothing more to do
    }
  }
  data_.clear();
}

void* CudaBuffer::data(int part) {
  if (part < 0 || part >= parts()) {
    throw failure(fmt::format("part {} of a GPU buffer with {} parts requested", part, parts()));
  }
  return data_[static_cast<std::size_t>(part)];
}

CudaDevice::CudaDevice(std::vector<int> devices, int processes_per_gpu, std::shared_ptr<BufferRegistry> registry,
                       std::shared_ptr<CudaMath> math, bool nccl_mem_alloc)
    : devices_(std::move(devices)),
      processes_per_gpu_(std::max(1, processes_per_gpu)),
      nccl_mem_alloc_(nccl_mem_alloc),
      registry_(std::move(registry)),
      math_(std::move(math)) {
  try {
    for (int device : devices_) {
      names_.push_back(device_name(device));
      DeviceGuard guard(device);
      Part part;
      part.device = device;
      parts_.push_back(part);  // owned from here on: the destructor releases what was created
      check_cuda(cudaStreamCreateWithFlags(&parts_.back().stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
      void* counter = nullptr;
      check_cuda(cudaMalloc(&counter, sizeof(unsigned long long)), "cudaMalloc (verification counter)");
      parts_.back().counter = static_cast<unsigned long long*>(counter);
    }
  } catch (...) {
    release();
    throw;
  }
}

CudaDevice::~CudaDevice() { release(); }

void CudaDevice::release() noexcept {
  for (auto& part : parts_) {
    if (cudaSetDevice(part.device) != cudaSuccess) continue;
    if (part.blocks != nullptr) cudaFree(part.blocks);
    if (part.counter != nullptr) cudaFree(part.counter);
    if (part.stream != nullptr) cudaStreamDestroy(part.stream);
  }
  parts_.clear();
}

std::string CudaDevice::describe() const {
  std::string text = devices_.size() == 1 ? "cuda: GPU " : "cuda: GPUs ";
  for (std::size_t p = 0; p < devices_.size(); ++p) {
    text += fmt::format("{}{} ({})", p == 0 ? "" : ", ", devices_[p], names_[p]);
  }
  return text;
}

std::uint64_t CudaDevice::memory_available(int) const {
  std::uint64_t least = std::numeric_limits<std::uint64_t>::max();
  for (int device : devices_) {
    DeviceGuard guard(device);
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes), fmt::format("cudaMemGetInfo on GPU {}", device));
    least = std::min<std::uint64_t>(least, free_bytes);
  }
  return least / static_cast<std::uint64_t>(processes_per_gpu_);
}

std::unique_ptr<Buffer> CudaDevice::allocate(std::size_t bytes) {
  return std::make_unique<CudaBuffer>(devices_, bytes, nccl_mem_alloc_, registry_);
}

void CudaDevice::require_parts(BufferRef at, std::string_view what) const {
  if (at.buffer == nullptr) throw failure(fmt::format("{}: no buffer given", what));
  if (at.buffer->parts() < static_cast<int>(parts_.size())) {
    throw failure(fmt::format("{}: the buffer has {} but this process drives {} (-g)", what,
                              plural(static_cast<std::size_t>(at.buffer->parts()), "part", "parts"),
                              plural(parts_.size(), "GPU", "GPUs")));
  }
}

void CudaDevice::synchronize_parts(std::string_view what) {
  for (auto& part : parts_) {
    check_cuda(cudaStreamSynchronize(part.stream), fmt::format("{} on GPU {}", what, part.device));
  }
}

void CudaDevice::fill(BufferRef at, std::size_t count, DType dtype, const FillSpec& spec) {
  require_parts(at, "fill");
  for (std::size_t p = 0; p < parts_.size(); ++p) {
    DeviceGuard guard(parts_[p].device);
    const int rank = spec.first_rank + static_cast<int>(p);
    check_cuda(launch_fill(at.data(static_cast<int>(p)), count, dtype, spec.pattern, rank, parts_[p].stream),
               "fill kernel launch");
  }
  synchronize_parts("fill kernel");
}

void CudaDevice::poison(BufferRef at, std::size_t bytes) {
  require_parts(at, "poison");
  for (std::size_t p = 0; p < parts_.size(); ++p) {
    check_cuda(cudaMemsetAsync(at.data(static_cast<int>(p)), kPoisonByte, bytes, parts_[p].stream), "cudaMemsetAsync");
  }
  synchronize_parts("poison (cudaMemsetAsync)");
}

std::uint64_t CudaDevice::count_wrong(BufferRef at, DType dtype, const CheckSpec& spec) {
  require_parts(at, "count_wrong");
  const double tolerance = is_reduction(spec.collective) ? verify_tolerance(dtype, spec.op, spec.pattern) : 0.0;
  std::vector<std::vector<ExpectBlock>> blocks(parts_.size());  // alive until the copies below have completed
  std::vector<unsigned long long> counts(parts_.size(), 0);
  for (std::size_t p = 0; p < parts_.size(); ++p) {
    Part& part = parts_[p];
    const int rank = spec.first_rank + static_cast<int>(p);
    blocks[p] = expected_blocks(spec.collective, rank, spec.pattern.nranks, spec.call_count, spec.root);
    if (blocks[p].empty()) continue;
    DeviceGuard guard(part.device);
    const std::uint64_t longest = upload_blocks(part, blocks[p]);
    check_cuda(cudaMemsetAsync(part.counter, 0, sizeof(unsigned long long), part.stream), "cudaMemsetAsync");
    check_cuda(launch_count_wrong(at.data(static_cast<int>(p)), dtype, spec.pattern, spec.op, part.blocks,
                                  static_cast<int>(blocks[p].size()), longest, tolerance, part.counter, part.stream),
               "verification kernel launch");
    check_cuda(
        cudaMemcpyAsync(&counts[p], part.counter, sizeof(unsigned long long), cudaMemcpyDeviceToHost, part.stream),
        "cudaMemcpyAsync (wrong count)");
  }
  synchronize_parts("verification kernel");
  std::uint64_t wrong = 0;
  for (auto c : counts) wrong += c;
  return wrong;
}

std::uint64_t CudaDevice::upload_blocks(Part& part, const std::vector<ExpectBlock>& blocks) {
  if (part.capacity < blocks.size()) {
    if (part.blocks != nullptr) check_cuda(cudaFree(part.blocks), "cudaFree");
    part.blocks = nullptr;
    part.capacity = 0;
    void* fresh = nullptr;
    check_cuda(cudaMalloc(&fresh, blocks.size() * sizeof(ExpectBlock)), "cudaMalloc (expected blocks)");
    part.blocks = static_cast<ExpectBlock*>(fresh);
    part.capacity = blocks.size();
  }
  std::uint64_t longest = 0;
  for (const auto& b : blocks) longest = std::max(longest, b.count);
  check_cuda(cudaMemcpyAsync(part.blocks, blocks.data(), blocks.size() * sizeof(ExpectBlock), cudaMemcpyHostToDevice,
                             part.stream),
             "cudaMemcpyAsync (expected blocks)");
  return longest;
}

// The expected values by a kernel of their own (not the checker's), then each corrupted element read back, changed
// on the host and written again: a few elements, once per sweep.
void CudaDevice::fill_expected(BufferRef at, DType dtype, const CheckSpec& spec,
                               std::span<const std::uint64_t> corrupt) {
  require_parts(at, "fill_expected");
  std::vector<std::vector<ExpectBlock>> blocks(parts_.size());  // alive until the copies below have completed
  for (std::size_t p = 0; p < parts_.size(); ++p) {
    Part& part = parts_[p];
    const int rank = spec.first_rank + static_cast<int>(p);
    blocks[p] = expected_blocks(spec.collective, rank, spec.pattern.nranks, spec.call_count, spec.root);
    if (blocks[p].empty()) continue;
    DeviceGuard guard(part.device);
    const std::uint64_t longest = upload_blocks(part, blocks[p]);
    check_cuda(launch_fill_expected(at.data(static_cast<int>(p)), dtype, spec.pattern, spec.op, part.blocks,
                                    static_cast<int>(blocks[p].size()), longest, part.stream),
               "expected-values kernel launch");
  }
  synchronize_parts("expected-values kernel");
  const std::size_t elem = size_of(dtype);
  for (std::size_t p = 0; p < parts_.size(); ++p) {
    DeviceGuard guard(parts_[p].device);
    for (const std::uint64_t i : corrupt) {
      auto* element = static_cast<std::byte*>(at.data(static_cast<int>(p))) + i * elem;
      std::uint64_t bits = 0;
      check_cuda(cudaMemcpy(&bits, element, elem, cudaMemcpyDeviceToHost), "cudaMemcpy (an element to corrupt)");
      bits = corrupted_bits(dtype, bits);
      check_cuda(cudaMemcpy(element, &bits, elem, cudaMemcpyHostToDevice), "cudaMemcpy (a corrupted element)");
    }
  }
}

void CudaDevice::copy(BufferRef dst, BufferRef src, std::size_t bytes) {
  require_parts(dst, "copy");
  require_parts(src, "copy");
  if (bytes == 0) return;
  for (std::size_t p = 0; p < parts_.size(); ++p) {
    const int part = static_cast<int>(p);
    check_cuda(cudaMemcpyAsync(dst.data(part), src.data(part), bytes, cudaMemcpyDefault, parts_[p].stream),
               "cudaMemcpyAsync");
  }
  synchronize_parts("copy (cudaMemcpyAsync)");
}

void CudaDevice::synchronize() { synchronize_parts("cudaStreamSynchronize"); }

std::vector<std::pair<std::string, double>> CudaDevice::host_transfer_gbps() {
  const CopyBandwidth b = measure_copy_bandwidth(devices_.front());
  return {{"h2d", b.h2d / 1e9}, {"d2h", b.d2h / 1e9}};
}

PeerCopies CudaDevice::peer_copies() { return measure_peer_copies(); }

std::string CudaDevice::pci_bus_id() const {
  char id[64] = {};
  check_cuda(cudaDeviceGetPCIBusId(id, sizeof id, devices_.front()), "cudaDeviceGetPCIBusId");
  return id;
}

}  // namespace distbench::nccl
