#include "core/comm/buffer_pages.hpp"

#include "core/measure/sizes.hpp"

#include <fmt/format.h>

#include <array>
#include <span>

namespace distbench {

namespace {

double huge_share(const RankPages& p) { return static_cast<double>(p.huge) / static_cast<double>(p.bytes); }

}  // namespace

std::size_t least_huge_share(const std::vector<RankPages>& ranks) {
  std::size_t least = ranks.size();
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    if (ranks[r].bytes == 0) continue;
    if (least == ranks.size() || huge_share(ranks[r]) < huge_share(ranks[least])) least = r;
  }
  return least;
}

std::optional<std::string> buffer_huge_pages_text(const std::vector<RankPages>& ranks) {
  const std::size_t least = least_huge_share(ranks);
  if (least == ranks.size()) return std::nullopt;
  const RankPages& p = ranks[least];
  return fmt::format("{} of {} ({:.0f}%) on rank {}, the smallest share of {} {}", format_bytes(p.huge),
                     format_bytes(p.bytes), 100.0 * huge_share(p), least, ranks.size(),
                     ranks.size() == 1 ? "rank" : "ranks");
}

KeyValues buffer_huge_pages_fact(World& world, std::initializer_list<Buffer*> buffers, Watchdog& watchdog) {
  // Every rank takes part in the gather, also one whose device cannot say (it sends -1).
  std::array<double, 2> mine{0.0, 0.0};
  for (Buffer* b : buffers) {
    const auto huge = world.device().huge_page_bytes(*b);
    if (!huge) {
      mine = {-1.0, -1.0};
      break;
    }
    mine[0] += static_cast<double>(b->bytes());
    mine[1] += static_cast<double>(*huge);
  }
  Connector& connector = world.connector();
  std::vector<std::vector<double>> by_rank;
  {
    const ArmedStep step = watchdog.arm(StepKind::gather, "gathering the buffers' huge pages");
    by_rank = gather_vector<double>(connector, std::span<const double>(mine), connector.root_rank(), step);
  }
  if (!connector.is_root()) return {};
  std::vector<RankPages> ranks;
  for (const auto& r : by_rank) {
    if (r.size() != 2 || r[0] < 0) return {};
    ranks.push_back({static_cast<std::uint64_t>(r[0]), static_cast<std::uint64_t>(r[1])});
  }
  const auto text = buffer_huge_pages_text(ranks);
  if (!text) return {};
  const RankPages& least = ranks[least_huge_share(ranks)];
  return {{"memory.buffer_huge_pages", *text},
          {"memory.buffer_bytes", std::to_string(least.bytes)},
          {"memory.buffer_huge_page_bytes", std::to_string(least.huge)}};
}

}  // namespace distbench
