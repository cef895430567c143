// nccl-tests' JSON output (its -J FILE.json; file version 3 of nccl-tests 2.19) made from a collective sweep's
// records, so that scripts written for nccl-tests' JSON (its tools/analyze_perf_json.py among them) read distbench's.
// The format's facts: an object with version, start_time ("%Y-%m-%d %H:%M:%S"), args (argv), env ("KEY=VALUE"),
// nccl_version (NCCL_VERSION_CODE: 22809 for 2.28.9), config {nthreads, ngpus, minimum_bytes, maximum_bytes,
// step_factor or step_bytes, warmup_iters, iterations, aggregated_iterations, validation, graph, blocking_collectives,
// per_iter_timing, per_iter_skip, parallel_init, devices [{rank, group, hostname, device, device_info}]}, results
// (one per row: size, count, type, redop, root as "%6i", out_of_place and in_place {time or cpu_time in us, alg_bw and
// bus_bw in GB/s, nwrong: null when not checked}, with -I the *_per_iter statistics, actual_iterations,
// experiment_name), out_of_bounds {count, okay}, average_bus_bandwidth {bandwidth, okay}, errors and end_time. As
// nccl-tests writes them, its booleans are the strings "true" and "false" and a NaN is the string "nan".
//
// The collective records' keys are read by name (params bytes, count, dtype, op, root, placement; metrics time_us,
// algbw_gbps, busbw_gbps, wrong; the phase "time"): a record of another benchmark gives no row.
//
// Includes nlohmann/json: include this header only where JSON is built.
#pragma once

#include "core/report/layout.hpp"
#include "core/report/record.hpp"
#include "core/report/run_info.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <span>
#include <vector>

namespace distbench {

inline constexpr int kNcclTestsJsonVersion = 3;  // the file version nccl-tests 2.19 writes

// nccl-tests' per-iteration statistics (-I) over times in microseconds, the first `skipped` left out (all are listed):
// the median is the middle element (the upper one of an even count), p95 and p99 the nearest rank, stdev the
// population's (over n), cv_pct stdev / avg in percent.
struct IterationStats {
  std::size_t skipped = 0;
  double min_us = 0, max_us = 0, avg_us = 0, p50_us = 0, p95_us = 0, p99_us = 0, stdev_us = 0, cv_pct = 0;
};
// `skip` is clamped so that one time at least is summarised; all zeros for no times.
IterationStats iteration_stats(std::span<const double> times_us, std::size_t skip);

// The time a result shows (us): the record's headline time, as the table shows it.
double nccl_tests_time_us(const Record& record);

// The whole document; `rows` as the reporter was given them (records per row of the table).
nlohmann::ordered_json nccl_tests_json(const RunInfo& info, const RunDescription& description,
                                       const std::vector<Record>& records, const std::vector<std::size_t>& rows);

}  // namespace distbench
