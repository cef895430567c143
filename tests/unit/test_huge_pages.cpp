// Huge pages for host buffers (core/device/huge_pages, core/comm/buffer_pages, core/device/host_device): the THP mode
// and smaps as the
// kernel writes them, the policy reaching the buffers' mappings, and the report's text.
#include "core/comm/buffer_pages.hpp"
#include "core/device/host_device.hpp"
#include "core/device/huge_pages.hpp"
#include "core/error.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

namespace distbench {
namespace {

TEST(HugePages, PolicyNames) {
  EXPECT_EQ(parse_huge_pages("off"), HugePages::off);
  EXPECT_EQ(parse_huge_pages("on"), HugePages::on);
  EXPECT_EQ(huge_pages_name(HugePages::on), "on");
  try {
    parse_huge_pages("always");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
  }
}

TEST(HugePages, ThpModeIsTheBracketedWord) {
  EXPECT_EQ(parse_thp_mode("always [madvise] never\n"), "madvise");
  EXPECT_EQ(parse_thp_mode("[always] madvise never"), "always");
  EXPECT_EQ(parse_thp_mode("always madvise [never]"), "never");
  EXPECT_EQ(parse_thp_mode("always madvise never"), std::nullopt);
  EXPECT_EQ(parse_thp_mode("[]"), std::nullopt);
  EXPECT_EQ(parse_thp_mode(""), std::nullopt);
}

TEST(HugePages, PoliciesDifferOnlyInMadviseModeFromTwoMiB) {
  EXPECT_TRUE(huge_page_policies_differ("madvise", 2 << 20));
  EXPECT_FALSE(huge_page_policies_differ("madvise", (2 << 20) - 1));
  EXPECT_FALSE(huge_page_policies_differ("always", 64 << 20));  // every large buffer may get huge pages anyway
  EXPECT_FALSE(huge_page_policies_differ("never", 64 << 20));
  EXPECT_FALSE(huge_page_policies_differ("unknown", 64 << 20));
}

constexpr const char* kSmaps =
    "7f0000000000-7f0000400000 rw-p 00000000 00:00 0 \n"
    "Size:               4096 kB\n"
    "AnonHugePages:      2048 kB\n"
    "VmFlags: rd wr mr mw me ac hg \n"
    "7f0000400000-7f0000401000 ---p 00000000 00:00 0 \n"
    "Size:                  4 kB\n"
    "AnonHugePages:         0 kB\n"
    "7f0000401000-7f0000c01000 rw-p 00000000 00:00 0 \n"
    "Size:               8192 kB\n"
    "AnonHugePages:      6144 kB\n";

TEST(HugePages, AnonHugeBytesOfTheMappingsThatOverlapTheRange) {
  EXPECT_EQ(parse_anon_huge_bytes(kSmaps, 0x7f0000000000, 0x400000), 2048u * 1024);
  EXPECT_EQ(parse_anon_huge_bytes(kSmaps, 0x7f0000000010, 16), 2048u * 1024);  // inside the first mapping
  EXPECT_EQ(parse_anon_huge_bytes(kSmaps, 0x7f0000401010, 0x100000), 6144u * 1024);
  EXPECT_EQ(parse_anon_huge_bytes(kSmaps, 0x7f00003ff000, 0x3000), 8192u * 1024);  // spans all three
  EXPECT_EQ(parse_anon_huge_bytes(kSmaps, 0x7f0000c01000, 0x1000), 0u);            // just past the last
  EXPECT_EQ(parse_anon_huge_bytes("", 0x1000, 0x1000), 0u);
  EXPECT_EQ(parse_anon_huge_bytes("garbage\nAnonHugePages: 12 kB\n", 0, ~std::uintptr_t{0} / 2), 0u);
}

TEST(HugePages, TheTextNamesTheRankWithTheSmallestShare) {
  EXPECT_EQ(buffer_huge_pages_text({{32 << 20, 28 << 20}, {32 << 20, 30 << 20}}),
            "28 MiB of 32 MiB (88%) on rank 0, the smallest share of 2 ranks");
  EXPECT_EQ(buffer_huge_pages_text({{8 << 20, 8 << 20}, {8 << 20, 0}, {8 << 20, 4 << 20}}),
            "0 B of 8 MiB (0%) on rank 1, the smallest share of 3 ranks");
  EXPECT_EQ(buffer_huge_pages_text({{1024, 0}}), "0 B of 1 KiB (0%) on rank 0, the smallest share of 1 rank");
  EXPECT_EQ(buffer_huge_pages_text({{0, 0}}), std::nullopt);
  EXPECT_EQ(buffer_huge_pages_text({}), std::nullopt);
}

// The VmFlags of the mapping that holds `at`, from this process's smaps ("" when none does).
std::string vm_flags_at(const void* at) {
  std::ifstream in("/proc/self/smaps");
  const auto address = reinterpret_cast<std::uintptr_t>(at);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    std::uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= address && address < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line + " ";
    }
  }
  return {};
}

