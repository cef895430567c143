// The host as a Device: host memory placed as malloc places it (huge pages by --huge-pages), filled and checked by the
// CPU.
#pragma once

#include "core/device/device.hpp"
#include "core/device/huge_pages.hpp"

namespace distbench {

class HostDevice final : public Device {
 public:
  explicit HostDevice(HugePages huge_pages = HugePages::off) : huge_pages_(huge_pages) {}

  std::string describe() const override;
  std::uint64_t memory_available(int processes_sharing) const override;
  std::unique_ptr<Buffer> allocate(std::size_t bytes) override;
  std::unique_ptr<Buffer> allocate_placed(std::size_t bytes, HostPlacement placement) override;
  void fill(BufferRef at, std::size_t count, DType dtype, const FillSpec& spec) override;
  void poison(BufferRef at, std::size_t bytes) override;
  std::uint64_t count_wrong(BufferRef at, DType dtype, const CheckSpec& spec) override;
  void fill_expected(BufferRef at, DType dtype, const CheckSpec& spec, std::span<const std::uint64_t> corrupt) override;
  void copy(BufferRef dst, BufferRef src, std::size_t bytes) override;
  void synchronize() override {}
  bool host_memory() const override { return true; }
  std::optional<std::uint64_t> huge_page_bytes(Buffer& buffer) override;

 private:
  HugePages huge_pages_;
};

}  // namespace distbench
