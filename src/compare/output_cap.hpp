// A run's output kept within a cap: its first bytes written through to the log as they come, its last bytes in a
// ring, and between the two one line saying how many bytes were dropped. A run that prints 300 MB without a newline
// costs the ring, not 300 MB. It allocates nothing and makes no call but write(2): it runs in the keeper
// (keeper.hpp), a process forked from a threaded one, where only system calls are safe.
#pragma once

#include <cstddef>
#include <cstdint>

namespace distbench::compare {

inline constexpr std::size_t kOutputHeadBytes = 1 << 20;  // the log keeps a run's first MiB of output
inline constexpr std::size_t kOutputTailBytes = 1 << 20;  // and its last MiB

class OutputCap {
 public:
  // Writes to `fd`; keeps `head` bytes from the start and up to `tail` bytes from the end in `ring` (`tail` bytes
  // long, owned by the caller).
  OutputCap(int fd, std::size_t head, char* ring, std::size_t tail);

  void take(const char* data, std::size_t n);
  // Writes the line about what was dropped (when something was) and the ring, oldest byte first. Once, at the end.
  void finish();

  std::uint64_t total() const { return total_; }
  std::uint64_t dropped() const { return total_ > head_ + tail_ ? total_ - head_ - tail_ : 0; }

 private:
  int fd_;
  std::size_t head_;
  char* ring_;
  std::size_t tail_;
  std::uint64_t total_ = 0;
  std::size_t ring_used_ = 0, ring_next_ = 0;  // bytes in the ring; where the next byte goes
};

// The line between the head and the tail: "\n[... 123 bytes of output dropped here by distbench compare: the log
// keeps the first 1048576 and the last 1048576 bytes ...]\n", into `out` (`capacity` bytes, 256 suffice); its length.
std::size_t dropped_line(char* out, std::size_t capacity, std::uint64_t dropped, std::size_t head, std::size_t tail);

// write(2) of all `n` bytes, retried on EINTR and short writes; false when the file refuses them.
bool write_all(int fd, const char* data, std::size_t n);

}  // namespace distbench::compare
