// A Device: the memory space and the little compute that benchmarks need around communication.
#pragma once

#include "core/device/buffer.hpp"
#include "core/device/dense_math.hpp"
#include "core/device/dtype.hpp"
#include "core/device/pattern.hpp"
#include "core/device/peer_copies.hpp"
#include "core/measure/timer.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace distbench {

// Fill a buffer with the input of rank `first_rank + part` for each part.
struct FillSpec {
  PatternParams pattern;
  int first_rank = 0;
};

// Check the result of one call on rank `first_rank + part` for each part.
struct CheckSpec {
  PatternParams pattern;
  ReduceOp op = ReduceOp::sum;
  Collective collective = Collective::allreduce;
  std::size_t call_count = 0;
  int root = 0;
  int first_rank = 0;
};

// Where host data starts: as glibc's malloc places a block (a large one 16 bytes into a page of its own map: IMB's,
// mpi4py's and numpy's buffers), or at a page boundary (posix_memalign(page size): OSU's point-to-point buffers).
// Placement changes copy speeds (page-aligned buffers can make large reductions slower and small point-to-point
// messages faster: bench/README.md), so a comparison with a peer places buffers as the peer does.
enum class HostPlacement { malloc, page_start };

class Device {
 public:
  virtual ~Device() = default;

  virtual std::string describe() const = 0;
  // Bytes this process may still allocate (its share when several processes share the memory).
  virtual std::uint64_t memory_available(int processes_sharing) const = 0;
  // How many processes share the memory memory_available divides, on a host with `processes_on_host` ranks: all of
  // them for host memory; a GPU's own count for device memory. The memory check keeps its reserve once for all.
  virtual int memory_sharers(int processes_on_host) const { return processes_on_host < 1 ? 1 : processes_on_host; }
  virtual std::unique_ptr<Buffer> allocate(std::size_t bytes) = 0;
  // The same, placed as asked on host memory; device memory has one placement (allocate's).
  virtual std::unique_ptr<Buffer> allocate_placed(std::size_t bytes, HostPlacement placement) {
    (void)placement;
    return allocate(bytes);
  }

  // Element i of the buffer at `at` gets the pattern's input value for index i.
  virtual void fill(BufferRef at, std::size_t count, DType dtype, const FillSpec& spec) = 0;
  // Overwrite with a value no pattern produces, so that an element the collective never wrote counts as wrong.
  virtual void poison(BufferRef at, std::size_t bytes) = 0;
  // Number of elements of the result at `at` that differ from the exact expected values, summed over the parts.
  virtual std::uint64_t count_wrong(BufferRef at, DType dtype, const CheckSpec& spec) = 0;
  // Writes the result count_wrong expects for `spec` (the elements of its expected blocks, nothing else), then
  // corrupts the elements at `corrupt` (indices from `at`, in every part) as corrupt_element() does: the
  // known-corrupted copy on which the checker is checked (checker_check.hpp).
  virtual void fill_expected(BufferRef at, DType dtype, const CheckSpec& spec,
                             std::span<const std::uint64_t> corrupt) = 0;
  virtual void copy(BufferRef dst, BufferRef src, std::size_t bytes) = 0;
  // Wait for all work queued on this device (host: nothing to wait for).
  virtual void synchronize() = 0;
  // Bandwidths between host memory and this device, in GB/s (bytes copied per second / 1e9), keyed "h2d" and
  // "d2h"; none for a device that is host memory.
  virtual std::vector<std::pair<std::string, double>> host_transfer_gbps() { return {}; }
  // The device's model as its maker names it ("NVIDIA H200"), for the table of known hardware; "" for host memory.
  virtual std::string model_name() const { return ""; }
  // The device's PCI bus id ("0000:1B:00.0"), by which NVML finds it; "" for host memory.
  virtual std::string pci_bus_id() const { return ""; }
  // Copy bandwidth between every ordered pair of the GPUs this process can see (health's gpu phase); host memory
  // has none, and says so.
  virtual PeerCopies peer_copies() {
    PeerCopies none;
    none.skipped = "host memory: no GPUs to copy between";
    return none;
  }
  // A timer for compute-only phases run on this device (e.g. an optimizer update between two collectives). Every
  // Device operation completes before it returns, so the host clock times it.
  virtual std::unique_ptr<Timer> make_timer() { return std::make_unique<HostTimer>(); }
  // The dense math of a device with a queue of its own (a GPU: cuBLAS and kernels, ordered before the backend's
  // collectives); null for host memory, where a benchmark computes on the CPU itself (numerics/host_math.hpp).
  virtual DenseMath* math() { return nullptr; }
  // Whether its buffers are host memory, which the CPU reads and computes on directly (where math() is null, a
  // benchmark computes there with numerics/host_math.hpp).
  virtual bool host_memory() const { return false; }
  // Bytes of `buffer` (one this device allocated) that the kernel backs with huge pages, for host memory; nullopt
  // where that does not apply (device memory) or the system does not say.
  virtual std::optional<std::uint64_t> huge_page_bytes(Buffer& buffer) {
    (void)buffer;
    return std::nullopt;
  }
};

}  // namespace distbench
