#include "benchmarks/health/gpu_checks.hpp"

#include "benchmarks/health/hardware_table.hpp"
#include "core/sys/gpu_readings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace distbench::health {
namespace {

// XIDs that mean the GPU or its memory needs attention (NVIDIA's XID catalogue): 48 double-bit ECC, 61/62 internal
// micro-controller faults, 63/64 row remapping (pending/failed), 74 NVLink, 79 fallen off the bus, 92 high single-bit
// ECC rate, 94/95 contained/uncontained ECC, 119/120 GSP faults, 140 ECC unrecovered. Others are mostly a program's
// own faults (13, 31, 43: illegal access, page fault, stopped kernel) and are shown as information.
bool serious_xid(long xid) {
  static const std::set<long> serious = {48, 61, 62, 63, 64, 74, 79, 92, 94, 95, 119, 120, 140};
  return serious.count(xid) != 0;
}

double number_or_nan(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : kNotMeasured;
}

// The checks of one GPU's NVML readings, section by section.
class GpuJudge {
 public:
  GpuJudge(const nlohmann::json& g, const std::string& host, std::size_t gpus_on_node, std::vector<Check>& out)
      : g(g),
        host(host),
        gpus_on_node(gpus_on_node),
        out(out),
        subject(fmt::format("{} GPU {}{}", host, g.value("index", -1L),
                            g.contains("bus_id") ? fmt::format(" ({})", g["bus_id"].get<std::string>()) : "")),
        unavailable(g.value("unavailable", nlohmann::json::object())),
        spec(find_gpu_spec(g.value("name", std::string()))) {}

  void all() {
    if (g.contains("lost")) {
      Check& c = add("gpu.lost", 1, "1");
      c.status = Status::failed;
      c.limit = "== 0";
      c.why = fmt::format("NVML counts this GPU and cannot open it: {}", g["lost"].get<std::string>());
      return;
    }
    memory_errors();
    state();
    pcie();
    nvlink();
  }

 private:
  Check& add(const char* metric, double value, const char* unit) {
    out.push_back(make_check("gpu", subject, host, metric, value, unit));
    return out.back();
  }
  void skipped(const char* metric, const char* key) {
    if (unavailable.contains(key)) {
      out.push_back(
          make_skipped_check("gpu", subject, host, metric,
                             fmt::format("NVML cannot read {}: {}", key, unavailable[key].get<std::string>())));
    }
  }

  // Memory errors.
  void memory_errors() {
    if (g.contains("ecc_enabled")) {
      Check& c = add("gpu.ecc_enabled", g["ecc_enabled"].get<bool>() ? 1 : 0, "1");
      if (c.value == 0 && spec) {
        c.status = Status::degraded;
        c.limit = "== 1";
        c.why = fmt::format("ECC is off on a {}: memory errors go unseen", spec->short_name);
      }
    } else {
      skipped("gpu.ecc_enabled", "ecc_enabled");
    }
    for (const char* key : {"ecc_volatile_uncorrected", "ecc_volatile_corrected", "ecc_aggregate_uncorrected",
                            "ecc_aggregate_corrected"}) {
      const std::string metric = fmt::format("gpu.{}", key);
      if (!g.contains(key)) {
        skipped(metric.c_str(), key);
        continue;
      }
      Check& c = add(metric.c_str(), g[key].get<double>(), "1");
      if (std::string_view(key) == "ecc_volatile_uncorrected") {
        c.limit = "== 0";
        if (c.value > 0) {
          c.status = Status::failed;
          c.why = fmt::format("{:.0f} uncorrected ECC errors since the driver loaded: data may have been corrupted",
                              c.value);
        }
      }
    }
    if (g.contains("retired_pages_pending")) {
      Check& c = add("gpu.retired_pages_pending", g["retired_pages_pending"].get<bool>() ? 1 : 0, "1");
      c.limit = "== 0";
      if (c.value != 0) {
        c.status = Status::degraded;
        c.why = "memory pages wait to be retired: reset the GPU or reboot the node";
      }
    }  // a GPU that remaps rows instead (Ampere on) answers Not Supported here: nothing to show
    if (g.contains("remapped_rows")) {
      const nlohmann::json& rr = g["remapped_rows"];
      Check& pending = add("gpu.remapped_rows_pending", rr.value("pending", false) ? 1 : 0, "1");
      pending.limit = "== 0";
      if (pending.value != 0) {
        pending.status = Status::degraded;
        pending.why = "a row remapping waits for a GPU reset: reset the GPU or reboot the node";
      }
      Check& failure = add("gpu.remapped_rows_failure", rr.value("failure", false) ? 1 : 0, "1");
      failure.limit = "== 0";
      if (failure.value != 0) {
        failure.status = Status::failed;
        failure.why = "a row remapping failed: the GPU's memory has more bad rows than it can replace";
      }
      add("gpu.remapped_rows_uncorrectable", rr.value("uncorrectable", 0.0), "1");
    } else {
      skipped("gpu.remapped_rows_pending", "remapped_rows");
    }
  }

