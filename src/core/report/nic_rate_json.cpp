#include "core/report/nic_rate_json.hpp"

namespace distbench {

nlohmann::ordered_json nic_rate_json(const NodeNicRate& n) {
  using json = nlohmann::ordered_json;
  const auto text_or_null = [](const std::string& s) { return s.empty() ? json(nullptr) : json(s); };
  json j;
  j["host"] = n.host;
  j["interface"] = text_or_null(n.rate.interface);
  j["mbps"] = n.rate.mbps ? json(*n.rate.mbps) : json(nullptr);
  j["source"] = text_or_null(n.rate.source);
  j["note"] = n.rate.note;
  return j;
}

NodeNicRate nic_rate_from(const JsonField& j) {
  NodeNicRate n;
  n.host = j.at("host").text();
  n.rate.interface = j.at("interface").text_or_empty();
  const double mbps = j.at("mbps").number_or_nan();
  if (mbps == mbps) {
    if (!(mbps > 0)) j.at("mbps").fail("a positive rate in Mb/s or null");
    n.rate.mbps = mbps;
  }
  n.rate.source = j.at("source").text_or_empty();
  n.rate.note = j.at("note").text();
  return n;
}

nlohmann::ordered_json nic_rates_json(const std::vector<NodeNicRate>& rates) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const NodeNicRate& n : rates) j.push_back(nic_rate_json(n));
  return j;
}

std::vector<NodeNicRate> nic_rates_from(const JsonField& j) {
  std::vector<NodeNicRate> out;
  for (const JsonField& one : j.elements()) out.push_back(nic_rate_from(one));
  return out;
}

}  // namespace distbench
