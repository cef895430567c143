// A change between two sides of a series (two segments, or a segment and the newest run) as the gate's tests see it
// (the sides' logs winsorized, shift_tests.hpp), and compare's rules applied to it in compare's order: significance,
// the threshold, the floor.
#pragma once

#include "compare/comparison.hpp"
#include "history/series_values.hpp"
#include "history/shift_tests.hpp"

#include <cstddef>

namespace distbench::history {

struct SideChange {
  double base = kNotMeasured, cand = kNotMeasured;            // the sides' means of the metric (geometric)
  double base_time = kNotMeasured, cand_time = kNotMeasured;  // and of the time per operation
  ShiftTest test;                                             // log cand - log base
  std::size_t base_runs = 0, cand_runs = 0;
};

// The sides [base_from, base_to) and [cand_from, cand_to) of `v`, each winsorized as the change points' tests see
// them; a single newest value is tested as it is, by prediction. The means are the winsorized logs' (the metric's
// geometric means when there is no spike), and so is the time's under --metric time.
SideChange side_change(const SeriesValues& v, std::size_t base_from, std::size_t base_to, std::size_t cand_from,
                       std::size_t cand_to, double confidence, compare::CompareMetric metric);

// Which rule held a change back, or that it passed them all.
enum class GateRule { not_significant, within_threshold, under_floor, passed };

// compare's rules in compare's order: significance at `level`, the threshold, the floor.
GateRule gate_rule(const SideChange& c, const compare::CompareOptions& o, double level);

// SLOWER or FASTER for a change that passed, SAME otherwise.
compare::Verdict gate_verdict(GateRule rule, const SideChange& c, compare::CompareMetric metric);

}  // namespace distbench::history
