#include "benchmarks/health/drift.hpp"

#include "core/report/text.hpp"
#include "core/sys/quote.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace distbench::health {
namespace {

constexpr std::size_t kDriftValueChars = 60;      // a value as a why shows it
constexpr std::size_t kDriftGroupsShown = 4;      // values a split check names
constexpr std::size_t kDriftHostsPerGroup = 3;    // hosts named beside each of them
constexpr std::size_t kDriftMoreKeysChars = 300;  // the keys a node's "more" check names

// One value of a key and the nodes (indices into the compared nodes) that have it; absent: the key is missing there.
struct ValueGroup {
  std::optional<std::string> value;
  std::vector<std::size_t> nodes;
};

std::string shown(const std::optional<std::string>& value) {
  if (!value) return "not set";
  if (value->empty()) return "\"\"";
  return excerpt(*value, kDriftValueChars);
}

// One key's difference on one node, kept until the node's checks are made.
struct OddValue {
  std::string key;
  std::string why;
  double sharing = 0;  // nodes with this node's value
};

std::string odd_why(const std::string& key, const ValueGroup& mine, const ValueGroup& most, std::size_t nodes) {
  std::string here = shown(mine.value) + " here";
  if (mine.nodes.size() > 1)
    here += fmt::format(" and on {}", plural(mine.nodes.size() - 1, "other node", "other nodes"));
  const bool two_sides = mine.nodes.size() == 1 && mine.nodes.size() + most.nodes.size() == nodes;
  const std::string where = two_sides ? fmt::format("the other {}", plural(most.nodes.size(), "node", "nodes"))
                                      : fmt::format("{} of the {} nodes", most.nodes.size(), nodes);
  return fmt::format("{}: {}, {} on {}", excerpt(key, kDriftValueChars), here, shown(most.value), where);
}

std::string split_why(const std::string& key, const std::vector<ValueGroup>& groups,
                      const std::vector<std::string>& hosts, std::size_t nodes) {
  std::string why = fmt::format("{}: ", excerpt(key, kDriftValueChars));
  why += groups.size() == nodes && nodes > 2 ? fmt::format("each of the {} nodes has its own value", nodes)
                                             : fmt::format("no value is on most of the {} nodes", nodes);
  for (std::size_t g = 0; g < groups.size() && g < kDriftGroupsShown; ++g) {
    std::string who;
    for (std::size_t k = 0; k < groups[g].nodes.size() && k < kDriftHostsPerGroup; ++k) {
      who += fmt::format("{}{}", k == 0 ? "" : ", ", excerpt(hosts[groups[g].nodes[k]], kDriftValueChars));
    }
    if (groups[g].nodes.size() > kDriftHostsPerGroup) who += ", ...";
    why += fmt::format("{} {} on {} ({})", g == 0 ? ":" : ";", shown(groups[g].value),
                       plural(groups[g].nodes.size(), "node", "nodes"), who);
  }
  if (groups.size() > kDriftGroupsShown) {
    std::size_t rest = 0;
    for (std::size_t g = kDriftGroupsShown; g < groups.size(); ++g) rest += groups[g].nodes.size();
    const std::size_t more = groups.size() - kDriftGroupsShown;
    why += fmt::format("; {} more {} on {}", more, more == 1 ? "value" : "values", plural(rest, "node", "nodes"));
  }
  return why;
}

Check odd_check(const std::string& host, std::string key, double value, std::string why) {
  Check c = make_check("drift", host, host, "drift.odd", value, "");
  c.key = std::move(key);
  c.status = Status::degraded;
  c.why = std::move(why);
  return c;
}

// A node's checks: one per key it differs on; past the cap, the last check names the keys left.
void add_odd_checks(std::vector<Check>& out, const std::string& host, const std::vector<OddValue>& odd) {
  const std::size_t each = odd.size() <= kMaxDriftChecksPerNode ? odd.size() : kMaxDriftChecksPerNode - 1;
  for (std::size_t k = 0; k < each; ++k) out.push_back(odd_check(host, odd[k].key, odd[k].sharing, odd[k].why));
  if (each == odd.size()) return;
  std::string keys;
  for (std::size_t k = each; k < odd.size(); ++k) keys += fmt::format("{}{}", k == each ? "" : ", ", odd[k].key);
  out.push_back(odd_check(
      host, "more", static_cast<double>(odd.size() - each),
      fmt::format("{} more keys differ from most nodes': {}", odd.size() - each, excerpt(keys, kDriftMoreKeysChars))));
}

// The values of one key over the compared nodes (absent: a group of its own), most nodes first; among as many, in
// order of the first node that has each.
std::vector<ValueGroup> value_groups(const std::map<std::string, std::vector<std::size_t>>& values, std::size_t nodes) {
  std::vector<ValueGroup> groups;
  std::vector<bool> has(nodes, false);
  for (const auto& [value, with] : values) {
    groups.push_back({value, with});
    for (std::size_t n : with) has[n] = true;
  }
  ValueGroup absent;
  for (std::size_t n = 0; n < nodes; ++n) {
    if (!has[n]) absent.nodes.push_back(n);
  }
  if (!absent.nodes.empty()) groups.push_back(std::move(absent));
  std::stable_sort(groups.begin(), groups.end(), [](const ValueGroup& a, const ValueGroup& b) {
    return a.nodes.size() != b.nodes.size() ? a.nodes.size() > b.nodes.size() : a.nodes.front() < b.nodes.front();
  });
  return groups;
}

}  // namespace

