#include "history/series_filter.hpp"

#include "core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace distbench::history {

std::vector<Series> filtered(std::vector<Series> series, const std::vector<compare::Condition>& filter) {
  if (filter.empty()) return series;
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
  std::erase_if(series, [&](const Series& s) {
    Record r;
    r.params = s.params;
    return !compare::matches(r, filter);
  });
  return series;
}

std::string wrong_in_newest_run(const std::vector<Series>& series) {
  std::int64_t newest = 0;
  for (const Series& s : series) {
    if (!s.points.empty()) newest = std::max(newest, s.points.back().run);
  }
  std::vector<std::string> named;
  std::size_t count = 0;
  for (const Series& s : series) {
    if (s.points.empty() || s.points.back().run != newest || !(s.points.back().wrong > 0)) continue;
    if (++count <= 3) named.push_back(fmt::format("{} ({:g} wrong)", s.label, s.points.back().wrong));
  }
  if (count == 0) return {};
  std::string text;
  for (const std::string& n : named) text += (text.empty() ? "" : ", ") + n;
  return count > named.size() ? fmt::format("{} and {} more", text, count - named.size()) : text;
}

}  // namespace distbench::history
