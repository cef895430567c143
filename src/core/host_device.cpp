#include "core/host_device.hpp"

#include "core/element.hpp"
#include "core/error.hpp"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <string>

namespace distbench {
namespace {

constexpr unsigned char kPoisonByte = 0xA5;  // no pattern value has this byte pattern in any dtype

class HostBuffer final : public Buffer {
 public:
  // malloc, as applications allocate host buffers: large blocks then start 16 bytes into a page. Page-aligned send
  // and receive buffers made large MPI reductions up to 30% slower here (bench/README.md), a cost that buffers
  // allocated the usual way do not pay.
  explicit HostBuffer(std::size_t bytes) : bytes_(bytes), data_(std::malloc(bytes == 0 ? 1 : bytes)) {
    if (data_ == nullptr) throw std::bad_alloc();
  }
  ~HostBuffer() override { std::free(data_); }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  std::size_t bytes() const override { return bytes_; }
  void* data(int) override { return data_; }

 private:
  std::size_t bytes_;
  void* data_;
};

// MemAvailable from /proc/meminfo, in bytes; 0 when unknown.
std::uint64_t meminfo_available() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t value = 0;
  std::string unit;
  while (in >> key >> value) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return value * 1024;
  }
  return 0;
}

}  // namespace

std::string HostDevice::describe() const { return "cpu (host memory)"; }

std::uint64_t HostDevice::memory_available(int processes_sharing) const {
  return meminfo_available() / static_cast<std::uint64_t>(processes_sharing < 1 ? 1 : processes_sharing);
}

std::unique_ptr<Buffer> HostDevice::allocate(std::size_t bytes) {
  try {
    return std::make_unique<HostBuffer>(bytes);
  } catch (const std::bad_alloc&) {
    throw failure(fmt::format("could not allocate {} bytes of host memory; lower -e/--maxbytes", bytes));
  }
}

void HostDevice::fill(BufferRef at, std::size_t count, DType dtype, const FillSpec& spec) {
  visit_storage(dtype, [&]<typename T>(T) {
    auto* out = static_cast<T*>(at.data());
    for (std::size_t i = 0; i < count; ++i) {
      out[i] = encode_integer<T>(dtype, pattern_input(spec.pattern, spec.first_rank, i));
    }
  });
}

void HostDevice::poison(BufferRef at, std::size_t bytes) { std::memset(at.data(), kPoisonByte, bytes); }

std::uint64_t HostDevice::count_wrong(BufferRef at, DType dtype, const CheckSpec& spec) {
  const auto blocks =
      expected_blocks(spec.collective, spec.first_rank, spec.pattern.nranks, spec.call_count, spec.root);
  return visit_storage(dtype, [&]<typename T>(T) {
    const auto* data = static_cast<const T*>(at.data());
    std::uint64_t wrong = 0;
    for (const auto& block : blocks) {
      for (std::uint64_t j = 0; j < block.count; ++j) {
        const T expected = encode_integer<T>(dtype, pattern_expected(spec.pattern, spec.op, block, j));
        if (!(data[block.offset + j] == expected)) ++wrong;
      }
    }
    return wrong;
  });
}

void HostDevice::copy(BufferRef dst, BufferRef src, std::size_t bytes) {
  if (bytes != 0) std::memmove(dst.data(), src.data(), bytes);
}

}  // namespace distbench
