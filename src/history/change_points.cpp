#include "history/change_points.hpp"

#include "history/energy_split.hpp"
#include "history/shift_tests.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace distbench::history {
namespace {

// A series' log values and their robust noise (shift_tests.hpp: the tests see each side winsorized).
struct SeriesLogs {
  std::span<const double> z;
  double scale = 0;
};

// Student's test between z[from, at) and z[at, to), each side winsorized.
ShiftTest test_split(const SeriesLogs& x, std::size_t from, std::size_t at, std::size_t to, double confidence) {
  return student_test(winsorized(x.z.subspan(from, at - from), x.scale), winsorized(x.z.subspan(at, to - at), x.scale),
                      confidence);
}

// Steps 1 and 2: the splits that stand, searched segment by segment (an explicit stack: a long series of short
// segments recurses deeply), sorted.
std::vector<std::size_t> divide(const SeriesLogs& x, const DetectorOptions& o) {
  std::vector<std::size_t> found;
  std::vector<std::pair<std::size_t, std::size_t>> todo{{0, x.z.size()}};
  while (!todo.empty()) {
    const auto [from, to] = todo.back();
    todo.pop_back();
    const EnergySplit split = best_energy_split(x.z.subspan(from, to - from), o.min_segment);
    if (!split.found) continue;
    const std::size_t at = from + split.at;
    if (!(test_split(x, from, at, to, 0).p < o.max_p)) continue;
    found.push_back(at);
    todo.emplace_back(from, at);
    todo.emplace_back(at, to);
  }
  std::sort(found.begin(), found.end());
  return found;
}

// Each change point's test against its neighbouring segments.
std::vector<ShiftTest> neighbour_tests(const SeriesLogs& x, const std::vector<std::size_t>& at, double confidence) {
  std::vector<ShiftTest> tests;
  for (std::size_t i = 0; i < at.size(); ++i) {
    const std::size_t from = i == 0 ? 0 : at[i - 1];
    const std::size_t to = i + 1 < at.size() ? at[i + 1] : x.z.size();
    tests.push_back(test_split(x, from, at[i], to, confidence));
  }
  return tests;
}

// Step 3: removes the weakest change point that no longer passes, one at a time.
void prune(const SeriesLogs& x, std::vector<std::size_t>& at, double max_p) {
  while (!at.empty()) {
    const std::vector<ShiftTest> tests = neighbour_tests(x, at, 0);
    const auto weakest =
        std::max_element(tests.begin(), tests.end(), [](const ShiftTest& a, const ShiftTest& b) { return a.p < b.p; });
    if (weakest->p < max_p) return;
    at.erase(at.begin() + (weakest - tests.begin()));
  }
}

}  // namespace

std::vector<ChangePoint> find_change_points(std::span<const double> log_values, const DetectorOptions& options,
                                            double confidence) {
  const SeriesLogs x{log_values, difference_scale(log_values)};
  std::vector<std::size_t> at = divide(x, options);
  prune(x, at, options.max_p);
  const std::vector<ShiftTest> tests = neighbour_tests(x, at, confidence);
  std::vector<ChangePoint> out;
  for (std::size_t i = 0; i < at.size(); ++i) {
    const std::size_t from = i == 0 ? 0 : at[i - 1];
    const std::size_t to = i + 1 < at.size() ? at[i + 1] : log_values.size();
    ChangePoint c;
    c.index = at[i];
    c.p = tests[i].p;
    c.before = std::exp(moments(winsorized(log_values.subspan(from, at[i] - from), x.scale)).mean);
    c.after = std::exp(moments(winsorized(log_values.subspan(at[i], to - at[i]), x.scale)).mean);
    c.change = std::expm1(tests[i].shift);
    c.change_low = std::expm1(tests[i].low);
    c.change_high = std::expm1(tests[i].high);
    out.push_back(c);
  }
  return out;
}

}  // namespace distbench::history
