#include "core/measure/sizes.hpp"

#include "core/error.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <limits>

namespace distbench {
namespace {

constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();

Error not_a_size(std::string_view text) {
  return usage_error(
      fmt::format("'{}' is not a size; write a number of bytes, whole or with a fraction, and an optional binary "
                  "suffix K, M, G or T (also KB, KiB, Ki, ...), e.g. 64M or 1.5M",
                  text));
}

Error too_large(std::string_view text) {
  return usage_error(fmt::format("'{}' is too large; sizes must be below 2^64 bytes (16 EiB)", text));
}

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (lower(a[k]) != lower(b[k])) return false;
  }
  return true;
}

// Log2 of the multiplier a suffix stands for, or -1 for an unknown suffix. Every form is binary: K, KB, KiB, Ki.
int suffix_shift(std::string_view suffix) {
  if (suffix.empty() || equals_ignoring_case(suffix, "b")) return 0;
  constexpr std::string_view kUnits = "kmgt";
  const auto unit = kUnits.find(lower(suffix[0]));
  if (unit == std::string_view::npos) return -1;
  const auto rest = suffix.substr(1);
  if (!rest.empty() && !equals_ignoring_case(rest, "b") && !equals_ignoring_case(rest, "i") &&
      !equals_ignoring_case(rest, "ib")) {
    return -1;
  }
  return 10 * static_cast<int>(unit + 1);
}

std::size_t count_digits(std::string_view text, std::size_t from) {
  std::size_t end = from;
  while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
  return end - from;
}

}  // namespace

std::uint64_t parse_size(std::string_view text) {
  const std::size_t whole = count_digits(text, 0);
  std::size_t end = whole;
  std::size_t fraction = 0;
  if (end < text.size() && text[end] == '.') {
    fraction = count_digits(text, end + 1);
    if (fraction == 0) throw not_a_size(text);  // "1." or "1.M"
    end += 1 + fraction;
  }
  if (whole + fraction == 0) throw not_a_size(text);
  const int shift = suffix_shift(text.substr(end));
  if (shift < 0) throw not_a_size(text);

  std::uint64_t value = 0;
  for (char c : text.substr(0, whole)) {
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (kMax - digit) / 10) throw too_large(text);
    value = value * 10 + digit;
  }
  if (shift > 0 && value > (kMax >> shift)) throw too_large(text);
  value <<= shift;

  // The fraction of the unit, rounded down to whole bytes: floor(0.ddd * 2^shift), one binary digit at a time.
  // Eighteen decimal digits are exact enough: the rest add less than 2^40 / 10^18 of a byte.
  std::uint64_t numerator = 0, denominator = 1;
  if (fraction > 0) {
    for (char c : text.substr(whole + 1, std::min<std::size_t>(fraction, 18))) {
      numerator = numerator * 10 + static_cast<std::uint64_t>(c - '0');
      denominator *= 10;
    }
  }
  std::uint64_t part = 0;
  for (int bit = 0; bit < shift; ++bit) {
    numerator *= 2;  // < 2 * 10^18: no overflow
    part = part * 2 + (numerator >= denominator ? 1 : 0);
    if (numerator >= denominator) numerator -= denominator;
  }
  if (part > kMax - value) throw too_large(text);
  return value + part;
}

std::uint64_t parse_size_option(std::string_view option, std::string_view text) {
  try {
    return parse_size(text);
  } catch (const Error& e) {
    throw Error(e.code(), fmt::format("{}: {}", option, e.what()));
  }
}

std::vector<std::uint64_t> size_sweep(std::uint64_t min_bytes, std::uint64_t max_bytes, double factor,
                                      std::uint64_t step) {
  if (min_bytes == 0) {
    throw usage_error("-b/--minbytes is 0, but sizes start at 1 byte; pass -b 1 or more");
  }
  if (min_bytes > max_bytes) {
    throw usage_error(fmt::format("-b/--minbytes must not exceed -e/--maxbytes, but {} ({}) > {} ({})", min_bytes,
                                  format_bytes(min_bytes), max_bytes, format_bytes(max_bytes)));
  }
  const bool multiply = factor > 1.0;
  if (!multiply && step == 0) throw usage_error("-f/--stepfactor must be > 1 or -i/--stepbytes > 0");

  std::vector<std::uint64_t> sizes;
  std::uint64_t size = min_bytes;
  while (true) {
    if (sizes.size() == kMaxSweepSizes) {
      throw usage_error(fmt::format(
          "the sweep from {} to {} bytes would run more than {} sizes; raise -f/--stepfactor or -i/--stepbytes",
          min_bytes, max_bytes, kMaxSweepSizes));
    }
    sizes.push_back(size);
    std::uint64_t next = 0;
    if (multiply) {
      const double product = std::floor(static_cast<double>(size) * factor);
      if (product >= 18446744073709551616.0) break;  // 2^64: past any max_bytes
      next = std::max(size + 1, static_cast<std::uint64_t>(product));
    } else {
      if (step > kMax - size) break;
      next = size + step;
    }
    if (next > max_bytes) break;
    size = next;
  }
  return sizes;
}

std::string format_bytes(std::uint64_t bytes) {
  constexpr std::array<std::string_view, 7> kUnits = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  std::size_t unit = 0;
  while (unit + 1 < kUnits.size() && bytes >> (10 * (unit + 1)) != 0) ++unit;
  const std::uint64_t scale = std::uint64_t{1} << (10 * unit);
  if (bytes % scale == 0) return fmt::format("{} {}", bytes / scale, kUnits[unit]);

  std::string text = fmt::format("{:.2f}", static_cast<double>(bytes) / static_cast<double>(scale));
  if (text == "1024.00" && unit + 1 < kUnits.size()) {  // rounded up into the next unit
    text = "1";
    ++unit;
  }
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return fmt::format("{} {}", text, kUnits[unit]);
}

}  // namespace distbench
