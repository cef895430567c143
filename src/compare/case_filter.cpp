#include "compare/case_filter.hpp"

#include "core/error.hpp"
#include "core/measure/sizes.hpp"
#include "core/sys/split.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <optional>

namespace distbench::compare {
namespace {

// A number, or a size with a binary suffix; nullopt when neither.
std::optional<double> number_of(std::string_view text) {
  try {
    std::size_t used = 0;
    const std::string s(text);
    const double v = std::stod(s, &used);
    if (used == s.size()) return v;
  } catch (const std::exception&) {
  }
  try {
    return static_cast<double>(parse_size(text));
  } catch (const Error&) {
    return std::nullopt;
  }
}

std::optional<double> param_number(const ParamValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&v)) return *d;
  return number_of(std::string_view(std::get<std::string>(v)));
}

}  // namespace

std::vector<Condition> parse_filter(std::string_view expr) {
  std::vector<Condition> out;
  if (trim_spaces(expr).empty()) return out;
  constexpr std::array<std::string_view, 6> kOps = {"!=", "<=", ">=", "=", "<", ">"};  // two-character ones first
  for (const std::string& part : split_list(expr, ',')) {
    Condition c;
    std::size_t at = std::string::npos;
    for (std::string_view op : kOps) {
      at = part.find(op);
      if (at != std::string::npos) {
        c.op = std::string(op);
        break;
      }
    }
    if (at == std::string::npos || at == 0 || at + c.op.size() >= part.size()) {
      throw usage_error(
          fmt::format("--filter: cannot read '{}'; write key=value, key!=value or key>=number, "
                      "separated by commas (e.g. --filter 'dtype=float32,bytes>=1M')",
                      part));
    }
    c.key = std::string(trim_spaces(std::string_view(part).substr(0, at)));
    const std::string_view value = trim_spaces(std::string_view(part).substr(at + c.op.size()));
    if (c.op == "=" || c.op == "!=") {
      c.values = split_list(value, '|');
    } else {
      if (!number_of(value)) {
        throw usage_error(
            fmt::format("--filter: '{}' compares {} with '{}', which is not a number or a size", part, c.key, value));
      }
      c.values = {std::string(value)};
    }
    out.push_back(std::move(c));
  }
  return out;
}

bool matches(const Record& record, const std::vector<Condition>& conditions) {
  for (const Condition& c : conditions) {
    const ParamValue* v = record.param(c.key);
    if (v == nullptr) return false;
    if (c.op == "=" || c.op == "!=") {
      const std::string text = param_text(*v);
      const auto have = param_number(*v);
      bool any = false;
      for (const std::string& want : c.values) {
        const auto want_number = have ? number_of(std::string_view(want)) : std::nullopt;
        any = any || text == want || (want_number && have && *want_number == *have);
      }
      if (any != (c.op == "=")) return false;
      continue;
    }
    const auto have = param_number(*v);
    const auto want = number_of(std::string_view(c.values.front()));
    if (!have || !want) return false;
    const bool ok = c.op == "<"    ? *have < *want
                    : c.op == "<=" ? *have <= *want
                    : c.op == ">"  ? *have > *want
                                   : *have >= *want;
    if (!ok) return false;
  }
  return true;
}

}  // namespace distbench::compare
