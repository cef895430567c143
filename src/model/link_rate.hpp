// Which link rate `distbench model` holds bandwidths to, and where it came from: --link-gbps when given, else the
// slowest NIC the reports recorded at run time (RunInfo::nic_rates), else unknown, said so.
#pragma once

#include "core/report/json_model.hpp"

#include <string>
#include <vector>

namespace distbench::model {

struct LinkRate {
  double gbps = 0;     // GB/s per rank and direction; 0: none
  std::string source;  // "--link-gbps", "eth0 10 Gb/s as read on nodeA (...)", "unknown: ..."; empty: say nothing
};

// `given_gbps` > 0 (--link-gbps) wins. Else, when the reports recorded NIC rates: none when every report ran on one
// node (no traffic crosses a NIC); unknown when a node's rate is, naming it; else the slowest node's, since a ring's
// busbw is bounded by the slowest NIC it crosses. Reports that recorded none (older ones) leave it unsaid.
LinkRate link_rate_of(const std::vector<ParsedReport>& reports, double given_gbps);

}  // namespace distbench::model
