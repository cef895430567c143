// The words and numbers that the human-readable views (console table, Markdown) share, so that both say the same
// thing the same way.
#pragma once

#include "core/measure/stopping.hpp"
#include "core/report/run_info.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace distbench {

// `v` with `decimals` decimals while below kLargestFixed in magnitude, beyond it with three significant digits and an
// exponent ("1.23e+300": a value read from a damaged report never prints hundreds of digits); "-" if not finite. The
// figures below all go through it.
inline constexpr double kLargestFixed = 1e15;
std::string fixed_text(double v, int decimals);
// Microseconds with two decimals, fewer once the number is large, so that a column keeps its width; "-" if not finite.
std::string time_text(double us);
// GB/s with two decimals; "-" if not finite.
std::string bandwidth_text(double gbps);
// A figure in at most `width` characters as nccl-tests fits its times and bandwidths: two decimals, else one, else
// none, else an exponent (one decimal from a width of 7); "-" if not finite.
std::string fitted_text(double v, int width);
// A count per operation: two decimals below 100, none above.
std::string count_text(double per_op);
// Percentages, one way everywhere (tables, warnings, compare, model). `percent` is the percentage itself (12.5 for
// 12.5 %), written with `decimals` decimals (and '+' before a positive one when `sign` is Sign::always) while below
// kLargestFixedPercent in magnitude; from there on with two significant digits and an exponent, "+7.1e+05": at most
// four digits before the point, or 9 characters in all (a percentage of 1e300 once printed 300 digits); "-" if not
// finite.
inline constexpr double kLargestFixedPercent = 10000;
enum class Sign { negative_only, always };
std::string percent_number(double percent, int decimals = 1, Sign sign = Sign::negative_only);  // without the '%'
std::string percent_text(double percent, int decimals = 1, Sign sign = Sign::negative_only);    // "12.5%"
// Seconds since the Unix epoch as ISO 8601 UTC with milliseconds, "2026-11-23T08:49:38.123Z"; "-" if not finite or
// outside years 1970 to 9999.
std::string timestamp_text(double unix_seconds);
// "1 size", "3 sizes".
std::string plural(std::size_t n, std::string_view one, std::string_view many);
// "2 (2 hosts)" when every host runs as many ranks, "node-a 3, node-b 1" when not.
std::string ranks_per_host_text(const std::vector<RankInfo>& ranks);
// "   MPI threads: single" for a job formed by MPI (its thread level, as the header shows it); empty otherwise.
std::string mpi_threads_text(const RunInfo& info);
// The header's line on host memory for a run whose backend says (memory.huge_pages, memory.thp_mode) and whose
// largest buffer is `largest_buffer` bytes: the policy, the THP mode, and when the two policies would give different
// buffers, which one the numbers stand for and how to see the other; empty when the backend does not say.
std::string host_memory_text(const RunInfo& info, std::uint64_t largest_buffer);
// What the stopping rule does, in words.
std::string samples_text(const StoppingRule& rule);

}  // namespace distbench
