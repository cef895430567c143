// --filter: which cases a comparison keeps, by their parameters. EXPR is conditions separated by commas, all of
// which must hold: `key=value`, `key!=value`, and for numbers `key<value`, `key<=value`, `key>value`, `key>=value`
// (sizes take K/M/G suffixes: `bytes>=1M`). `key=a|b` matches either value.
#pragma once

#include "core/report/record.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace distbench::compare {

struct Condition {
  std::string key;
  std::string op;                   // "=", "!=", "<", "<=", ">", ">="
  std::vector<std::string> values;  // alternatives for "=" and "!="; one for the others
};

// Throws usage_error naming the condition that does not parse.
std::vector<Condition> parse_filter(std::string_view expr);

// Whether `record` meets every condition. A condition on a parameter the record does not have fails.
bool matches(const Record& record, const std::vector<Condition>& conditions);

}  // namespace distbench::compare
