// The health check in Prometheus' text exposition format, for node-exporter's textfile collector: gauges labelled
// by host (and link, rank, phase), in base units (bytes per second, seconds), written atomically as that collector
// requires (it may read the directory at any moment).
#pragma once

#include "core/report/record.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace distbench::health {

// What ran, as distbench_info's labels (value 1), so that a dashboard can tell runs and builds apart.
struct PromInfo {
  std::string backend;    // "mpi", "nccl"
  std::size_t nodes = 0;  // hosts
  int ranks = 0;
  std::string level;  // --level: "quick", "standard", "long"
};

// `timestamp_s`: when the check ended (Unix seconds), exported as distbench_health_last_run_timestamp_seconds.
// A label whose value would be empty (a figure of the whole job has no host) is left out, as Prometheus reads it.
std::string prometheus_text(const std::vector<Record>& records, double timestamp_s, const PromInfo& info = {});

// What the file holds while a check runs, written before its first phase: the status unknown (3), with the reason
// that the check started at `started_s` and has not ended, so that a check killed outright (SIGKILL, a node lost)
// leaves that, not the verdict of the run before it.
std::string prometheus_unfinished_text(double started_s);

// What replaces it when the check ends without a verdict (interrupted, timed out, failed): unknown (3), `reason` as a
// label, and when it ended.
std::string prometheus_ended_early_text(const std::string& reason, double ended_s);

}  // namespace distbench::health
