// The root's judgement of the soak: a rank whose results read back wrong even once has failed.
#include "benchmarks/health/soak.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace distbench::health {
namespace {

double soak_figure(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : kNotMeasured;
}

// Which cases read back wrong, and how often: "allreduce of 8 MiB float32: 3 calls, ...".
std::string soak_wrong_cases(const nlohmann::json& j) {
  std::string out;
  if (!j.contains("wrong_cases")) return out;
  for (const auto& [what, calls] : j["wrong_cases"].items()) {
    out += fmt::format("{}{}: {} wrong", out.empty() ? "" : ", ", what, calls.get<std::uint64_t>());
  }
  return out;
}

// What went wrong on one rank, in words: where, how often, and what to do.
std::string soak_why(const nlohmann::json& j, const std::string& host) {
  return fmt::format(
      "{:.0f} of {:.0f} calls read back wrong on {} ({}), {:.0f} of {:.4g} elements, first at call {:.0f} ({}): "
      "intermittent data corruption on this rank's device, memory or path to it; drain the node, then run the "
      "soak again and the vendor's diagnostics",
      soak_figure(j, "calls_wrong"), soak_figure(j, "calls"), host, j.value("device", std::string("?")),
      soak_figure(j, "elements_wrong"), soak_figure(j, "elements_checked"), soak_figure(j, "first_wrong_call"),
      soak_wrong_cases(j));
}

}  // namespace

std::vector<Check> soak_checks(const PhaseResult& phase, const Topology& topo, const HealthPlan& plan) {
  std::vector<Check> out;
  double calls = kNotMeasured;
  for (std::size_t r = 0; r < phase.ranks.size(); ++r) {
    const auto& j = phase.ranks[r];
    if (!j || j->contains("error") || !j->contains("calls")) continue;  // arrival_checks says why
    const std::string subject = fmt::format("rank {}", r);
    const std::string& host = topo.host_of(static_cast<int>(r));
    calls = std::isnan(calls) ? soak_figure(*j, "calls") : std::min(calls, soak_figure(*j, "calls"));
    for (const char* key : {"calls_wrong", "elements_wrong"}) {
      Check c = make_check("soak", subject, host, fmt::format("soak.{}", key), soak_figure(*j, key),
                           key[0] == 'c' ? "calls" : "elements");
      c.limit = "== 0";
      if (c.value != 0) {
        c.status = Status::failed;
        c.why = soak_why(*j, host);
      }
      out.push_back(std::move(c));
    }
  }
  if (!std::isnan(calls)) {
    // Every rank made the same calls (they agree each round whether to go on): information, never a verdict.
    out.push_back(make_check("soak", "job", "", "soak.calls", calls, "calls"));
  }
  apply_plan_rules(out, plan);
  return out;
}

}  // namespace distbench::health
