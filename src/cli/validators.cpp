#include "cli/validators.hpp"

#include "cli/did_you_mean.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>

namespace distbench::cli {
namespace {

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// The value as the message shows it: numbers as typed, anything else quoted.
std::string shown(const std::string& text) { return fmt::format("'{}'", text); }

std::optional<double> parse_number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::optional<long long> parse_whole(const std::string& text) {
  long long value = 0;
  const char* first = text.data() + (!text.empty() && text[0] == '+' ? 1 : 0);
  const auto [end, ec] = std::from_chars(first, text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || first == end) return std::nullopt;
  return value;
}

// "a, b or c".
std::string either(const std::vector<std::string>& names) {
  if (names.size() < 2) return names.empty() ? std::string() : names[0];
  return fmt::format("{} or {}", fmt::join(names.begin(), names.end() - 1, ", "), names.back());
}

CLI::Validator number_at_least(const std::string& unit, bool zero_allowed, double max) {
  const bool bounded = std::isfinite(max);
  const std::string rule = bounded ? fmt::format("0 {} {} <= {:g}", zero_allowed ? "<=" : "<", upper(unit), max)
                                   : fmt::format("{} {} 0", upper(unit), zero_allowed ? ">=" : ">");
  return CLI::Validator(
      [unit, zero_allowed, max, bounded](std::string& text) -> std::string {
        const auto value = parse_number(text);
        if (!value) return fmt::format("{} is not a number of {}", shown(text), unit);
        if (zero_allowed && *value < 0) return fmt::format("{} is not 0 or more {}", text, unit);
        if (!zero_allowed && *value <= 0) return fmt::format("{} is not a positive number of {}", text, unit);
        if (bounded && *value > max) {
          return fmt::format("{} is more than {:g} {}; give at most {:g}", text, max, unit, max);
        }
        return {};
      },
      rule);
}

// A typo's closest name, or else the one name that `text` begins ("nccl" for "nccl-tests"); "" when neither.
std::string hint_for_name(const std::string& text, const std::vector<std::string>& names) {
  if (std::string hint = did_you_mean(text, names); !hint.empty()) return hint;
  std::vector<std::string> longer;
  for (const std::string& name : names) {
    if (text.size() >= 2 && name.size() > text.size() && name.rfind(text, 0) == 0) longer.push_back(name);
  }
  return longer.size() == 1 ? fmt::format("; did you mean '{}'?", longer.front()) : std::string();
}

}  // namespace

CLI::Validator positive_number(const std::string& unit, double max) { return number_at_least(unit, false, max); }

CLI::Validator non_negative_number(const std::string& unit, double max) { return number_at_least(unit, true, max); }

CLI::Validator percentage(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        const bool sign = !text.empty() && text.back() == '%';
        const std::string digits = sign ? text.substr(0, text.size() - 1) : text;
        const auto value = parse_number(digits);
        if (!value) return fmt::format("{} is not a percentage; write it like 5%", shown(text));
        if (!sign && *value > 0 && *value < 1) {
          return fmt::format(
              "{} is ambiguous: a bare number is a percentage here ({}%), a fraction elsewhere; write "
              "{:g}% or {}%",
              text, digits, *value * 100, digits);
        }
        if (*value < lo || *value > hi) return fmt::format("{} is not a percentage from {:g}% to {:g}%", text, lo, hi);
        text = digits;
        return {};
      },
      "PERCENT");
}

CLI::Validator non_empty_path() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        return text.empty() ? "the path is empty; give a file name (or leave the option out)" : std::string();
      },
      "PATH");
}

CLI::Validator path_ending(std::string_view ending) {
  return CLI::Validator(
      [ending = std::string(ending)](std::string& text) -> std::string {
        const bool ends =
            text.size() >= ending.size() &&
            std::equal(ending.rbegin(), ending.rend(), text.rbegin(), [](char a, char b) {
              return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
            });
        if (text == "-" || ends) return std::string();
        return fmt::format("a {} file: name one that ends in {} (or '-': stdout)", ending, ending);
      },
      "FILE");
}

CLI::Validator in_range(long long lo, long long hi, const std::string& what) {
  return CLI::Validator(
      [lo, hi, what](std::string& text) -> std::string {
        const auto value = parse_whole(text);
        if (!value || *value < lo || *value > hi) {
          return fmt::format("{} is not a {} from {} to {}", value ? text : shown(text), what, lo, hi);
        }
        return {};
      },
      fmt::format("{}..{}", lo, hi));
}

CLI::Validator at_least(long long lo) {
  return CLI::Validator(
      [lo](std::string& text) -> std::string {
        const auto value = parse_whole(text);
        if (!value) return fmt::format("{} is not a whole number", shown(text));
        if (*value < lo) return fmt::format("{} is less than {}; give a whole number of {} or more", text, lo, lo);
        return {};
      },
      fmt::format("N >= {}", lo));
}

CLI::Validator one_of(std::vector<std::string> names, std::vector<std::pair<std::string, std::string>> aliases) {
  const std::string rule = fmt::format("{{{}}}", fmt::join(names, ","));
  return CLI::Validator(
      [names, aliases](std::string& text) -> std::string {
        if (std::find(names.begin(), names.end(), text) != names.end()) return {};
        for (const auto& [alias, name] : aliases) {
          if (alias == text) {
            text = name;
            return {};
          }
        }
        return fmt::format("{} is not {}{}", shown(text), either(names), hint_for_name(text, names));
      },
      rule);
}

void check_number_types(CLI::App& app) {
  // No description: the option's --help text keeps its own rule.
  const CLI::Validator whole_unsigned(
      [](std::string& text) -> std::string {
        std::uint64_t value = 0;
        const char* first = text.data() + (!text.empty() && text[0] == '+' ? 1 : 0);
        const char* last = text.data() + text.size();
        const bool digits = first != last && std::all_of(first, last, [](char c) { return c >= '0' && c <= '9'; });
        if (!digits) return fmt::format("{} is not a whole number of 0 or more", shown(text));
        if (std::from_chars(first, last, value).ec != std::errc()) {
          return fmt::format("{} is too large (at most {})", text, UINT64_MAX);
        }
        text = std::to_string(value);  // what CLI11 converts: "010" is 10 here, not its octal 8
        return {};
      },
      "");
  const CLI::Validator finite(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (end == text.c_str() + text.size() && !text.empty() && !std::isfinite(value)) {
          return fmt::format("{} is not a finite number", text);
        }
        return {};  // what is not a number at all is CLI11's to refuse
      },
      "");
  for (CLI::Option* option : app.get_options()) {
    const std::string type = option->get_type_name();
    if (type.rfind("UINT", 0) == 0) option->transform(whole_unsigned);
    if (type.rfind("FLOAT", 0) == 0) option->check(finite);
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) check_number_types(*sub);
}

std::string RuleFormatter::make_option_opts(const CLI::Option* option) const {
  const std::string out = CLI::Formatter::make_option_opts(option);
  const std::string type = option->get_type_name();
  const auto colon = type.find(':');
  const std::string value = option->get_default_str();
  const std::string typed = fmt::format(" {}{}{}", type, value.empty() ? "" : "=", value);
  if (colon == std::string::npos || out.rfind(typed, 0) != 0) return out;
  const std::string rule = type.substr(colon + 1);
  const std::string shown_default = value.empty() ? "" : fmt::format(" (default {})", value);
  return fmt::format(" {}{}{}", rule, shown_default, out.substr(typed.size()));
}

}  // namespace distbench::cli
