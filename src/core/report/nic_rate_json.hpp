// The JSON form of each node's NIC rate (core/sys/nic_rate.hpp), as a report's "environment.nic_rates" and as one
// rank's message when a run gathers them: [{"host", "interface", "mbps", "source", "note"}], "mbps" null when unknown.
#pragma once

#include "core/report/json_fields.hpp"
#include "core/report/run_info.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace distbench {

nlohmann::ordered_json nic_rate_json(const NodeNicRate& n);
NodeNicRate nic_rate_from(const JsonField& j);

nlohmann::ordered_json nic_rates_json(const std::vector<NodeNicRate>& rates);
std::vector<NodeNicRate> nic_rates_from(const JsonField& j);

}  // namespace distbench
