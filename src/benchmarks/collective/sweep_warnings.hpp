// The warnings a sweep ends with, judged on its results: each says what was seen, how bad, and what to do.
// - noise: a median whose 95% confidence interval is wider than +/-kNoisyPercent (order statistics, robust to a few
//   preempted samples, unlike stddev/mean); or cases that ran out of --max-time before meeting --max-noise;
// - outliers: samples more than 5 MADs from the median;
// - page faults: at least one per operation and one per MiB of message inside the timed calls (faults_shape_time).
#pragma once

#include "benchmarks/collective/case_result.hpp"
#include "benchmarks/collective/plan.hpp"
#include "core/report/record.hpp"

#include <string>
#include <vector>

namespace distbench::collective {

// A median known no better than +/- this (percent, 95% confidence) is worth a warning.
constexpr double kNoisyPercent = 5.0;

std::vector<Warning> sweep_warnings(const std::vector<CaseResult>& results, const SweepPlan& plan);

}  // namespace distbench::collective
