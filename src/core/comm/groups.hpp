// Groups of ranks: the world, consecutive groups of `group_size` (TorchShard's model-parallel groups), the ranks
// of each node, and the data-parallel groups that cut across consecutive ones.
#pragma once

#include <string>
#include <vector>

namespace distbench {

// A split of the world's ranks into disjoint groups; every rank is in exactly one.
struct Partition {
  std::vector<std::vector<int>> groups;  // world ranks, ascending within each group
  std::string label;                     // "world", "group-size 2", "node"

  // Index of the group that holds `world_rank`.
  int group_of(int world_rank) const;
  // The world ranks of the group that holds `world_rank`.
  const std::vector<int>& members_of(int world_rank) const;
  // Rank of `world_rank` within its group.
  int rank_in_group(int world_rank) const;
  bool operator==(const Partition& other) const { return groups == other.groups; }
};

Partition world_partition(int world_size);
// Groups {0..G-1}, {G..2G-1}, ...; throws usage_error when G does not divide the world size.
Partition consecutive_partition(int world_size, int group_size);
// Ranks {r, r+G, r+2G, ...}: the data-parallel groups that pair with consecutive groups of size G.
Partition strided_partition(int world_size, int group_size);
// One group per node, from the node index of every rank.
Partition node_partition(const std::vector<int>& node_of_ranks);

}  // namespace distbench
