// The warnings a sweep ends with, judged on its results: each one line that says what was seen and what to do (its
// full figures in the warning's detail, in the reports), and only where a reader would act on it:
// - noise, one line for every kind: a median whose 95% confidence interval is wider than +/-kNoisyPercent (order
//   statistics, robust to a few preempted samples, unlike stddev/mean), a table time pulled far from the median by
//   outlier samples, or a host-timed case that ran at two speeds; or, with --max-noise, cases that ran out of
//   --max-time before meeting it;
// - page faults: at least one per operation and one per MiB of message inside the timed calls (faults_shape_time);
// - on a device (nccl-tests' timing): a host clock well above the device's, a device that changed speed mid-case;
// - in-place cases on one rank, which move nothing.
#pragma once

#include "benchmarks/collective/case_result.hpp"
#include "benchmarks/collective/plan.hpp"
#include "core/report/record.hpp"

#include <string>
#include <vector>

namespace distbench::collective {

// A median known no better than +/- this (percent, 95% confidence) is worth a warning. Not 5: a figure within
// +/-10% still ranks sizes and tools alike, the machine's own modes move a run by more (docs/methods.md), and at 5
// the warning named most cases of a run on a busy machine, where it was read as noise itself.
constexpr double kNoisyPercent = 10.0;

std::vector<Warning> sweep_warnings(const std::vector<CaseResult>& results, const SweepPlan& plan);

}  // namespace distbench::collective
