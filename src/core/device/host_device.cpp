#include "core/device/host_device.hpp"

#include "core/device/checker_check.hpp"
#include "core/device/element.hpp"
#include "core/device/huge_pages.hpp"
#include "core/error.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <optional>
#include <string>
#include <vector>

namespace distbench {
namespace {

constexpr unsigned char kPoisonByte = 0xA5;  // no pattern value has this byte pattern in any dtype

// Host memory placed as glibc's malloc places it by default, whatever mallopt says: small blocks from the heap,
// large ones (from 128 KiB, glibc's default mmap threshold) in a memory map of their own, starting 16 bytes into
// its first page (after malloc's chunk header). Where a buffer sits changes MPI's copy speed (page-aligned send and
// receive buffers slowed large reductions: bench/README.md, Buffers and page faults), so the placement must not move
// when --malloc-reuse turns malloc's maps off for the library's temporaries: that switch changes only what it is for.
//
// A mapped buffer is kept from merging with its neighbours (by inaccessible pages on each side, whose flags differ),
// so /proc/self/smaps counts its huge pages alone. Every page of its data is touched once here, so the pages the
// kernel chose exist before anything is measured.
//
// With --huge-pages on, a buffer of 2 MiB or more starts its 2 MiB region: the data sits at the same offset into a
// page as above, but in the first page of a 2 MiB-aligned stretch that is advised MADV_HUGEPAGE and touched only
// after the advice, so every 2 MiB region the data fills can be one huge page (the partial region at its end keeps
// small pages). The policy is thus "huge pages wherever a whole one fits", the same at every size and in every
// process. An allocator that advises without aligning (numpy's arrays, from glibc's malloc) gets huge pages only on
// the regions its map happens to cover whole: one of the two of a 4 MiB array, or both, depending on where the
// kernel put the map (docs/measurements/2026-11-27-allreduce-vs-peers.md).
//
// HostPlacement::page_start instead starts the data at a page boundary, whatever the size (in a map of its own), as
// posix_memalign(page size) places the buffers of OSU's point-to-point benchmarks.
class HostBuffer final : public Buffer {
 public:
  HostBuffer(std::size_t bytes, HugePages policy, HostPlacement placement) : bytes_(bytes) {
    const std::size_t offset = placement == HostPlacement::page_start ? 0 : kChunkHeader;
    if (policy == HugePages::on && bytes >= kHugePageAdviceFrom) {
      map_huge_aligned(bytes, offset);
    } else if (bytes >= kOwnMapFrom || placement == HostPlacement::page_start) {
      map_own(bytes, offset);
    } else {
      base_ = std::malloc(bytes == 0 ? 1 : bytes);
      if (base_ == nullptr) throw std::bad_alloc();
      data_ = base_;
    }
  }
  ~HostBuffer() override {
    if (mapped_ != 0) {
      munmap(base_, mapped_);
    } else {
      std::free(base_);
    }
  }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  std::size_t bytes() const override { return bytes_; }
  void* data(int) override { return data_; }

  // Huge-page bytes in this buffer's own mapping (0 for a block from the heap, which is under 2 MiB).
  // At most the buffer's bytes: with --huge-pages on, the 16 bytes before the data share its first huge page.
  std::optional<std::uint64_t> huge_page_bytes() const {
    if (mapped_ == 0) return std::uint64_t{0};
    const auto huge = anon_huge_bytes(inner_, inner_bytes_);
    if (!huge) return huge;
    return std::min<std::uint64_t>(*huge, bytes_);
  }

 private:
  static constexpr std::size_t kOwnMapFrom = 128 * 1024;
  static constexpr std::size_t kChunkHeader = 16;
  static std::size_t page_size() { return static_cast<std::size_t>(sysconf(_SC_PAGESIZE)); }
  static std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

  // Reserves `length` bytes, all inaccessible; the callers open the pages the data needs.
  void reserve(std::size_t length) {
    void* map = mmap(nullptr, length, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) throw std::bad_alloc();
    base_ = map;
    mapped_ = length;
  }
  // Makes [first, first + length) readable and writable; `advise`: asks for huge pages there first.
  void open_pages(std::byte* first, std::size_t length, bool advise) {
    if (mprotect(first, length, PROT_READ | PROT_WRITE) != 0) {
      munmap(base_, mapped_);
      throw std::bad_alloc();
    }
    // Advice is a request: a kernel without THP refuses it (EINVAL), and the buffer keeps small pages.
    if (advise) madvise(first, length, MADV_HUGEPAGE);
    inner_ = first;
    inner_bytes_ = length;
  }
  static void touch(std::byte* from, std::size_t length) {
    const std::size_t page = page_size();
    for (std::size_t at = 0; at < length; at += page) from[at] = std::byte{0};
  }

  // malloc's placement: the data `offset` bytes into the first page of its accessible pages, between two
  // inaccessible ones.
  void map_own(std::size_t bytes, std::size_t offset) {
    const std::size_t page = page_size();
    const std::size_t inner = round_up(std::max<std::size_t>(bytes + offset, 1), page);
    reserve(inner + 2 * page);
    auto* first = static_cast<std::byte*>(base_) + page;
    open_pages(first, inner, false);
    touch(first, inner);
    data_ = first + offset;
  }

