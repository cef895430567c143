#include "core/device/memory_budget.hpp"

#include "core/measure/sizes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace distbench {

std::uint64_t add_saturating(std::uint64_t a, std::uint64_t b) {
  return a > std::numeric_limits<std::uint64_t>::max() - b ? std::numeric_limits<std::uint64_t>::max() : a + b;
}

std::uint64_t memory_reserve(std::uint64_t available) {
  constexpr std::uint64_t kMinReserve = 256ULL << 20;
  return std::max(available / 20, kMinReserve);
}

std::optional<std::string> memory_shortfall(const MemoryNeed& need, std::uint64_t available) {
  if (available == 0) return std::nullopt;
  const std::uint64_t reserve = memory_reserve(available);
  const std::uint64_t total = add_saturating(add_saturating(need.buffers, need.library), reserve);
  if (total <= available) return std::nullopt;
  const std::string library =
      need.library > 0 ? fmt::format(" and up to {} more for the library's own per call", format_bytes(need.library))
                       : "";
  return fmt::format("needs {} of buffers per rank{}, but each rank has {} available, {} of which stay free for the "
                     "system",
                     need.buffers == std::numeric_limits<std::uint64_t>::max() ? "more than 16 EiB"
                                                                               : format_bytes(need.buffers),
                     library, format_bytes(available), format_bytes(reserve));
}

}  // namespace distbench
