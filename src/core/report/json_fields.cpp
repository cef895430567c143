#include "core/report/json_fields.hpp"

#include "core/error.hpp"
#include "core/sys/quote.hpp"

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

// nlohmann's own DOM builder, its errors (a syntax error, parse_error; a number beyond a double, out_of_range 406)
// kept in words with their byte offset instead of thrown.
class DomBuilder {
 public:
  using json = nlohmann::ordered_json;
  DomBuilder(json& result, std::string& problem) : dom_(result, false), problem_(problem) {}
  bool null() { return dom_.null(); }
  bool boolean(bool v) { return dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const json::string_t& s) { return dom_.number_float(v, s); }
  bool string(json::string_t& v) { return dom_.string(v); }
  bool binary(json::binary_t& v) { return dom_.binary(v); }
  bool start_object(std::size_t n) { return deeper() && dom_.start_object(n); }
  bool key(json::string_t& k) { return dom_.key(k); }
  bool end_object() { return --depth_, dom_.end_object(); }
  bool start_array(std::size_t n) { return deeper() && dom_.start_array(n); }
  bool end_array() { return --depth_, dom_.end_array(); }
  bool parse_error(std::size_t position, const std::string& token, const nlohmann::detail::exception& e) {
    std::string what = e.what();
    if (const auto end = what.find("] "); what.rfind("[json.exception.", 0) == 0 && end != std::string::npos)
      what.erase(0, end + 2);  // "[json.exception.parse_error.101] " says nothing to the user
    std::string where = fmt::format("byte {}", position);
    constexpr std::string_view prefix = "parse error at ";  // "parse error at line 1, column 22: syntax error ..."
    if (const auto colon = what.find(": "); what.rfind(prefix, 0) == 0 && colon != std::string::npos) {
      where += fmt::format(" ({})", what.substr(prefix.size(), colon - prefix.size()));
      what.erase(0, colon + 2);
    }
    if (e.id == 406) what = fmt::format("the number {} is beyond the range of a double", excerpt(token));
    problem_ = fmt::format("not valid JSON at {}: {}", where, excerpt(what, 200));
    return false;
  }

 private:
  // Nothing distbench reads nests deeply; a file that does (a 71 KB report 8000 levels deep made a 128 MB page, and
  // 100,000 levels ran out of memory) is refused as it is read.
  bool deeper() {
    if (++depth_ <= kMaxJsonDepth) return true;
    problem_ = fmt::format("nested more than {} levels deep", kMaxJsonDepth);
    return false;
  }

  nlohmann::detail::json_sax_dom_parser<json> dom_;
  std::string& problem_;
  int depth_ = 0;
};

}  // namespace

std::optional<nlohmann::ordered_json> parse_json_text(std::string_view text, std::string& problem) {
  if (const auto nul = text.find('\0'); nul != std::string_view::npos) {  // JSON text holds none, not even at its end
    problem = fmt::format("not valid JSON at byte {}: a NUL byte", nul + 1);
    return std::nullopt;
  }
  nlohmann::ordered_json result;
  DomBuilder builder(result, problem);
  if (!nlohmann::ordered_json::sax_parse(text, &builder)) return std::nullopt;
  return result;
}

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