  // State against limits.
  void state() {
    if (g.contains("clock_event_reasons")) {
      const auto reasons = g["clock_event_reasons"].get<unsigned long long>();
      Check& c = add("gpu.clock_event_reasons", static_cast<double>(reasons), "1");
      c.limit = "no thermal, power-brake or hardware slowdown";
      if (clock_reasons_are_faults(reasons)) {
        c.status = Status::degraded;
        c.why = fmt::format("clocks held down: {}", clock_reason_text(reasons));
      }
    } else {
      skipped("gpu.clock_event_reasons", "clock_event_reasons");
    }
    if (g.contains("temperature_c")) {
      Check& c = add("gpu.temperature_c", g["temperature_c"].get<double>(), "C");
      const double slowdown = number_or_nan(g, "temperature_slowdown_c");
      if (!std::isnan(slowdown) && slowdown > 0) {
        c.limit = fmt::format("< {:.0f} C (its slowdown threshold)", slowdown);
        if (c.value >= slowdown) {
          c.status = Status::degraded;
          c.why = "at its slowdown temperature: the GPU slows itself down";
        }
      }
    } else {
      skipped("gpu.temperature_c", "temperature_c");
    }
    if (g.contains("power_w")) {
      Check& c = add("gpu.power_w", g["power_w"].get<double>(), "W");
      const double limit = number_or_nan(g, "power_limit_w");
      if (!std::isnan(limit)) c.limit = fmt::format("<= {:.0f} W (its enforced limit)", limit);
    } else {
      skipped("gpu.power_w", "power_w");
    }
    if (g.contains("sm_clock_mhz")) {
      Check& c = add("gpu.sm_clock_mhz", g["sm_clock_mhz"].get<double>(), "MHz");
      const double max = number_or_nan(g, "sm_clock_max_mhz");
      if (!std::isnan(max)) c.limit = fmt::format("<= {:.0f} MHz (its maximum)", max);
    }
  }

  // The PCIe link: its width and generation now, against the most the GPU and its slot allow (NVML's maximum), and
  // that maximum against what the GPU is built for. An idle GPU's link drops to a lower generation to save power.
  void pcie() {
    if (g.contains("pcie_width") && g.contains("pcie_max_width")) {
      Check& c = add("gpu.pcie_width", g["pcie_width"].get<double>(), "lanes");
      const double max = g["pcie_max_width"].get<double>();
      const double built = spec ? spec->pcie_width : max;
      c.limit = fmt::format(">= x{:.0f}", std::max(max, built));
      if (c.value < max) {
        c.status = Status::degraded;
        c.why = fmt::format("the link trained at x{:.0f} of x{:.0f}: reseat the GPU or check its riser", c.value, max);
      } else if (spec && max < built) {
        c.status = Status::degraded;
        c.why = fmt::format("the slot allows x{:.0f} where the {} is built for x{}", max, spec->short_name,
                            spec->pcie_width);
      }
    } else {
      skipped("gpu.pcie_width", "pcie_width");
    }
    if (g.contains("pcie_gen") && g.contains("pcie_max_gen")) {
      Check& c = add("gpu.pcie_gen", g["pcie_gen"].get<double>(), "gen");
      const double max = g["pcie_max_gen"].get<double>();
      const bool idle = g.contains("clock_event_reasons") &&
                        (g["clock_event_reasons"].get<unsigned long long>() & nvml_api::kReasonGpuIdle) != 0;
      c.limit = fmt::format("Gen{:.0f} under load", spec ? std::max<double>(max, spec->pcie_gen) : max);
      if (spec && max < spec->pcie_gen) {
        c.status = Status::degraded;
        c.why = fmt::format("PCIe Gen{} x{} running at most at Gen{:.0f}: the slot or its settings limit it",
                            spec->pcie_gen, spec->pcie_width, max);
      } else if (c.value < max && !idle) {
        c.status = Status::degraded;
        c.why = fmt::format("the link runs at Gen{:.0f} of Gen{:.0f} while the GPU is busy", c.value, max);
      } else if (c.value < max) {
        c.why = fmt::format(
            "idle: the link rests at Gen{:.0f} (of Gen{:.0f}) to save power; h2d and d2h judge it "
            "under load",
            c.value, max);
      }
    } else {
      skipped("gpu.pcie_gen", "pcie_gen");
    }
  }

