// Message sizes: parsing what users type (-b 8, -e 128M), the sweep between two sizes (nccl-tests' -b/-e/-f/-i),
// and a human-readable form for reports.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace distbench {

// The most sizes one sweep may hold; more is almost always a typo in -f/--stepfactor or -i/--stepbytes.
inline constexpr std::size_t kMaxSweepSizes = 10000;

// A non-negative number of bytes, whole or with a decimal fraction ("1.5M", ".5K"), and an optional binary suffix:
// K, M, G, T in any case, alone or followed by "B", "i" or "iB" ("64M", "64mb", "64Mi", "64MiB" are all 64 * 2^20;
// as in nccl-tests, KB and MB are binary too). A bare "B" suffix is also accepted ("8B"). Fractions round down to
// whole bytes ("1.5" is 1). Throws usage_error on anything else ("1.5.2M", "-1M", "1X", "M", "1e6"), empty text and
// values that do not fit in 64 bits.
std::uint64_t parse_size(std::string_view text);
// parse_size for the value of a command-line option: its error names the option ("-e/--maxbytes: '8Q' is not ...").
std::uint64_t parse_size_option(std::string_view option, std::string_view text);

// nccl-tests' sweep: min_bytes, then multiply by `factor` when factor > 1, otherwise add `step`, while <= max_bytes.
// Multiplication rounds down but always advances by at least one byte. Throws usage_error when min_bytes is 0,
// min_bytes > max_bytes, neither factor > 1 nor step > 0, or the sweep would hold more than kMaxSweepSizes sizes.
std::vector<std::uint64_t> size_sweep(std::uint64_t min_bytes, std::uint64_t max_bytes, double factor,
                                      std::uint64_t step);

// "8 B", "1 KiB", "1.5 MiB", "64 MiB", "2 GiB": exact multiples of a unit without decimals, other sizes rounded to
// at most two decimals (trailing zeros dropped), in the largest binary unit not above the size.
std::string format_bytes(std::uint64_t bytes);

}  // namespace distbench