// The first and last byte of the mapping that holds `at`.
std::pair<std::uintptr_t, std::uintptr_t> mapping_at(const void* at) {
  std::ifstream in("/proc/self/smaps");
  const auto address = reinterpret_cast<std::uintptr_t>(at);
  std::string line;
  while (std::getline(in, line)) {
    std::uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> begin >> dash >> end && dash == '-' && begin <= address && address < end) {
      return {begin, end};
    }
  }
  return {0, 0};
}

TEST(HugePages, OnAdvisesTheBufferAndOffDoesNot) {
  HostDevice off(HugePages::off);
  HostDevice on(HugePages::on);
  auto plain = off.allocate(4 << 20);
  auto advised = on.allocate(4 << 20);
  auto small = on.allocate((2 << 20) - 1);  // below a huge page: never advised
  EXPECT_EQ(vm_flags_at(plain->data()).find(" hg "), std::string::npos) << vm_flags_at(plain->data());
  EXPECT_NE(vm_flags_at(advised->data()).find(" hg "), std::string::npos) << vm_flags_at(advised->data());
  EXPECT_EQ(vm_flags_at(small->data()).find(" hg "), std::string::npos) << vm_flags_at(small->data());
  // What the report says stays within the buffer; in madvise mode, a buffer without the advice has no huge page.
  for (auto* b : {plain.get(), advised.get()}) {
    const auto huge = off.huge_page_bytes(*b);
    ASSERT_TRUE(huge.has_value());
    EXPECT_LE(*huge, b->bytes() + 4096);
  }
  if (thp_mode() == "madvise") {
    EXPECT_EQ(*off.huge_page_bytes(*plain), 0u);
  }
}

TEST(HugePages, OnStartsTheBufferOnATwoMiBBoundarySoEveryWholeTwoMiBCanBeAHugePage) {
  HostDevice on(HugePages::on);
  constexpr std::uintptr_t kTwoMiB = std::uintptr_t{2} << 20;
  for (std::size_t bytes : {std::size_t{2} << 20, (std::size_t{4} << 20) + 12, std::size_t{9} << 20}) {
    auto b = on.allocate(bytes);
    const auto at = reinterpret_cast<std::uintptr_t>(b->data());
    EXPECT_EQ(at % kTwoMiB, 16u) << bytes;  // malloc's offset into a page, in the first page of a 2 MiB region
    const auto [begin, end] = mapping_at(b->data());
    EXPECT_EQ(begin, at - 16) << bytes;  // the advised mapping starts at that boundary, alone
    EXPECT_GE(end, at + bytes) << bytes;
    EXPECT_NE(vm_flags_at(b->data()).find(" hg "), std::string::npos) << bytes;
    static_cast<char*>(b->data())[bytes - 1] = 1;  // writable end to end
    const auto huge = on.huge_page_bytes(*b);
    ASSERT_TRUE(huge.has_value());
    EXPECT_LE(*huge, bytes) << bytes;  // at most the whole 2 MiB regions the data fills
  }
  // OSU's placement (a page boundary) with huge pages: the data at the 2 MiB boundary itself
  auto p = on.allocate_placed(4 << 20, HostPlacement::page_start);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p->data()) % kTwoMiB, 0u);
  // below 2 MiB, on changes nothing: malloc's placement
  auto small = on.allocate(1 << 20);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(small->data()), mapping_at(small->data()).first + 16);
}

TEST(HugePages, EveryMappedBufferHasAMappingOfItsOwnAndMallocsPlacement) {
  HostDevice device(HugePages::off);
  auto a = device.allocate(1 << 20);
  auto b = device.allocate(1 << 20);
  const auto ma = mapping_at(a->data());
  const auto mb = mapping_at(b->data());
  ASSERT_NE(ma.first, 0u);
  EXPECT_NE(ma, mb);  // two neighbours never merge into one mapping
  // the data starts 16 bytes into its mapping, as glibc's malloc places a large block, and ends inside it
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a->data()), ma.first + 16);
  EXPECT_LE(reinterpret_cast<std::uintptr_t>(a->data()) + a->bytes(), ma.second);
  // the buffer is writable end to end
  static_cast<char*>(a->data())[a->bytes() - 1] = 1;
  auto heap = device.allocate(100);  // a small block comes from malloc's heap: no huge page counted
  EXPECT_EQ(device.huge_page_bytes(*heap), 0u);
}

TEST(HugePages, PageStartPlacementStartsAtAPageBoundaryAtEverySize) {
  HostDevice device(HugePages::off);
  for (std::size_t bytes :
       {std::size_t{0}, std::size_t{1}, std::size_t{100}, std::size_t{4096}, std::size_t{1} << 20}) {
    auto b = device.allocate_placed(bytes, HostPlacement::page_start);
    const auto at = reinterpret_cast<std::uintptr_t>(b->data());
    EXPECT_EQ(at % 4096, 0u) << bytes;
    EXPECT_EQ(mapping_at(b->data()).first, at) << bytes;  // a map of its own, the data at its start
    EXPECT_EQ(b->bytes(), bytes);
    if (bytes > 0) static_cast<char*>(b->data())[bytes - 1] = 1;
  }
}

}  // namespace
}  // namespace distbench
