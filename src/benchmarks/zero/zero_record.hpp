// How `distbench zero` shows a stage: the record of its measured step beside the formulas, the table and the summary.
#pragma once

#include "benchmarks/zero/formulas.hpp"
#include "core/report/layout.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace distbench::zero {

// One stage's figures, gathered on the root. Per-rank vectors are indexed by world rank; NaN: not measured.
struct StageResult {
  Stage stage = Stage::s0;
  std::string backend, dtype, zero1;
  std::uint64_t params = 0;
  std::size_t layers = 0;
  double bucket_mb = 0;
  std::size_t ranks = 1;
  std::vector<std::string> phase_names;                         // in the order they ran
  std::vector<std::vector<std::vector<double>>> phase_by_rank;  // [phase][rank][sample], seconds per step
  std::vector<std::vector<double>> step_by_rank;                // [rank][sample], seconds per step
  int ops_per_sample = 1;
  bool noise_target_met = true;
  double predicted_s = 0;     // the step's collectives and update, each timed alone, added up
  double update_bytes = 0;    // bytes the slowest rank's update moves
  double copy_gbps = 0;       // the device's copy bandwidth (GB/s), measured in the same run
  Memory state;               // formulas: model states per rank
  std::uint64_t buffers = 0;  // formulas: the step's buffers per rank
  std::uint64_t library = 0;  // the backend's reduction temporary (zero_benchmark.hpp)
  std::uint64_t sent = 0;     // formulas: bytes each rank sends per step
  std::size_t padding = 0;    // padding elements of the shards
  std::vector<double> held_bytes, peak_rss_bytes, net_sent_bytes, net_received_bytes;
  // A GPU's memory (the CUDA runtime's free memory; NaN on host memory): what the step's arrays took, and what the
  // timed steps added (the backend's buffers made at a collective's first use).
  std::vector<double> device_array_bytes, device_step_bytes;
  double faults_per_step = kNotMeasured;  // page faults per timed step, the most of any rank
  bool network_measured = false;          // ranks on more than one host: the interfaces carry the step's traffic
  std::int64_t wrong = -1;                // elements that differ from the reference over all ranks; -1: not checked
  std::vector<std::string> hosts;
};

RecordLayout zero_record_layout();
// With both forms of stage 1, a column says which reduction each row's stage 1 ran.
TableLayout zero_table(bool both_zero1_forms = false);
std::vector<SummaryItem> zero_summary(const std::vector<Record>& records);
Record zero_record(const StageResult& r);

}  // namespace distbench::zero
