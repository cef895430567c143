#include "benchmarks/health/prometheus.hpp"

#include "benchmarks/health/health_record.hpp"
#include "benchmarks/health/verdict.hpp"
#include "core/sys/quote.hpp"
#include "version.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>

namespace distbench::health {
namespace {

// A label value as the exposition format wants it: valid UTF-8 (a host's 0xFF byte as U+FFFD), backslash, double
// quote and newline escaped.
std::string label_value(const std::string& v) {
  std::string out;
  for (char c : valid_utf8(v)) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string sample_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", v);
}

// One metric family: its HELP and TYPE once, then its samples.
class Family {
 public:
  Family(std::string name, std::string help) : name_(std::move(name)), help_(std::move(help)) {}
  void add(const std::vector<std::pair<std::string, std::string>>& labels, double value) {
    std::string l;
    for (const auto& [k, v] : labels) {
      if (v.empty()) continue;  // the same series as no label, and no host="" beside the hosts
      l += fmt::format("{}{}=\"{}\"", l.empty() ? "" : ",", k, label_value(v));
    }
    samples_ += fmt::format("{}{}{} {}\n", name_, l.empty() ? "" : "{", l.empty() ? l : l + "}", sample_value(value));
  }
  std::string text() const {
    if (samples_.empty()) return {};
    return fmt::format("# HELP {} {}\n# TYPE {} gauge\n{}", name_, help_, name_, samples_);
  }

 private:
  std::string name_, help_, samples_;
};

std::pair<std::string, std::string> split_link(const std::string& subject, const std::string& sep) {
  const auto at = subject.find(sep);
  if (at == std::string::npos) return {subject, ""};
  return {subject.substr(0, at), subject.substr(at + sep.size())};
}

// Every family of the check's text, in the order it lists them.
struct HealthFamilies {
  Family cluster_status{"distbench_health_status",
                        "Verdict of the whole check (the exit code): 0 healthy, 1 degraded, 2 failed, 3 unknown."};
  Family node_status{"distbench_health_node_status", "Verdict per node: 0 healthy, 1 degraded, 2 failed, 3 unknown."};
  Family link_bw{"distbench_health_link_bandwidth_bytes_per_second",
                 "Node-to-node bandwidth, first ranks of each node, one direction."};
  Family link_lat{"distbench_health_link_latency_seconds",
                  "Node-to-node one-way latency (half the median round trip)."};
  Family link_ok{"distbench_health_link_healthy", "1 when the link's figures are within their bounds, else 0."};
  Family node_link_min{"distbench_health_node_link_min_bandwidth_bytes_per_second",
                       "The slowest of the node's links measured (either direction), the peer at its other end."};
  Family node_link_median{"distbench_health_node_link_median_bandwidth_bytes_per_second",
                          "The median of the node's links measured (both directions)."};
  Family node_nic{"distbench_health_node_nic_rate_bytes_per_second",
                  "The node's NIC rate as sysfs reports it (speed or InfiniBand rate); NaN when unknown."};
  Family node_bw{"distbench_health_node_allreduce_busbw_bytes_per_second",
                 "Allreduce bus bandwidth among the ranks of one node."};
  Family job_bw{"distbench_health_job_allreduce_busbw_bytes_per_second",
                "Allreduce bus bandwidth over every rank of the job."};
  Family wrong{"distbench_health_wrong_elements", "Elements that read back wrong (memory, node and job allreduce)."};
  Family mem_bw{"distbench_health_memory_copy_bandwidth_bytes_per_second",
                "Device (host memory on MPI) copy bandwidth per rank."};
  Family transfer{"distbench_health_device_transfer_bytes_per_second",
                  "Host <-> device copy bandwidth per rank (GPUs)."};
  Family skew{"distbench_health_clock_skew_seconds",
              "Absolute offset of the host's wall clock from the root rank's host."};
  Family late{"distbench_health_straggler_lateness_seconds",
              "Median time a rank arrives at a collective after the first rank."};
  Family soak_wrong{"distbench_health_soak_wrong",
                    "Soak: calls and elements that read back wrong per rank (what=calls|elements)."};
  Family soak_calls{"distbench_health_soak_calls", "Soak: the verified allreduce calls each rank ran."};
  Family drift_odd{"distbench_health_drift_odd",
                   "1 where the host's value of a setting differs from the one most nodes have (key: the setting)."};
  Family drift_split{"distbench_health_drift_values",
                     "Values of a setting when no value is on most nodes (key: the setting)."};
  Family gpu_value{
      "distbench_health_gpu_reading",
      "A GPU's reading through NVML (reading: the metric without 'gpu.'; unit: its unit, as in the report)."};
  Family gpu_ok{"distbench_health_gpu_healthy", "1 when the GPU's reading is within its bound, else 0."};
  Family datasheet{"distbench_health_datasheet_fraction",
                   "A GPU rank's figure as a fraction of its datasheet's (figure: memory, h2d, d2h, gemm)."};
  Family phase_s{"distbench_health_phase_duration_seconds", "Time each phase of the check took."};
  Family stamp{"distbench_health_last_run_timestamp_seconds", "When the check ended (Unix time)."};

