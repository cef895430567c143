// Bytes this process sent as the communication library itself counts them: a measured figure to set beside a
// formula's (zero --count-bytes). A capability a backend may have; the benchmark asks for it through the backend and
// says why it is missing where it is.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace distbench {

class TrafficCounter {
 public:
  virtual ~TrafficCounter() = default;
  // Bytes this rank has sent to the other ranks since the counter was opened (messages to itself left out).
  virtual std::uint64_t sent_bytes() = 0;
};

// A counter, or why there is none.
struct TrafficCounting {
  std::unique_ptr<TrafficCounter> counter;
  std::string unavailable;  // set when `counter` is null
};

}  // namespace distbench
