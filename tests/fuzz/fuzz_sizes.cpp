// Fuzz target: the size parser (-b/-e/-i, --min-busbw-at: "8", "1.5M", "64MiB") and the sweep between two sizes.
// The input is up to four lines: a size, and optionally a second size, a step factor and a step size; the first
// line alone goes through parse_size and format_bytes, all four through size_sweep as -b/-e/-f/-i would.
#include "core/measure/sizes.hpp"

#include "fuzz_support.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

std::vector<std::string_view> lines(std::string_view text) {
  std::vector<std::string_view> out;
  while (out.size() < 4) {
    const auto end = text.find('\n');
    out.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return out;
}

// A factor from text without a throwing std::stod (the CLI reads -f as a double through CLI11).
double factor_of(std::string_view text) {
  const std::string s(text);
  char* end = nullptr;
  const double f = std::strtod(s.c_str(), &end);
  return std::isfinite(f) ? f : 2.0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace distbench;
  const auto parts = lines(fuzz::as_text(data, size));
  fuzz::expecting_errors([&] {
    const std::uint64_t bytes = parse_size(parts[0]);
    // The decimal form of a parsed size parses to the same size.
    FUZZ_EXPECT(parse_size(std::to_string(bytes)) == bytes);
    FUZZ_EXPECT(!format_bytes(bytes).empty());
  });
  if (parts.size() < 2) return 0;
  fuzz::expecting_errors([&] {
    const std::uint64_t min_bytes = parse_size(parts[0]);
    const std::uint64_t max_bytes = parse_size(parts[1]);
    const double factor = parts.size() > 2 ? factor_of(parts[2]) : 2.0;
    const std::uint64_t step = parts.size() > 3 ? parse_size(parts[3]) : 0;
    const auto sweep = size_sweep(min_bytes, max_bytes, factor, step);
    FUZZ_EXPECT(!sweep.empty() && sweep.size() <= kMaxSweepSizes);
    FUZZ_EXPECT(sweep.front() == min_bytes && sweep.back() <= max_bytes);
    for (std::size_t k = 1; k < sweep.size(); ++k) FUZZ_EXPECT(sweep[k] > sweep[k - 1]);
  });
  return 0;
}
