// Which series a history command works on (compare's --filter on each series' parameters), and the newest run's
// wrong elements, which `history check` refuses to judge (exit 3).
#include "compare/case_filter.hpp"
#include "core/error.hpp"
#include "history/series_filter.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace distbench::history {
namespace {

Series series_of(const std::string& label, std::int64_t bytes, std::vector<std::pair<std::int64_t, double>> points) {
  Series s;
  s.key = label;
  s.label = label;
  s.params = {{"collective", std::string("allreduce")}, {"bytes", bytes}};
  for (const auto& [run, wrong] : points) {
    Point p;
    p.run = run;
    p.time_us = 10;
    p.wrong = wrong;
    s.points.push_back(p);
  }
  return s;
}

TEST(SeriesFilter, KeepsTheSeriesWhoseCaseMatches) {
  const std::vector<Series> all = {series_of("small", 8, {{1, 0}}), series_of("large", 1 << 20, {{1, 0}})};
  const std::vector<Series> kept = filtered(all, compare::parse_filter("bytes>=1K"));
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].label, "large");
  EXPECT_EQ(filtered(all, {}).size(), 2u);
  EXPECT_THROW(filtered(all, compare::parse_filter("dtype=float32")), Error);  // no series has the field
}

}  // namespace
}  // namespace distbench::history
