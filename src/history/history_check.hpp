// `distbench history check`: where each series of the history changed (E-Divisive means, made deterministic by a
// t-test in place of the permutation test), and a gate over the newest runs with the verdicts, reasons and exit
// codes of `distbench compare`: a case is SLOWER when a change point that makes it worse lies among the newest runs,
// or when the newest run alone is significantly worse than the segment before it.
#pragma once

#include "compare/comparison.hpp"
#include "history/series.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace distbench::history {

struct DetectorOptions {
  double max_p = 0.001;         // a change point stands when the t-test between its two segments gives p below this
  std::size_t min_segment = 3;  // the fewest runs a segment may have
};

struct CheckOptions {
  compare::CompareOptions gate;  // metric, threshold, floor_us, alpha (the newest run's test), filter, allow_missing
  std::size_t window = 5;        // a change point among the newest `window` runs of a series gates it
  DetectorOptions detector;
};

struct ChangePoint {
  std::size_t index = 0;  // the first point of the new segment (an index into Series::points)
  std::int64_t run = 0;   // that point's run (Point::run)
  double p = 1;           // the t-test between the segments on either side
  double before = kNotMeasured, after = kNotMeasured;  // the two segments' means of the metric
  double change = kNotMeasured, change_low = kNotMeasured, change_high = kNotMeasured;  // after / before - 1, interval
};

struct SeriesCheck {
  std::string key;                         // Series::key
  std::vector<ChangePoint> change_points;  // oldest first
  std::size_t gated_from = 0;              // the window: points [gated_from, end) are the runs the gate judges
  bool newest_alone = false;               // the verdict is the newest run's own test, not a change point's
};

struct HistoryCheck {
  // One case per series, judged: the verdicts, reasons, counts and geometric mean of `distbench compare`, so that the
  // exit codes (0, 1 SLOWER, 7 not judged) and the views follow the same rules.
  compare::Comparison comparison;
  std::vector<SeriesCheck> series;  // parallel to comparison.cases
  std::size_t window = 0;           // CheckOptions::window and ::detector, for the views
  DetectorOptions detector;
};

// Throws usage_error for options out of their bounds, and Error(not_judged) when no series could be judged.
HistoryCheck check_history(const std::vector<Series>& series, const CheckOptions& options);

// The check as `format` says: "text", "markdown", "json", "junit" or "html" (with a trend plot per series marking its
// change points and the gated runs). `series` is what was checked (the plot's points).
std::string history_view(std::string_view format, const HistoryCheck& check, const std::vector<Series>& series);

}  // namespace distbench::history
