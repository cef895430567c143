#include "model/link_rate.hpp"

#include "core/sys/nic_rate.hpp"

#include <fmt/format.h>

#include <set>

namespace distbench::model {

LinkRate link_rate_of(const std::vector<ParsedReport>& reports, double given_gbps) {
  if (given_gbps > 0) return {given_gbps, "--link-gbps"};
  const NodeNicRate* slowest = nullptr;
  const NodeNicRate* unknown = nullptr;
  std::set<std::string> nodes;
  std::size_t recorded = 0;
  bool several_nodes = false;
  for (const ParsedReport& r : reports) {
    std::set<std::string> hosts;
    for (const RankInfo& k : r.info.ranks) hosts.insert(k.host);
    several_nodes = several_nodes || hosts.size() > 1;
    recorded += r.info.nic_rates.empty() ? 0 : 1;
    for (const NodeNicRate& n : r.info.nic_rates) {
      nodes.insert(n.host);
      if (!n.rate.mbps) {
        if (unknown == nullptr) unknown = &n;
      } else if (slowest == nullptr || *n.rate.mbps < *slowest->rate.mbps) {
        slowest = &n;
      }
    }
  }
  if (recorded == 0) return {};
  if (!several_nodes) {
    return {0, "none: every report ran on one node, where no traffic crosses a NIC (--link-gbps gives one)"};
  }
  if (unknown != nullptr) {
    return {0, fmt::format("unknown: {}'s NIC rate was not read ({}); --link-gbps gives one", unknown->host,
                           unknown->rate.note)};
  }
  const NicRate& s = slowest->rate;
  return {mbps_to_gbps(*s.mbps),
          fmt::format("{} {:g} Mb/s as read on {} ({}){}", s.interface, *s.mbps, slowest->host, s.source,
                      nodes.size() > 1 ? fmt::format(", the slowest of {} nodes' NICs", nodes.size()) : std::string())};
}

}  // namespace distbench::model
