// How much of a benchmark's buffers the kernel really backs with huge pages, over every rank: the report's fact
// memory.buffer_huge_pages, and the console's line under the table (core/device/huge_pages.hpp says why it matters).
#pragma once

#include "core/comm/world.hpp"
#include "core/device/buffer.hpp"
#include "core/sys/key_values.hpp"
#include "core/sys/watchdog.hpp"

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace distbench {

// One rank's buffers: their bytes, and the bytes of them in huge pages.
struct RankPages {
  std::uint64_t bytes = 0;
  std::uint64_t huge = 0;
};

// The fact's text for each rank's figures: "60 MiB of 64 MiB (94%) on rank 1, the smallest share of 2 ranks";
// nullopt when there is nothing to say (no rank has buffer bytes).
std::optional<std::string> buffer_huge_pages_text(const std::vector<RankPages>& ranks);

// The rank with the smallest share of its buffers in huge pages (the first of equals); ranks.size() when no rank has
// buffer bytes.
std::size_t least_huge_share(const std::vector<RankPages>& ranks);

// Collective over the world's ranks: each rank measures `buffers` (allocated by the world's device) and the root
// gets the facts memory.buffer_huge_pages (the text above) and that rank's memory.buffer_bytes and
// memory.buffer_huge_page_bytes; empty on other ranks and where the device does not say (device memory). The gather
// is armed on `watchdog`.
KeyValues buffer_huge_pages_fact(World& world, std::initializer_list<Buffer*> buffers, Watchdog& watchdog);

}  // namespace distbench
