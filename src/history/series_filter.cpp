#include "history/series_filter.hpp"

#include "core/error.hpp"

#include <fmt/format.h>

#include <set>

namespace distbench::history {

void check_filter_fields(const std::vector<Series>& series, const std::vector<compare::Condition>& filter) {
  std::set<std::string> fields;
  for (const Series& s : series) {
    for (const Param& p : s.params) fields.insert(p.key);
  }
  for (const compare::Condition& c : filter) {
    if (fields.count(c.key) > 0 || series.empty()) continue;
    std::string known;
    for (const std::string& f : fields) known += (known.empty() ? "" : ", ") + f;
    throw usage_error(fmt::format("--filter: no series has a field '{}'; the fields are {}", c.key, known));
  }
}

bool passes(const Series& s, const std::vector<compare::Condition>& filter) {
  Record r;
  r.params = s.params;
  return compare::matches(r, filter);
}

std::vector<Series> filtered(std::vector<Series> series, const std::vector<compare::Condition>& filter) {
  if (filter.empty()) return series;
  check_filter_fields(series, filter);
  std::erase_if(series, [&](const Series& s) { return !passes(s, filter); });
  return series;
}

}  // namespace distbench::history
