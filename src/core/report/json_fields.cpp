#include "core/report/json_fields.hpp"

#include "core/error.hpp"
#include "core/quote.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace distbench {
namespace {

// The value as a message shows it: JSON text, escaped and cut; containers by kind.
std::string shown(const nlohmann::ordered_json& j) {
  if (j.is_object()) return "an object";
  if (j.is_array()) return "an array";
  return excerpt(j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
}

constexpr std::int64_t kMaxExactCount = std::int64_t{1} << 53;

std::string integer_rule(std::int64_t lo, std::int64_t hi) {
  constexpr auto max = std::numeric_limits<std::int64_t>::max();
  if (lo == 0 && (hi == max || hi == kMaxExactCount)) return "a non-negative integer";
  if (lo == 1 && (hi == max || hi == kMaxExactCount)) return "a positive integer";
  return fmt::format("an integer from {} to {}", lo, hi);
}

}  // namespace

std::string JsonField::child(std::string_view key) const {
  return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
}

void JsonField::fail(std::string_view must_be) const {
  throw usage_error(fmt::format("field '{}' must be {}, found {}", excerpt(path_.empty() ? "(top level)" : path_),
                                must_be, shown(*value_)));
}

JsonField JsonField::at(std::string_view key) const {
  auto member = find(key);
  if (!member) throw usage_error(fmt::format("field '{}' is missing", excerpt(child(key))));
  return *member;
}

std::optional<JsonField> JsonField::find(std::string_view key) const {
  if (!value_->is_object()) fail("an object");
  const auto it = value_->find(key);
  if (it == value_->end()) return std::nullopt;
  return JsonField(*it, child(key));
}

std::vector<JsonField> JsonField::elements() const {
  if (!value_->is_array()) fail("an array");
  std::vector<JsonField> out;
  out.reserve(value_->size());
  for (std::size_t i = 0; i < value_->size(); ++i) out.emplace_back((*value_)[i], fmt::format("{}[{}]", path_, i));
  return out;
}

std::vector<std::pair<std::string, JsonField>> JsonField::members() const {
  if (!value_->is_object()) fail("an object");
  std::vector<std::pair<std::string, JsonField>> out;
  for (const auto& [key, value] : value_->items()) out.emplace_back(key, JsonField(value, child(key)));
  return out;
}

std::int64_t JsonField::integer(std::int64_t lo, std::int64_t hi) const {
  const auto& j = *value_;
  if (j.is_number_unsigned()) {
    const auto v = j.get<std::uint64_t>();
    if (hi >= 0 && v <= static_cast<std::uint64_t>(hi) && static_cast<std::int64_t>(v) >= lo)
      return static_cast<std::int64_t>(v);
  } else if (j.is_number_integer()) {
    const auto v = j.get<std::int64_t>();
    if (v >= lo && v <= hi) return v;
  }
  fail(integer_rule(lo, hi));
}

std::size_t JsonField::count() const { return static_cast<std::size_t>(integer(0, kMaxExactCount)); }

double JsonField::number() const {
  if (value_->is_number()) {
    const double v = value_->get<double>();  // any JSON number converts to a double (integers may round)
    if (std::isfinite(v)) return v;
  }
  fail("a finite number");
}

double JsonField::number_or_nan() const {
  if (value_->is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (value_->is_number()) {
    const double v = value_->get<double>();
    if (std::isfinite(v)) return v;
  }
  fail("a finite number or null");
}

std::string JsonField::text() const {
  if (!value_->is_string()) fail("a string");
  return value_->get<std::string>();
}

std::string JsonField::text_or_empty() const {
  if (value_->is_null()) return {};
  if (!value_->is_string()) fail("a string or null");
  return value_->get<std::string>();
}

bool JsonField::boolean() const {
  if (!value_->is_boolean()) fail("true or false");
  return value_->get<bool>();
}

}  // namespace distbench
