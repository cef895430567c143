#include "core/comm/groups.hpp"

#include "core/error.hpp"

#include <algorithm>

namespace distbench {

int Partition::group_of(int world_rank) const {
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (std::find(groups[g].begin(), groups[g].end(), world_rank) != groups[g].end()) return static_cast<int>(g);
  }
  throw failure(fmt::format("rank {} is in no group of partition '{}'", world_rank, label));
}

const std::vector<int>& Partition::members_of(int world_rank) const {
  return groups[static_cast<std::size_t>(group_of(world_rank))];
}

int Partition::rank_in_group(int world_rank) const {
  const auto& members = members_of(world_rank);
  return static_cast<int>(std::find(members.begin(), members.end(), world_rank) - members.begin());
}

Partition world_partition(int world_size) {
  Partition p{{{}}, "world"};
  for (int r = 0; r < world_size; ++r) p.groups[0].push_back(r);
  return p;
}

namespace {
void check_group_size(int world_size, int group_size) {
  if (group_size < 1 || group_size > world_size || world_size % group_size != 0) {
    throw usage_error(fmt::format("--group-size {} does not divide the {} ranks of the job; pick a divisor of {}",
                                  group_size, world_size, world_size));
  }
}
}  // namespace

Partition consecutive_partition(int world_size, int group_size) {
  check_group_size(world_size, group_size);
  Partition p{{}, fmt::format("group-size {}", group_size)};
  for (int first = 0; first < world_size; first += group_size) {
    auto& g = p.groups.emplace_back();
    for (int r = first; r < first + group_size; ++r) g.push_back(r);
  }
  return p;
}

Partition strided_partition(int world_size, int group_size) {
  check_group_size(world_size, group_size);
  Partition p{{}, fmt::format("stride {}", group_size)};
  for (int offset = 0; offset < group_size; ++offset) {
    auto& g = p.groups.emplace_back();
    for (int r = offset; r < world_size; r += group_size) g.push_back(r);
  }
  return p;
}

Partition node_partition(const std::vector<int>& node_of_ranks) {
  Partition p{{}, "node"};
  for (std::size_t r = 0; r < node_of_ranks.size(); ++r) {
    if (node_of_ranks[r] < 0) throw failure(fmt::format("rank {} has no node index", r));
    const auto node = static_cast<std::size_t>(node_of_ranks[r]);
    if (p.groups.size() <= node) p.groups.resize(node + 1);
    p.groups[node].push_back(static_cast<int>(r));
  }
  return p;
}

}  // namespace distbench
