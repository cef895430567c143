#include "cli/size_specs.hpp"

#include "core/error.hpp"
#include "core/measure/sizes.hpp"
#include "core/sys/quote.hpp"

#include <fmt/format.h>

#include <charconv>

namespace distbench::cli {
namespace {

constexpr double kMaxFactor = 1024;

// The text before and after the first ':' (after: empty when there is none).
std::pair<std::string, std::string> split_once(const std::string& text) {
  const auto at = text.find(':');
  if (at == std::string::npos) return {text, {}};
  return {text.substr(0, at), text.substr(at + 1)};
}

double sweep_factor(const std::string& text) {
  double factor = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), factor);
  if (ec != std::errc() || end != text.data() + text.size() || !(factor > 1) || factor > kMaxFactor) {
    throw usage_error(fmt::format("factor '{}' must be a number above 1 and at most {:g}, e.g. 1K:1G:4",
                                  escape_text(text), kMaxFactor));
  }
  return factor;
}

std::uint64_t positive_size(const std::string& text) {
  const std::uint64_t s = parse_size(text);
  if (s == 0) throw usage_error("sizes must be at least 1 byte");
  return s;
}

// A validator from a parser that throws usage_error: its message, or "" where it parses.
template <typename Parse>
CLI::Validator checked_by(Parse parse, const std::string& rule) {
  return CLI::Validator(
      [parse](std::string& text) -> std::string {
        try {
          parse(text);
        } catch (const Error& e) {
          return e.what();
        }
        return {};
      },
      rule);
}

}  // namespace

std::vector<std::uint64_t> sizes_of_item(const std::string& item) {
  if (item.find(':') == std::string::npos) return {positive_size(item)};
  const auto [min_text, rest] = split_once(item);
  const auto [max_text, factor_text] = split_once(rest);
  if (min_text.empty() || max_text.empty() || factor_text.find(':') != std::string::npos ||
      (rest.find(':') != std::string::npos && factor_text.empty())) {
    throw usage_error(fmt::format("'{}': give a size, MIN:MAX or MIN:MAX:FACTOR, e.g. 1K:1G", escape_text(item)));
  }
  const std::uint64_t min = positive_size(min_text), max = parse_size(max_text);
  if (min > max) {
    throw usage_error(fmt::format("'{}': the sweep's first size ({}) is above its last ({})", escape_text(item),
                                  format_bytes(min), format_bytes(max)));
  }
  const double factor = factor_text.empty() ? 2.0 : sweep_factor(factor_text);
  try {
    return size_sweep(min, max, factor, 0);
  } catch (const Error&) {  // the checks above leave it one refusal, the count; its advice names the sweep's flags
    throw usage_error(
        fmt::format("'{}' would hold more than {} sizes; give a larger FACTOR (the third number, e.g. "
                    "{}:{}:4) or a narrower MIN:MAX",
                    escape_text(item), kMaxSweepSizes, escape_text(min_text), escape_text(max_text)));
  }
}

SizeBounds size_bounds(const std::string& text) {
  const auto [min_text, max_text] = split_once(text);
  if (text.find(':') == std::string::npos || max_text.find(':') != std::string::npos ||
      (min_text.empty() && max_text.empty())) {
    throw usage_error(fmt::format("'{}': give MIN:MAX, MIN: or :MAX, e.g. 64K:64M", escape_text(text)));
  }
  SizeBounds out;
  if (!min_text.empty()) out.min = parse_size(min_text);
  if (!max_text.empty()) out.max = parse_size(max_text);
  if (out.min && out.max && *out.min > *out.max) {
    throw usage_error(fmt::format("'{}': the smallest size ({}) is above the largest ({})", escape_text(text),
                                  format_bytes(*out.min), format_bytes(*out.max)));
  }
  return out;
}

CLI::Validator size_list_item() {
  return checked_by([](const std::string& t) { sizes_of_item(t); }, "SIZE|MIN:MAX[:FACTOR]");
}

CLI::Validator size_range() {
  return checked_by([](const std::string& t) { size_bounds(t); }, "MIN:MAX");
}

}  // namespace distbench::cli
