// The odd node out: each node's software and settings (core/sys/node_facts.hpp, gathered by its first rank),
// compared on the root key by key. A node whose value differs from the one most nodes have is named with the key and
// both values; where no value is on most nodes (two nodes that differ, a tie) the check names no node rather than
// guess which one is odd.
#pragma once

#include "benchmarks/health/verdict.hpp"
#include "core/sys/key_values.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace distbench::health {

// Beyond this many keys on which one node differs, its further keys are one check (key "more") naming them.
inline constexpr std::size_t kMaxDriftChecksPerNode = 8;

// The facts as a phase result sends them ({"facts": [[key, value], ...]}), and back (nullopt: malformed).
nlohmann::json facts_json(const KeyValues& facts);
std::optional<KeyValues> facts_of(const nlohmann::json& j);

// Checks of phase "drift" from each node's facts (nullopt: none arrived; that node is left out):
// - per node and key where the node's value (or its absence) is not the one more than half the nodes have: metric
//   "drift.odd" (value: how many nodes share this node's value), subject and host the node, key the key, degraded,
//   why "limit.memlock: 64 KiB here, unlimited on the other 2 nodes"; at most kMaxDriftChecksPerNode a node;
// - per key on which no value is on more than half the nodes: "drift.split" (value: how many values), subject the
//   key, no host, degraded, why naming the values with their counts (bounded: a key on which every node differs is
//   one check);
// - one "drift.nodes" (value: the nodes compared), healthy; with one node, why says there is nothing to compare.
std::vector<Check> drift_checks(const std::vector<std::string>& hosts,
                                const std::vector<std::optional<KeyValues>>& facts);

}  // namespace distbench::health
