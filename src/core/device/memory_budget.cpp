#include "core/device/memory_budget.hpp"

#include "core/device/device.hpp"
#include "core/measure/sizes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace distbench {

std::uint64_t add_saturating(std::uint64_t a, std::uint64_t b) {
  return a > std::numeric_limits<std::uint64_t>::max() - b ? std::numeric_limits<std::uint64_t>::max() : a + b;
}

MemoryShare memory_share(const Device& device, int processes_on_host) {
  return {device.memory_available(processes_on_host), std::max(1, device.memory_sharers(processes_on_host))};
}

std::uint64_t memory_reserve(std::uint64_t available) {
  constexpr std::uint64_t kMinReserve = 256ULL << 20;
  return std::max(available / 20, kMinReserve);
}

std::uint64_t memory_reserve_share(const MemoryShare& share) {
  const auto sharing = static_cast<std::uint64_t>(std::max(1, share.sharing));
  const std::uint64_t whole = share.available > std::numeric_limits<std::uint64_t>::max() / sharing
                                  ? std::numeric_limits<std::uint64_t>::max()
                                  : share.available * sharing;
  const std::uint64_t reserve = memory_reserve(whole);
  return reserve / sharing + (reserve % sharing != 0 ? 1 : 0);
}

std::optional<std::string> memory_shortfall(const MemoryNeed& need, const MemoryShare& share) {
  if (share.available == 0) return std::nullopt;
  const std::uint64_t reserve = memory_reserve_share(share);
  const std::uint64_t total = add_saturating(add_saturating(need.buffers, need.library), reserve);
  if (total <= share.available) return std::nullopt;
  const std::string library =
      need.library > 0 ? fmt::format(" and up to {} more for the library's own per call", format_bytes(need.library))
                       : "";
  const std::string buffers =
      need.buffers == std::numeric_limits<std::uint64_t>::max() ? "more than 16 EiB" : format_bytes(need.buffers);
  if (share.sharing <= 1) {
    return fmt::format(
        "needs {} of buffers per rank{}, but the rank has {} available, {} of which stay free for the "
        "system",
        buffers, library, format_bytes(share.available), format_bytes(reserve));
  }
  return fmt::format(
      "needs {} of buffers per rank{}, but each of the {} ranks sharing the memory has {} available, "
      "{} of which stay free for the system (its part of the reserve kept once for all of them)",
      buffers, library, share.sharing, format_bytes(share.available), format_bytes(reserve));
}

}  // namespace distbench
