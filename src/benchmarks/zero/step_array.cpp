#include "benchmarks/zero/step_array.hpp"

#include "core/error.hpp"

#include <fmt/format.h>

namespace distbench::zero {

StepArray::StepArray(std::size_t bytes, Device* device, DenseMath* math) : bytes_(bytes) {
  if (math == nullptr || bytes == 0) {
    host_.assign(bytes, std::byte{0});
    host_view_ = ExternalBuffer(host_.data(), host_.size());
    return;
  }
  if (device == nullptr) throw failure("a ZeRO step array on a device needs the device that allocates it");
  math_ = math;
  device_buffer_ = device->allocate(bytes);
  if (bytes > 0) math_->zero(device_buffer_->data(), bytes);
}

std::byte* StepArray::host() {
  if (host_.size() != bytes_) host_.assign(bytes_, std::byte{0});
  return host_.data();
}

const std::byte* StepArray::host() const {
  if (host_.size() != bytes_) host_.assign(bytes_, std::byte{0});
  return host_.data();
}

void StepArray::upload(std::size_t offset, std::size_t bytes) {
  if (!on_device() || bytes == 0) return;
  if (offset + bytes > bytes_) {
    throw failure(fmt::format("upload of bytes [{}, {}) past a step array of {}", offset, offset + bytes, bytes_));
  }
  math_->upload(data() + offset, host() + offset, bytes);
}

void StepArray::download(std::size_t offset, std::size_t bytes) {
  if (!on_device() || bytes == 0) return;
  if (offset + bytes > bytes_) {
    throw failure(fmt::format("download of bytes [{}, {}) past a step array of {}", offset, offset + bytes, bytes_));
  }
  math_->download(host() + offset, data() + offset, bytes);
}

void StepArray::drop_host_copy() {
  if (!on_device()) return;
  host_.clear();
  host_.shrink_to_fit();
}

}  // namespace distbench::zero
