#include "benchmarks/health/spec_checks.hpp"

#include "benchmarks/health/hardware_table.hpp"
#include "core/sys/gpu_readings.hpp"

#include <fmt/format.h>

#include <set>
#include <tuple>

namespace distbench::health {
namespace {

// NVML's reading of a rank's GPU while its GEMMs ran: clocks held down and a PCIe link below its maximum count here,
// where an idle GPU's would not.
void loaded_checks(const nlohmann::json& loaded, const std::string& subject, const std::string& host,
                   std::vector<Check>& out) {
  if (loaded.contains("unavailable") && loaded["unavailable"].is_string()) {
    out.push_back(make_skipped_check("rank", subject, host, "gpu.loaded_clock_event_reasons",
                                     fmt::format("NVML under load: {}", loaded["unavailable"].get<std::string>())));
    return;
  }
  if (loaded.contains("clock_event_reasons")) {
    const auto reasons = loaded["clock_event_reasons"].get<unsigned long long>();
    Check c = make_check("rank", subject, host, "gpu.loaded_clock_event_reasons", static_cast<double>(reasons), "1");
    c.limit = "no thermal, power-brake or hardware slowdown under load";
    const std::string names = clock_reason_text(reasons);
    if (clock_reasons_are_faults(reasons)) c.status = Status::degraded;
    c.why = names.empty() ? "none" : fmt::format("under load: {}", names);
    out.push_back(std::move(c));
  }
  for (const auto& [now, max, metric, unit] :
       {std::tuple{"pcie_gen", "pcie_max_gen", "gpu.loaded_pcie_gen", "gen"},
        std::tuple{"pcie_width", "pcie_max_width", "gpu.loaded_pcie_width", "lanes"}}) {
    if (!loaded.contains(now) || !loaded.contains(max)) continue;
    Check c = make_check("rank", subject, host, metric, loaded[now].get<double>(), unit);
    const double most = loaded[max].get<double>();
    c.limit = fmt::format(">= {:.0f} (the most the GPU and its slot allow)", most);
    if (c.value < most) {
      c.status = Status::degraded;
      c.why = fmt::format("under load the link runs at {:.0f} of {:.0f}", c.value, most);
    }
    out.push_back(std::move(c));
  }
  if (loaded.contains("sm_clock_mhz")) {
    Check c = make_check("rank", subject, host, "gpu.loaded_sm_clock_mhz", loaded["sm_clock_mhz"].get<double>(), "MHz");
    c.why =
        fmt::format("{:.0f} W, {:.0f} C under load", loaded.value("power_w", 0.0), loaded.value("temperature_c", 0.0));
    out.push_back(std::move(c));
  }
}

// One GPU rank's figures against its datasheet: a fraction each, degraded below SpecFractions' bounds (information
// when processes share the GPU: each measured its share).
void datasheet_checks(const nlohmann::json& j, const GpuSpec& spec, const std::string& subject, const std::string& host,
                      std::vector<Check>& out) {
  const SpecFractions fractions;
  const int sharers = j.value("processes_per_gpu", 1);
  auto held = [&](const char* metric, const char* key, double factor, double peak, double least,
                  const std::string& what) {
    if (!j.contains(key) || peak <= 0) return;
    Check c = make_check("rank", subject, host, metric, factor * j[key].get<double>() / peak, "1");
    c.limit = fmt::format(">= {:.2f} of {}", least, what);
    c.why = fmt::format("{:.0f} % of {}", 100 * c.value, what);
    if (sharers > 1) {
      // Each process measured while the others used the same GPU: its share, not the GPU's figure.
      c.why = fmt::format("{} processes share this GPU, each measured its share (information): {}", sharers, c.why);
    } else if (c.value < least) {
      c.status = Status::degraded;
    }
    out.push_back(std::move(c));
  };
  held("hardware.memory_fraction", "copy_gbps", 2.0, spec.memory_gbps, fractions.memory,
       fmt::format("the {}'s memory bandwidth ({:.0f} GB/s)", spec.short_name, spec.memory_gbps));
  const double link = pcie_gbps(spec.pcie_gen, spec.pcie_width);
  const std::string link_text =
      fmt::format("PCIe Gen{} x{} ({:.1f} GB/s each way)", spec.pcie_gen, spec.pcie_width, link);
  held("hardware.h2d_fraction", "h2d_gbps", 1.0, link, fractions.host_link, link_text);
  held("hardware.d2h_fraction", "d2h_gbps", 1.0, link, fractions.host_link, link_text);
  if (j.contains("gemm_tflops")) {
    held("hardware.gemm_fraction", "gemm_tflops", 1.0, spec.fp32_tflops, fractions.gemm,
         fmt::format("the {}'s FP32 rate ({:.1f} TFLOP/s)", spec.short_name, spec.fp32_tflops));
  } else if (j.contains("gemm_skipped")) {
    out.push_back(
        make_skipped_check("rank", subject, host, "hardware.gemm_fraction", j["gemm_skipped"].get<std::string>()));
  }
}

}  // namespace

std::vector<Check> spec_checks(const PhaseResult& rank_phase, const Topology& topo, const HealthPlan& plan) {
  std::vector<Check> out;
  std::set<int> host_memory_nodes;
  for (std::size_t r = 0; r < rank_phase.ranks.size(); ++r) {
    const auto& j = rank_phase.ranks[r];
    if (!j || j->contains("error")) continue;
    const std::string& host = topo.host_of(static_cast<int>(r));
    const std::string model = j->value("model", std::string());
    if (model.empty()) {
      const int node = topo.node_of_rank[r];
      if (host_memory_nodes.insert(node).second) {
        out.push_back(make_skipped_check("rank", host, host, "hardware.memory_fraction",
                                         "ranks on host memory (this backend): the GPU's bandwidths and GEMM rate are "
                                         "held to its datasheet under --backend nccl"));
      }
      continue;
    }
    const std::string subject = fmt::format("rank {} ({})", r, model);
    if (j->contains("loaded")) loaded_checks((*j)["loaded"], subject, host, out);
    const std::optional<GpuSpec> spec = find_gpu_spec(model);
    if (!spec) {
      out.push_back(make_skipped_check("rank", subject, host, "hardware.memory_fraction",
                                       fmt::format("no datasheet figures for '{}' in the table of known GPUs "
                                                   "(docs/health.md): its figures are judged against the cluster alone",
                                                   model)));
      continue;
    }
    datasheet_checks(*j, *spec, subject, host, out);
  }
  apply_plan_rules(out, plan);
  return out;
}

}  // namespace distbench::health
