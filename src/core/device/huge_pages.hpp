// Transparent huge pages for host buffers (--huge-pages): which policy a run's buffers follow, what the machine's
// THP mode makes of it, and how much of a buffer really got huge pages.
//
// In THP's `madvise` mode (common on current distributions) a buffer gets huge pages only when its owner asks with
// madvise(MADV_HUGEPAGE). numpy asks for its large arrays, PyTorch's CPU allocator does with
// C10_THP_MEM_ALLOC_ENABLE=1, IMB, OSU and a plain C program's malloc do not; large-message times differ by up to
// 1.5x for that reason alone. `off` (the default) is malloc's policy; `on` advises buffers from 2 MiB and starts each
// on a 2 MiB boundary, so every whole 2 MiB of it can be a huge page (numpy advises without aligning, and its arrays
// get huge pages only where malloc's map happens to align: host_device.cpp). The report says which ran, the THP
// mode, and the share of the buffers that the kernel gave huge pages (AnonHugePages in /proc/self/smaps).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace distbench {

enum class HugePages { off, on };

// "off" | "on"; parse_huge_pages throws usage_error for anything else.
std::string_view huge_pages_name(HugePages policy);
HugePages parse_huge_pages(std::string_view name);

// Buffers from this size are advised with `on` (the size of one huge page on x86-64; a smaller buffer cannot hold
// one).
inline constexpr std::size_t kHugePageAdviceFrom = std::size_t{2} << 20;

// The THP mode from the text of /sys/kernel/mm/transparent_hugepage/enabled ("always [madvise] never": the word in
// brackets); nullopt when no word is bracketed.
std::optional<std::string> parse_thp_mode(std::string_view text);
// This machine's THP mode: "always", "madvise", "never", or "unknown" (not Linux, or no THP support).
std::string thp_mode();

// Whether the two policies give different buffers for a sweep whose largest buffer is `largest_bytes`: THP advises
// only on request (madvise mode) and a buffer is large enough to be advised.
bool huge_page_policies_differ(std::string_view thp_mode, std::uint64_t largest_bytes);

// Bytes of huge pages (AnonHugePages) in the mappings that overlap [start, start + length), from the text of
// /proc/self/smaps. A mapping of distbench's own holds one buffer alone (guard pages keep it from merging with its
// neighbours), so for such a buffer this is exactly its huge-page bytes.
std::uint64_t parse_anon_huge_bytes(std::string_view smaps, std::uintptr_t start, std::size_t length);
// The same from this process's /proc/self/smaps; nullopt when it cannot be read.
std::optional<std::uint64_t> anon_huge_bytes(const void* start, std::size_t length);

}  // namespace distbench