  // --huge-pages on: the data `offset` bytes into a 2 MiB-aligned stretch, advised before any of it is touched.
  void map_huge_aligned(std::size_t bytes, std::size_t offset) {
    const std::size_t page = page_size();
    const std::size_t inner = round_up(bytes + offset, page);
    reserve(inner + kHugePageAdviceFrom + page);  // room to align, and an inaccessible page past the end
    const auto start = reinterpret_cast<std::uintptr_t>(base_) + page;
    auto* first = reinterpret_cast<std::byte*>(round_up(start, kHugePageAdviceFrom));
    open_pages(first, inner, true);
    touch(first, inner);
    data_ = first + offset;
  }

  std::size_t bytes_;
  std::size_t mapped_ = 0;  // bytes mapped, guard pages included; 0 when the block came from malloc
  void* base_ = nullptr;
  std::byte* inner_ = nullptr;  // the accessible pages of a mapped buffer
  std::size_t inner_bytes_ = 0;
  void* data_ = nullptr;
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
  return allocate_placed(bytes, HostPlacement::malloc);
}

std::unique_ptr<Buffer> HostDevice::allocate_placed(std::size_t bytes, HostPlacement placement) {
  try {
    return std::make_unique<HostBuffer>(bytes, huge_pages_, placement);
  } catch (const std::bad_alloc&) {
    throw failure(
        fmt::format("could not allocate {} bytes of host memory; lower the sizes asked for (-e/--maxbytes, or the "
                    "command's size options)",
                    bytes));
  }
}

void HostDevice::fill(BufferRef at, std::size_t count, DType dtype, const FillSpec& spec) {
  if (count == 0) return;
  visit_storage(dtype, [&]<typename T>(T) {
    auto* out = static_cast<T*>(at.data());
    // One period from the formulas, then copies of what is already filled, doubling each time.
    const std::size_t period = std::min<std::size_t>(pattern_period(spec.pattern), count);
    for (std::size_t i = 0; i < period; ++i) {
      out[i] = encode_pattern<T>(dtype, pattern_input(spec.pattern, spec.first_rank, i));
    }
    for (std::size_t filled = period; filled < count;) {
      const std::size_t n = std::min(filled, count - filled) / period * period;
      const std::size_t take = n == 0 ? count - filled : n;  // the last, partial stretch
      std::memcpy(out + filled, out, take * sizeof(T));
      filled += take;
    }
  });
}

void HostDevice::poison(BufferRef at, std::size_t bytes) { std::memset(at.data(), kPoisonByte, bytes); }

std::uint64_t HostDevice::count_wrong(BufferRef at, DType dtype, const CheckSpec& spec) {
  const auto blocks =
      expected_blocks(spec.collective, spec.first_rank, spec.pattern.nranks, spec.call_count, spec.root);
  const auto period = static_cast<std::size_t>(pattern_period(spec.pattern));
  return visit_storage(dtype, [&]<typename T>(T) {
    const auto* data = static_cast<const T*>(at.data());
    std::vector<T> expected;
    std::uint64_t wrong = 0;
    for (const auto& block : blocks) {
      // The expected values repeat with the pattern's period: compare each stretch of one period with one table (no
      // longer than the block: prod's period is 183 n elements, 3 million at 16,384 ranks).
      const auto table = static_cast<std::size_t>(std::min<std::uint64_t>(period, block.count));
      expected.resize(table);
      for (std::size_t j = 0; j < table; ++j) {
        expected[j] = encode_pattern<T>(dtype, pattern_expected(spec.pattern, spec.op, block, j));
      }
      const T* result = data + block.offset;
      for (std::uint64_t first = 0; first < block.count; first += period) {
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(period, block.count - first));
        for (std::size_t j = 0; j < n; ++j) wrong += !(result[first + j] == expected[j]);
      }
    }
    return wrong;
  });
}

void HostDevice::fill_expected(BufferRef at, DType dtype, const CheckSpec& spec,
                               std::span<const std::uint64_t> corrupt) {
  const auto blocks =
      expected_blocks(spec.collective, spec.first_rank, spec.pattern.nranks, spec.call_count, spec.root);
  visit_storage(dtype, [&]<typename T>(T) {
    auto* out = static_cast<T*>(at.data());
    for (const auto& block : blocks) {
      for (std::uint64_t j = 0; j < block.count; ++j) {
        out[block.offset + j] = encode_pattern<T>(dtype, pattern_expected(spec.pattern, spec.op, block, j));
      }
    }
  });
  auto* first = static_cast<std::byte*>(at.data());
  for (const std::uint64_t i : corrupt) corrupt_element(dtype, first + i * size_of(dtype));
}

std::optional<std::uint64_t> HostDevice::huge_page_bytes(Buffer& buffer) {
  const auto* host = dynamic_cast<const HostBuffer*>(&buffer);
  return host == nullptr ? std::nullopt : host->huge_page_bytes();
}

void HostDevice::copy(BufferRef dst, BufferRef src, std::size_t bytes) {
  if (bytes != 0) std::memmove(dst.data(), src.data(), bytes);
}

}  // namespace distbench
