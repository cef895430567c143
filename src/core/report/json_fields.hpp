// Taking typed values out of untrusted JSON (a report read back): each value is checked for its type and range
// before it is converted, so that no input reaches a conversion nlohmann would make undefined (a float into an int)
// or wrap (-1 into an unsigned), and each problem is one usage_error naming the field by its path:
// "field 'records[3].samples' must be a non-negative integer, found -1".
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace distbench {

// `text` as JSON, or nullopt with `problem` saying in words where and what is wrong: "not valid JSON at byte 12 (line
// 1, column 13): syntax error ...", "... the number 1e400 is beyond the range of a double"; never nlohmann's
// "[json.exception...]" text, never an exception out of nlohmann. Every JSON file distbench reads goes through it.
// Objects and arrays nested deeper than kMaxJsonDepth are refused the same way.
inline constexpr int kMaxJsonDepth = 64;
std::optional<nlohmann::ordered_json> parse_json_text(std::string_view text, std::string& problem);

class JsonField {
 public:
  // `value` must outlive the field; `path` is how messages name it ("" for the top level).
  JsonField(const nlohmann::ordered_json& value, std::string path) : value_(&value), path_(std::move(path)) {}

  const nlohmann::ordered_json& json() const { return *value_; }
  const std::string& path() const { return path_; }
  bool is_null() const { return value_->is_null(); }

  // A member of an object: a usage_error when this is not an object or the member is missing.
  JsonField at(std::string_view key) const;
  // A member that may be absent (nullopt); a usage_error when this is not an object.
  std::optional<JsonField> find(std::string_view key) const;
  // The elements of an array, the members of an object (in order), each with its path.
  std::vector<JsonField> elements() const;
  std::vector<std::pair<std::string, JsonField>> members() const;

  // A JSON integer from lo to hi (a float, even a whole one, is refused: distbench writes counts as integers).
  std::int64_t integer(std::int64_t lo, std::int64_t hi) const;
  int int_in(int lo, int hi) const { return static_cast<int>(integer(lo, hi)); }
  // A count: an integer from 0 to 2^53 (exact in a double).
  std::size_t count() const;
  // A finite number (integer or float).
  double number() const;
  // A finite number, or NaN for null (how reports write "not measured").
  double number_or_nan() const;
  std::string text() const;
  // A string, or "" for null.
  std::string text_or_empty() const;
  bool boolean() const;

  // Throws usage_error "field 'PATH' must be MUST_BE, found <an excerpt of the value>".
  [[noreturn]] void fail(std::string_view must_be) const;

 private:
  std::string child(std::string_view key) const;
  const nlohmann::ordered_json* value_;
  std::string path_;
};

}  // namespace distbench
