#include "compare/output_cap.hpp"

#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <cstring>

namespace distbench::compare {
namespace {

// `text` appended at `at` within `capacity`; the new end.
std::size_t append_text(char* out, std::size_t capacity, std::size_t at, const char* text) {
  const std::size_t n = std::min(std::strlen(text), capacity - std::min(at, capacity));
  std::memcpy(out + at, text, n);
  return at + n;
}

// `value` in decimal appended at `at`; the new end.
std::size_t append_number(char* out, std::size_t capacity, std::size_t at, std::uint64_t value) {
  char digits[24];
  std::size_t n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  while (n > 0 && at < capacity) out[at++] = digits[--n];
  return at;
}

}  // namespace

bool write_all(int fd, const char* data, std::size_t n) {
  while (n > 0) {
    const ssize_t done = ::write(fd, data, n);
    if (done < 0 && errno == EINTR) continue;
    if (done <= 0) return false;
    data += done;
    n -= static_cast<std::size_t>(done);
  }
  return true;
}

std::size_t dropped_line(char* out, std::size_t capacity, std::uint64_t dropped, std::size_t head, std::size_t tail) {
  std::size_t at = append_text(out, capacity, 0, "\n[... ");
  at = append_number(out, capacity, at, dropped);
  at = append_text(out, capacity, at, " bytes of output dropped here by distbench compare: the log keeps the first ");
  at = append_number(out, capacity, at, head);
  at = append_text(out, capacity, at, " and the last ");
  at = append_number(out, capacity, at, tail);
  return append_text(out, capacity, at, " bytes ...]\n");
}

OutputCap::OutputCap(int fd, std::size_t head, char* ring, std::size_t tail)
    : fd_(fd), head_(head), ring_(ring), tail_(tail) {}

void OutputCap::take(const char* data, std::size_t n) {
  if (total_ < head_) {
    const std::size_t through = static_cast<std::size_t>(std::min<std::uint64_t>(n, head_ - total_));
    write_all(fd_, data, through);  // a log that refuses writes loses output, not the run
    total_ += through;
    data += through;
    n -= through;
  }
  total_ += n;
  if (tail_ == 0) return;
  if (n >= tail_) {  // only the last tail_ bytes of this piece can stay
    std::memcpy(ring_, data + (n - tail_), tail_);
    ring_used_ = tail_;
    ring_next_ = 0;
    return;
  }
  const std::size_t first = std::min(n, tail_ - ring_next_);
  std::memcpy(ring_ + ring_next_, data, first);
  std::memcpy(ring_, data + first, n - first);
  ring_next_ = (ring_next_ + n) % tail_;
  ring_used_ = std::min(tail_, ring_used_ + n);
}

void OutputCap::finish() {
  if (const std::uint64_t gone = dropped(); gone > 0) {
    char line[256];
    write_all(fd_, line, dropped_line(line, sizeof line, gone, head_, tail_));
  }
  if (ring_used_ < tail_) {
    write_all(fd_, ring_, ring_used_);  // never wrapped: it starts at 0
  } else {
    write_all(fd_, ring_ + ring_next_, tail_ - ring_next_);
    write_all(fd_, ring_, ring_next_);
  }
  ring_used_ = ring_next_ = 0;
}

}  // namespace distbench::compare
