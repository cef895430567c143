#include "benchmarks/health/nic_checks.hpp"

#include <fmt/format.h>

namespace distbench::health {

void add_nic_sent(nlohmann::json& result, const NicRate& rate) {
  result["nic"] = {{"interface", rate.interface},
                   {"mbps", rate.mbps ? nlohmann::json(*rate.mbps) : nlohmann::json(nullptr)},
                   {"source", rate.source},
                   {"note", rate.note}};
}

std::vector<std::optional<NicRate>> nic_rates_sent(const PhaseResult& phase, const Topology& topo) {
  std::vector<std::optional<NicRate>> out(topo.hosts.size());
  for (std::size_t n = 0; n < topo.hosts.size(); ++n) {
    const auto& j = phase.ranks[static_cast<std::size_t>(topo.leaders[n])];
    if (!j || !j->contains("nic") || !(*j)["nic"].is_object()) continue;
    const nlohmann::json& nic = (*j)["nic"];
    NicRate r;
    r.interface = nic.value("interface", std::string());
    if (nic.contains("mbps") && nic["mbps"].is_number() && nic["mbps"].get<double>() > 0) {
      r.mbps = nic["mbps"].get<double>();
    }
    r.source = nic.value("source", std::string());
    r.note = nic.value("note", std::string());
    out[n] = std::move(r);
  }
  return out;
}

std::vector<Check> nic_checks(const std::vector<std::optional<NicRate>>& rates, const Topology& topo,
                              const std::vector<Check>& summaries) {
  std::vector<Check> out;
  for (std::size_t n = 0; n < rates.size() && n < topo.hosts.size(); ++n) {
    if (!rates[n]) continue;
    const NicRate& r = *rates[n];
    const std::string& host = topo.hosts[n];
    Check c =
        make_check("links", host, host, "node.nic.link_gbps", r.mbps ? mbps_to_gbps(*r.mbps) : kNotMeasured, "GB/s");
    if (r.mbps) {
      c.limit = fmt::format("{}, {:g} Mb/s read from {} ({})", r.interface, *r.mbps, r.source, r.note);
    } else {
      c.limit = "the rate its NIC reports";
      c.why = fmt::format("unknown: {}", r.note);
    }
    out.push_back(std::move(c));
    if (!r.mbps) continue;
    for (const Check& s : summaries) {
      if (s.metric != "node.link.median_gbps" || s.subject != host || !(s.value == s.value)) continue;
      const double nic_gbps = mbps_to_gbps(*r.mbps);
      Check f = make_check("links", host, host, "node.link.fraction_of_nic", s.value / nic_gbps, "1");
      f.limit = fmt::format("its median link {:.4g} GB/s of {}'s {:.4g} GB/s ({:g} Mb/s)", s.value, r.interface,
                            nic_gbps, *r.mbps);
      out.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace distbench::health
