// A connector for one process alone (rank 0 of 1), so that collective code runs without mpirun: the sampler's unit
// tests, and GPU tests, where with -g the single process drives several GPUs and so exercises the multi-rank paths
// on a machine with more than one GPU.
#pragma once

#include "core/connector.hpp"

#include <cstdlib>
#include <vector>

namespace distbench::test_support {

class LocalConnector final : public Connector {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int local_rank() const override { return 0; }
  int local_size() const override { return 1; }
  int root_rank() const override { return 0; }
  std::string hostname() const override { return "localhost"; }
  std::vector<int> node_of_ranks() const override { return {0}; }
  void barrier() override {}
  void broadcast(std::span<std::byte>, int) override {}
  std::vector<std::vector<std::byte>> gather(std::span<const std::byte> data, int) override {
    return {std::vector<std::byte>(data.begin(), data.end())};
  }
  std::vector<std::vector<std::byte>> allgather(std::span<const std::byte> data) override {
    return {std::vector<std::byte>(data.begin(), data.end())};
  }
  [[noreturn]] void abort(int exit_code) override { std::_Exit(exit_code); }
};

}  // namespace distbench::test_support
