// One array of a ZeRO step (parameters, gradients, a buffer, the master weights or a moment) where the step's backend
// works on it: host memory (MPI), or the memory of a device with math of its own (a GPU under NCCL), where a host copy
// exists only while the step sets the array up or a check reads it.
#pragma once

#include "core/device/buffer.hpp"
#include "core/device/dense_math.hpp"
#include "core/device/device.hpp"

#include <cstddef>
#include <memory>
#include <vector>

namespace distbench::zero {

class StepArray {
 public:
  StepArray() = default;
  // `bytes` zero bytes: in host memory when `math` is null, else allocated by `device` (whose memory `math` computes
  // on, uploads to and downloads from).
  StepArray(std::size_t bytes, Device* device, DenseMath* math);

  std::size_t bytes() const { return bytes_; }
  bool on_device() const { return device_buffer_ != nullptr; }
  // What collectives see.
  Buffer& buffer() { return on_device() ? *device_buffer_ : host_view_; }
  // Where the update works: the array itself.
  std::byte* data() { return static_cast<std::byte*>(buffer().data()); }
  // Host bytes: the array itself in host memory, else its host copy (made on first use, zero; not the device's
  // content until download()).
  std::byte* host();
  const std::byte* host() const;
  // The host copy's [offset, offset + bytes) to the device, and back; nothing in host memory.
  void upload(std::size_t offset, std::size_t bytes);
  void download(std::size_t offset, std::size_t bytes);
  void download() { download(0, bytes_); }
  // Frees the host copy of a device array (its content is the device's).
  void drop_host_copy();

 private:
  std::size_t bytes_ = 0;
  DenseMath* math_ = nullptr;
  std::unique_ptr<Buffer> device_buffer_;
  mutable std::vector<std::byte> host_;  // the array (host memory) or its copy
  ExternalBuffer host_view_{nullptr, 0};
};

}  // namespace distbench::zero
