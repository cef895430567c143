// A connector for one process alone (rank 0 of 1), so that collective code runs without mpirun: the sampler's unit
// tests, and GPU tests, where with -g the single process drives several GPUs and so exercises the multi-rank paths
// on a machine with more than one GPU.
#pragma once

#include "core/connector.hpp"
#include "core/error.hpp"

#include <cstdlib>
#include <deque>
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
  std::vector<std::optional<std::vector<std::byte>>> gather_until(std::span<const std::byte> data, int,
                                                                  std::chrono::steady_clock::time_point) override {
    return {std::vector<std::byte>(data.begin(), data.end())};
  }
  void broadcast_until(std::vector<std::byte>&, int, std::chrono::steady_clock::time_point) override {}
  // Messages to itself wait in order, as MPI would deliver them to rank 0 of 1.
  void send_until(int, std::span<const std::byte> data, std::chrono::steady_clock::time_point) override {
    to_self_.emplace_back(data.begin(), data.end());
  }
  std::vector<std::byte> receive_until(int, std::chrono::steady_clock::time_point) override {
    if (to_self_.empty()) throw Error(ExitCode::timeout, "receive_until: rank 0 of 1 sent itself nothing");
    auto message = std::move(to_self_.front());
    to_self_.pop_front();
    return message;
  }
  [[noreturn]] void abort(int exit_code) override { std::_Exit(exit_code); }

 private:
  std::deque<std::vector<std::byte>> to_self_;
};

}  // namespace distbench::test_support
