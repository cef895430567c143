// Memory a Device hands out. A buffer may span several devices of one process (one part per local rank, e.g. the
// GPUs a process drives with -g); host buffers have one part.
#pragma once

#include <cstddef>
#include <memory>

namespace distbench {

class Buffer {
 public:
  virtual ~Buffer() = default;
  virtual std::size_t bytes() const = 0;  // bytes of each part
  virtual int parts() const { return 1; }
  virtual void* data(int part = 0) = 0;
};

// Memory owned by someone else (a tensor, a vector), seen as a one-part Buffer.
class ExternalBuffer final : public Buffer {
 public:
  ExternalBuffer(void* data, std::size_t bytes) : data_(data), bytes_(bytes) {}
  std::size_t bytes() const override { return bytes_; }
  void* data(int) override { return data_; }

 private:
  void* data_;
  std::size_t bytes_;
};

// A position inside a Buffer.
struct BufferRef {
  Buffer* buffer = nullptr;
  std::size_t byte_offset = 0;

  void* data(int part = 0) const { return static_cast<std::byte*>(buffer->data(part)) + byte_offset; }
  BufferRef at(std::size_t extra_bytes) const { return {buffer, byte_offset + extra_bytes}; }
};

}  // namespace distbench
