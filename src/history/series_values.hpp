// What the check reads of a series: the metric of each point that has one (a positive, finite value of a run that
// counted no wrong elements), with the point's time per operation for the floor. Points without the metric are
// skipped: a gap in a series, not a change.
#pragma once

#include "compare/comparison.hpp"
#include "history/series.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace distbench::history {

// The point's value of `metric` (time_us, busbw_gbps or algbw_gbps); kNotMeasured when it has none.
double metric_value(const Point& p, compare::CompareMetric metric);

struct SeriesValues {
  std::vector<std::size_t> index;  // into Series::points, oldest first
  std::vector<double> value;       // the metric
  std::vector<double> log_value;   // its natural log: what the tests see
  std::vector<double> time_us;     // the time per operation (kNotMeasured when the point has none)

  std::size_t size() const { return index.size(); }
};

SeriesValues series_values(const Series& s, compare::CompareMetric metric);

// "run 27 (v1.2)", or "run 27" for a run without a label.
std::string run_words(const Point& p);

}  // namespace distbench::history