  // NVLink: links down when some are up (a GPU alone on its node may have none connected), and error counters.
  void nvlink() {
    if (g.contains("nvlink")) {
      double up = 0, down = 0, errors = 0;
      for (const auto& l : g["nvlink"]) {
        (l.value("up", false) ? up : down) += 1;
        errors += l.value("replay", 0.0) + l.value("recovery", 0.0) + l.value("crc_flit", 0.0);
      }
      Check& c = add("gpu.nvlink_down", down, "links");
      c.limit = "== 0";
      if (down > 0 && (up > 0 || gpus_on_node > 1)) {
        c.status = Status::degraded;
        c.why = fmt::format("{:.0f} of {:.0f} NVLink links are down", down, up + down);
      } else if (down > 0) {
        c.why = fmt::format("no link up: the only GPU on the node has no NVLink peer");
      }
      Check& e = add("gpu.nvlink_errors", errors, "1");
      e.why = errors > 0 ? "replay, recovery and CRC errors since the driver loaded (information)" : "";
    } else {
      skipped("gpu.nvlink_down", "nvlink");
    }
  }

  const nlohmann::json& g;
  const std::string& host;
  std::size_t gpus_on_node;
  std::vector<Check>& out;
  const std::string subject;
  const nlohmann::json unavailable;
  const std::optional<GpuSpec> spec;
};

// The node's XIDs: since boot from the kernel log, and those NVML reported during the phase.
void xid_checks(const nlohmann::json& node, const std::string& host, std::vector<Check>& out) {
  const nlohmann::json k = node.value("kernel_xids", nlohmann::json::object());
  if (!k.value("readable", false)) {
    out.push_back(make_skipped_check("gpu", host, host, "gpu.xid_since_boot",
                                     fmt::format("cannot read the kernel log: {}", k.value("why", std::string("?")))));
  } else {
    Check none = make_check("gpu", host, host, "gpu.xid_since_boot", 0, "1");
    none.limit = "no serious XID";
    if (k.value("xids", nlohmann::json::array()).empty()) out.push_back(none);
    for (const auto& x : k.value("xids", nlohmann::json::array())) {
      Check c = make_check("gpu", fmt::format("{} GPU {}", host, x.value("bus_id", std::string("?"))), host,
                           "gpu.xid_since_boot", x.value("xid", 0.0), "xid");
      c.limit = "no serious XID";
      const bool serious = serious_xid(x.value("xid", 0L));
      c.status = serious ? Status::degraded : Status::healthy;
      c.why = fmt::format("XID {} logged {} times since boot{}: {}", x.value("xid", 0), x.value("count", 0),
                          serious ? "" : " (a program's fault, information)", x.value("last_line", std::string()));
      out.push_back(std::move(c));
    }
  }
  const nlohmann::json e = node.value("xid_events", nlohmann::json::object());
  if (!e.value("listening", false)) {
    out.push_back(make_skipped_check("gpu", host, host, "gpu.xid_during_check",
                                     fmt::format("NVML events: {}", e.value("why", std::string("not listening")))));
    return;
  }
  const auto events = e.value("events", nlohmann::json::array());
  Check c = make_check("gpu", host, host, "gpu.xid_during_check", static_cast<double>(events.size()), "events");
  c.limit = "== 0";
  if (!events.empty()) {
    std::string list;
    bool serious = false;
    for (const auto& ev : events) {
      list += fmt::format("{}GPU {} XID {}", list.empty() ? "" : ", ", ev.value("gpu", -1), ev.value("xid", 0));
      serious = serious || serious_xid(ev.value("xid", 0L));
    }
    c.status = serious ? Status::failed : Status::degraded;
    c.why = "XID errors during the check: " + list;
  }
  out.push_back(std::move(c));
}

void peer_checks(const nlohmann::json& node, const std::string& host, std::vector<Check>& out) {
  const nlohmann::json p = node.value("peer_copies", nlohmann::json::object());
  if (p.contains("skipped")) {
    out.push_back(make_skipped_check("gpu", host, host, "gpu.peer_copy_gbps", p["skipped"].get<std::string>()));
    return;
  }
  const auto gbps = p.value("gbps", nlohmann::json::array());
  const auto direct = p.value("direct", nlohmann::json::array());
  std::vector<Check> pairs;
  for (std::size_t from = 0; from < gbps.size(); ++from) {
    for (std::size_t to = 0; to < gbps[from].size(); ++to) {
      if (from == to) continue;
      Check c = make_check("gpu", fmt::format("{} GPU {}->{}", host, from, to), host, "gpu.peer_copy_gbps",
                           gbps[from][to].get<double>(), "GB/s");
      if (!direct.empty() && !direct[from][to].get<bool>()) {
        c.status = Status::degraded;
        c.why = "no peer-to-peer path: CUDA stages the copy through host memory";
      }
      pairs.push_back(std::move(c));
    }
  }
  std::vector<Check*> group;
  for (Check& c : pairs) group.push_back(&c);
  judge_relative(group, Better::higher, RelativeRule{});
  out.insert(out.end(), pairs.begin(), pairs.end());
}

// The GPU count most nodes read (0 when no value has more than half of them).
int majority_gpu_count(const std::vector<int>& counts) {
  std::map<int, std::size_t> seen;
  for (int c : counts) ++seen[c];
  for (const auto& [count, n] : seen) {
    if (2 * n > counts.size() && counts.size() >= 3) return count;
  }
  return 0;
}

}  // namespace

