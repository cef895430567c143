// A device that forwards every call to a real one: tests derive from it to make one call wrong (a mutant) and
// override only that call.
#pragma once

#include "core/device/device.hpp"

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace distbench {

class ForwardingDevice : public Device {
 public:
  explicit ForwardingDevice(Device& real) : real_(real) {}

  std::string describe() const override { return real_.describe(); }
  std::uint64_t memory_available(int processes_sharing) const override {
    return real_.memory_available(processes_sharing);
  }
  int memory_sharers(int processes_on_host) const override { return real_.memory_sharers(processes_on_host); }
  std::unique_ptr<Buffer> allocate(std::size_t bytes) override { return real_.allocate(bytes); }
  std::unique_ptr<Buffer> allocate_placed(std::size_t bytes, HostPlacement placement) override {
    return real_.allocate_placed(bytes, placement);
  }
  void fill(BufferRef at, std::size_t count, DType dtype, const FillSpec& spec) override {
    real_.fill(at, count, dtype, spec);
  }
  void poison(BufferRef at, std::size_t bytes) override { real_.poison(at, bytes); }
  std::uint64_t count_wrong(BufferRef at, DType dtype, const CheckSpec& spec) override {
    return real_.count_wrong(at, dtype, spec);
  }
  void fill_expected(BufferRef at, DType dtype, const CheckSpec& spec,
                     std::span<const std::uint64_t> corrupt) override {
    real_.fill_expected(at, dtype, spec, corrupt);
  }
  void copy(BufferRef dst, BufferRef src, std::size_t bytes) override { real_.copy(dst, src, bytes); }
  void synchronize() override { real_.synchronize(); }
  std::vector<std::pair<std::string, double>> host_transfer_gbps() override { return real_.host_transfer_gbps(); }
  std::unique_ptr<Timer> make_timer() override { return real_.make_timer(); }
  DenseMath* math() override { return real_.math(); }
  bool host_memory() const override { return real_.host_memory(); }
  std::optional<std::uint64_t> huge_page_bytes(Buffer& buffer) override { return real_.huge_page_bytes(buffer); }

 protected:
  Device& real() { return real_; }

 private:
  Device& real_;
};

}  // namespace distbench
