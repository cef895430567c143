// The host as a Device: page-aligned host memory, filled and checked by the CPU.
#pragma once

#include "core/device.hpp"

namespace distbench {

class HostDevice final : public Device {
 public:
  std::string describe() const override;
  std::uint64_t memory_available(int processes_sharing) const override;
  std::unique_ptr<Buffer> allocate(std::size_t bytes) override;
  void fill(BufferRef at, std::size_t count, DType dtype, const FillSpec& spec) override;
  void poison(BufferRef at, std::size_t bytes) override;
  std::uint64_t count_wrong(BufferRef at, DType dtype, const CheckSpec& spec) override;
  void copy(BufferRef dst, BufferRef src, std::size_t bytes) override;
  void synchronize() override {}
};

}  // namespace distbench
