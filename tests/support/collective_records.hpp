// Test builders for reporters fed by the collective sweep: its run description for a plan, and records from
// CaseResults (the sweep's own results), as the runner and CollectiveBenchmark make them.
#pragma once

#include "benchmarks/collective/case_result.hpp"
#include "benchmarks/collective/collective_benchmark.hpp"
#include "benchmarks/collective/collective_record.hpp"

#include <string>
#include <vector>

namespace distbench::test_support {

using collective::CaseResult;
using collective::CollectiveBenchmark;
using collective::SweepPlan;

// The backend recorded in `info` defaults to the plan's, as the runner sets it once chosen.
inline RunDescription describe(const SweepPlan& plan, RunInfo info) {
  if (info.backend.empty()) info.backend = plan.backend;
  return CollectiveBenchmark(plan).describe(info);
}

// An allreduce float32 sum case of `bytes` on `nranks` ranks of the world, not yet measured: tests set the rest.
inline CaseResult allreduce_case(std::string placement, std::uint64_t bytes, int nranks) {
  CaseResult r;
  r.collective = "allreduce";
  r.backend = "mpi";
  r.dtype = "float32";
  r.op = "sum";
  r.placement = std::move(placement);
  r.root = -1;
  r.bytes = bytes;
  r.count = bytes / 4;
  r.nranks = nranks;
  r.group = "world";
  return r;
}

inline std::vector<Record> records(const std::vector<CaseResult>& row, const std::vector<std::string>& hosts = {}) {
  return collective::collective_records(row, hosts);
}

}  // namespace distbench::test_support
