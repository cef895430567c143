// A process alone (rank 0 of 1): the connector of a run that no launcher started in a build without MPI, and of
// tests and GPU runs where one process drives everything (with -g, several GPUs, so the multi-rank paths run).
#pragma once

#include "connectors/self_messages.hpp"
#include "core/comm/connector.hpp"

#include <vector>

namespace distbench::connectors {

class SingleConnector final : public Connector {
 public:
  std::string_view kind() const override { return "none"; }
  std::string launch_description() const override { return "none (one process)"; }
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int local_rank() const override { return 0; }
  int local_size() const override { return 1; }
  int root_rank() const override { return 0; }
  std::string hostname() const override;
  std::vector<int> node_of_ranks() const override { return {0}; }
  void barrier(const ArmedStep&) override {}
  void broadcast(std::span<std::byte>, int, const ArmedStep&) override {}
  std::vector<std::vector<std::byte>> gather(std::span<const std::byte> data, int, const ArmedStep&) override {
    return {std::vector<std::byte>(data.begin(), data.end())};
  }
  std::vector<std::vector<std::byte>> allgather(std::span<const std::byte> data, const ArmedStep&) override {
    return {std::vector<std::byte>(data.begin(), data.end())};
  }
  std::vector<std::optional<std::vector<std::byte>>> gather_until(std::span<const std::byte> data, int,
                                                                  std::chrono::steady_clock::time_point) override {
    return {std::vector<std::byte>(data.begin(), data.end())};
  }
  void broadcast_until(std::vector<std::byte>&, int, std::chrono::steady_clock::time_point) override {}
  // Messages to itself wait in order, as MPI would deliver them to rank 0 of 1.
  void send_until(int peer, std::span<const std::byte> data, std::chrono::steady_clock::time_point) override;
  std::vector<std::byte> receive_until(int peer, std::chrono::steady_clock::time_point) override;
  [[noreturn]] void abort(int exit_code, const std::string&) override;

 private:
  SelfMessages to_self_;
};

}  // namespace distbench::connectors