nlohmann::json facts_json(const KeyValues& facts) {
  nlohmann::json pairs = nlohmann::json::array();
  for (const auto& [key, value] : facts) pairs.push_back({key, value});
  return {{"facts", pairs}};
}

std::optional<KeyValues> facts_of(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("facts") || !j["facts"].is_array()) return std::nullopt;
  KeyValues out;
  for (const auto& pair : j["facts"]) {
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string()) return std::nullopt;
    out.emplace_back(pair[0].get<std::string>(), pair[1].get<std::string>());
  }
  return out;
}

std::vector<Check> drift_checks(const std::vector<std::string>& hosts,
                                const std::vector<std::optional<KeyValues>>& facts) {
  std::vector<std::string> compared_hosts;                                        // the nodes whose facts arrived
  std::map<std::string, std::map<std::string, std::vector<std::size_t>>> by_key;  // key -> value -> nodes
  for (std::size_t n = 0; n < facts.size() && n < hosts.size(); ++n) {
    if (!facts[n]) continue;
    for (const auto& [key, value] : *facts[n]) {
      auto& nodes = by_key[key][value];
      if (nodes.empty() || nodes.back() != compared_hosts.size()) nodes.push_back(compared_hosts.size());
    }
    compared_hosts.push_back(hosts[n]);
  }
  const std::size_t nodes = compared_hosts.size();
  std::vector<Check> out;
  if (nodes == 0) return out;
  if (nodes == 1) {
    return {make_skipped_check("drift", "all nodes", "", "drift.nodes",
                               "drift: not tested: one node, nothing to compare its software and settings with")};
  }
  Check summary = make_check("drift", "all nodes", "", "drift.nodes", static_cast<double>(nodes), "nodes");
  std::vector<std::vector<OddValue>> odd(nodes);
  std::vector<Check> splits;
  for (const auto& [key, values] : by_key) {
    const std::vector<ValueGroup> groups = value_groups(values, nodes);
    if (groups.size() == 1) continue;
    if (2 * groups.front().nodes.size() > nodes) {
      for (std::size_t g = 1; g < groups.size(); ++g) {
        const std::string why = odd_why(key, groups[g], groups.front(), nodes);
        for (std::size_t n : groups[g].nodes) {
          odd[n].push_back({key, why, static_cast<double>(groups[g].nodes.size())});
        }
      }
      continue;
    }
    Check c = make_check("drift", key, "", "drift.split", static_cast<double>(groups.size()), "values");
    c.key = key;
    c.status = Status::degraded;
    c.why = split_why(key, groups, compared_hosts, nodes);
    splits.push_back(std::move(c));
  }
  for (std::size_t n = 0; n < nodes; ++n) {
    if (!odd[n].empty()) add_odd_checks(out, compared_hosts[n], odd[n]);
  }
  out.insert(out.end(), std::make_move_iterator(splits.begin()), std::make_move_iterator(splits.end()));
  out.push_back(std::move(summary));
  return out;
}

}  // namespace distbench::health
