// The measurements a model is fitted to: one point per (collective, ranks, size) of a collective sweep's report, its
// time the median of its samples. Where a report has both placements, out-of-place is taken (in-place differs by a
// copy on some paths); where several reports or dtypes give the same point, the median of their medians.
#pragma once

#include "core/device/collective.hpp"
#include "core/report/json_model.hpp"
#include "model/recorded_algorithm.hpp"
#include "model/transport.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace distbench::model {

struct Observation {
  Collective collective = Collective::allreduce;
  int nranks = 0;
  double bytes = 0;          // S, nccl-tests' size
  double seconds = 0;        // median time per operation
  double faults_per_op = 0;  // page faults per operation, most over ranks; NaN when not recorded
  std::string backend;
  std::string source;  // the report's file name
  RecordedAlgorithm recorded;
  std::optional<EagerLimit> eager;  // where the report's messages changed protocol; nullopt: not known
};

// The largest case a model is fitted to: 1 PiB (2^50 B). No rank holds a buffer that large (a GPU's memory is under
// 2^38 B, a host's under 2^46 B), so a record above it was not measured: the report is damaged, and S beyond 2^53
// would not even be exact in the fit's doubles.
inline constexpr std::uint64_t kLargestModelledBytes = std::uint64_t{1} << 50;

// The points of one report. Throws usage_error when it is not a collective sweep, holds no measured case, or holds a
// case above kLargestModelledBytes. Records whose size, rank count or time is not a positive number are left out.
std::vector<Observation> observations_of(const ParsedReport& report, const std::string& source);

// Points of the same collective, ranks, size and recorded algorithm merged into one (the median time, the most
// faults); sorted by collective, ranks, size.
std::vector<Observation> merge_repeats(std::vector<Observation> points);

}  // namespace distbench::model