std::vector<Check> node_gpu_checks(const nlohmann::json& node, const std::string& host, const HealthPlan& plan,
                                   int majority_count) {
  std::vector<Check> out;
  const int expected = plan.gpus_per_node.value_or(majority_count);
  if (node.contains("nvml_unavailable")) {
    const std::string why = node["nvml_unavailable"].get<std::string>();
    if (plan.gpus_per_node.value_or(0) > 0) {
      Check c = make_check("gpu", host, host, "gpu.count", kNotMeasured, "GPUs");
      c.status = Status::failed;
      c.limit = fmt::format("== {}", *plan.gpus_per_node);
      c.why = fmt::format("NVML cannot be opened: {}", why);
      out.push_back(std::move(c));
    } else {
      out.push_back(make_skipped_check("gpu", host, host, "gpu.count",
                                       fmt::format("every GPU check: NVML cannot be opened: {}", why)));
    }
  } else {
    const nlohmann::json& nvml = node["nvml"];
    if (!nvml.contains("count")) {
      out.push_back(make_skipped_check(
          "gpu", host, host, "gpu.count",
          fmt::format("NVML cannot count the GPUs: {}",
                      nvml.value("unavailable", nlohmann::json::object()).value("count", std::string("?")))));
    } else {
      Check c = make_check("gpu", host, host, "gpu.count", nvml["count"].get<double>(), "GPUs");
      if (expected > 0) {
        c.limit = fmt::format("== {}{}", expected, plan.gpus_per_node ? "" : " (most nodes)");
        if (c.value < expected) {
          c.status = Status::failed;
          c.why = fmt::format(
              "{:.0f} GPUs where {} are expected: a GPU is missing (fallen off the bus, not bound "
              "to the driver)",
              c.value, expected);
        } else if (c.value > expected) {
          c.status = Status::degraded;
          c.why = fmt::format("{:.0f} GPUs where {} are expected", c.value, expected);
        }
      }
      const std::string driver = nvml.value("driver", std::string("?"));
      c.why = c.why.empty() ? fmt::format("driver {}, CUDA {}", driver, nvml.value("cuda_driver", std::string("?")))
                            : c.why;
      out.push_back(std::move(c));
      const auto gpus = nvml.value("gpus", nlohmann::json::array());
      for (const auto& g : gpus) GpuJudge(g, host, gpus.size(), out).all();
    }
    xid_checks(node, host, out);
  }
  // Without NVML the skipped count above speaks for every GPU check, copies too, unless they were measured.
  const bool copies_measured = node.contains("peer_copies") && !node["peer_copies"].contains("skipped");
  if (!node.contains("nvml_unavailable") || copies_measured) peer_checks(node, host, out);
  return out;
}

std::vector<Check> gpu_checks(const PhaseResult& phase, const Topology& topo, const HealthPlan& plan) {
  std::vector<int> counts;
  for (int leader : topo.leaders) {
    const auto& j = phase.ranks[static_cast<std::size_t>(leader)];
    if (j && j->contains("nvml") && (*j)["nvml"].contains("count")) counts.push_back((*j)["nvml"]["count"].get<int>());
  }
  const int majority = majority_gpu_count(counts);
  std::vector<Check> out;
  for (std::size_t node = 0; node < topo.leaders.size(); ++node) {
    const auto& j = phase.ranks[static_cast<std::size_t>(topo.leaders[node])];
    if (!j || j->contains("error")) continue;  // the arrival checks name it
    auto more = node_gpu_checks(*j, topo.hosts[node], plan, majority);
    out.insert(out.end(), more.begin(), more.end());
  }
  apply_plan_rules(out, plan);
  return out;
}

}  // namespace distbench::health