  std::string text() const {
    std::string out;
    for (const Family* f : {&cluster_status,   &node_status, &link_bw, &link_lat,   &link_ok,    &node_link_min,
                            &node_link_median, &node_nic,    &node_bw, &job_bw,     &wrong,      &mem_bw,
                            &transfer,         &skew,        &late,    &soak_wrong, &soak_calls, &drift_odd,
                            &drift_split,      &gpu_value,   &gpu_ok,  &datasheet,  &phase_s,    &stamp}) {
      out += f->text();
    }
    return out;
  }
};

// A link's bandwidth (one direction) or latency, and whether it is within its bounds.
void add_link_figure(HealthFamilies& f, const Check& c) {
  const double healthy = c.status == Status::healthy ? 1 : 0;
  if (c.metric == "link.bandwidth_gbps") {
    const auto [a, b] = split_link(c.subject, "->");
    f.link_bw.add({{"src", a}, {"dst", b}}, c.value * 1e9);
    f.link_ok.add({{"src", a}, {"dst", b}, {"figure", "bandwidth"}}, healthy);
  } else if (c.metric == "link.latency_us") {
    const auto [a, b] = split_link(c.subject, "<->");
    f.link_lat.add({{"src", a}, {"dst", b}}, c.value / 1e6);
    f.link_ok.add({{"src", a}, {"dst", b}, {"figure", "latency"}}, healthy);
  }
}

// A check's figure in its family, in base units (bytes per second, seconds); checks without a family are left out.
void add_figure(HealthFamilies& f, const Check& c) {
  if (c.metric == "node.status") {
    f.node_status.add({{"host", c.subject}}, c.value);
  } else if (c.metric == "cluster.status") {
    f.cluster_status.add({}, c.value);
  } else if (c.metric == "link.bandwidth_gbps" || c.metric == "link.latency_us") {
    add_link_figure(f, c);
  } else if (c.metric == "node.link.min_gbps") {
    f.node_link_min.add({{"host", c.host}, {"peer", c.peer}}, c.value * 1e9);
  } else if (c.metric == "node.link.median_gbps") {
    f.node_link_median.add({{"host", c.host}}, c.value * 1e9);
  } else if (c.metric == "node.nic.link_gbps") {
    f.node_nic.add({{"host", c.host}}, c.value * 1e9);
  } else if (c.metric == "node.allreduce.busbw_gbps") {
    f.node_bw.add({{"host", c.host}}, c.value * 1e9);
  } else if (c.metric == "job.allreduce.busbw_gbps") {
    f.job_bw.add({}, c.value * 1e9);
  } else if (c.metric == "memory.wrong" || c.metric == "node.allreduce.wrong" || c.metric == "job.allreduce.wrong") {
    f.wrong.add({{"check", c.metric}, {"host", c.host}, {"subject", c.subject}}, c.value);
  } else if (c.metric == "memory.copy_gbps") {
    f.mem_bw.add({{"host", c.host}, {"subject", c.subject}}, c.value * 1e9);
  } else if (c.metric == "device.h2d_gbps" || c.metric == "device.d2h_gbps") {
    f.transfer.add({{"host", c.host}, {"subject", c.subject}, {"direction", c.metric.substr(7, 3)}}, c.value * 1e9);
  } else if (c.metric == "clock.skew_ms") {
    f.skew.add({{"host", c.host}}, c.value / 1e3);
  } else if (c.metric == "straggler.lateness_us") {
    f.late.add({{"host", c.host}, {"subject", c.subject}}, c.value / 1e6);
  } else if (c.metric == "soak.calls_wrong" || c.metric == "soak.elements_wrong") {
    f.soak_wrong.add({{"host", c.host}, {"subject", c.subject}, {"what", c.metric.substr(5, c.metric.find('_') - 5)}},
                     c.value);
  } else if (c.metric == "soak.calls") {
    f.soak_calls.add({}, c.value);
  } else if (c.metric == "drift.odd") {
    f.drift_odd.add({{"host", c.host}, {"key", c.key}}, 1);
  } else if (c.metric == "drift.split") {
    f.drift_split.add({{"key", c.key}}, c.value);
  } else if (c.metric == "phase.seconds") {
    f.phase_s.add({{"phase", c.subject}}, c.value);
  } else if (c.skipped.empty() && c.metric.rfind("gpu.", 0) == 0) {
    const std::string reading = c.metric.substr(4);
    f.gpu_value.add({{"host", c.host}, {"subject", c.subject}, {"reading", reading}, {"unit", c.unit}}, c.value);
    f.gpu_ok.add({{"host", c.host}, {"subject", c.subject}, {"reading", reading}}, c.status == Status::healthy ? 1 : 0);
  } else if (c.skipped.empty() && c.metric.rfind("hardware.", 0) == 0) {
    const std::string figure = c.metric.substr(9, c.metric.find("_fraction") - 9);
    f.datasheet.add({{"host", c.host}, {"subject", c.subject}, {"figure", figure}}, c.value);
  }
}

}  // namespace

std::string prometheus_text(const std::vector<Record>& records, double timestamp_s, const PromInfo& info) {
  Family run_info("distbench_info", "What ran: distbench's version and git sha, the backend, nodes, ranks and level.");
  run_info.add({{"version", kVersion},
                {"git_sha", kGitSha},
                {"backend", info.backend},
                {"nodes", info.nodes > 0 ? std::to_string(info.nodes) : ""},
                {"ranks", info.ranks > 0 ? std::to_string(info.ranks) : ""},
                {"level", info.level}},
               1);
  HealthFamilies families;
  for (const Record& r : records) {
    if (r.kind == "health") add_figure(families, check_of(r));
  }
  families.stamp.add({}, timestamp_s);
  return run_info.text() + families.text();
}

namespace {

// The whole check's status, unknown (3), with its reason as a label, and when.
std::string unknown_text(const std::string& reason, const char* stamp_name, const char* stamp_help, double t) {
  Family cluster_status("distbench_health_status",
                        "Verdict of the whole check (the exit code): 0 healthy, 1 degraded, 2 failed, 3 unknown.");
  cluster_status.add({{"reason", reason}}, static_cast<double>(Status::unknown));
  Family stamp(stamp_name, stamp_help);
  stamp.add({}, t);
  return cluster_status.text() + stamp.text();
}

}  // namespace

std::string prometheus_unfinished_text(double started_s) {
  return unknown_text("the check started and has not ended: still running, or killed",
                      "distbench_health_started_timestamp_seconds", "When the unfinished check started (Unix time).",
                      started_s);
}

std::string prometheus_ended_early_text(const std::string& reason, double ended_s) {
  return unknown_text(reason, "distbench_health_last_run_timestamp_seconds", "When the check ended (Unix time).",
                      ended_s);
}

}  // namespace distbench::health
