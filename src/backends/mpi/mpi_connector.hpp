// The Connector over MPI (RAF's MPIConnector): initialises MPI, knows the ranks and nodes, and moves small host
// data for coordination.
#pragma once

#include "backends/mpi/mpi_bounded.hpp"
#include "core/comm/connector.hpp"

#include <mpi.h>

#include <optional>

namespace distbench::mpi {

class MPIConnector final : public Connector {
 public:
  // Initialises MPI at `thread_level` (MPI_THREAD_*) unless something already did; throws Error(unavailable) when
  // the library provides less.
  MPIConnector(int& argc, char**& argv, int thread_level);
  ~MPIConnector() override;
  MPIConnector(const MPIConnector&) = delete;
  MPIConnector& operator=(const MPIConnector&) = delete;

  std::string_view kind() const override { return "mpi"; }
  std::string launch_description() const override;
  std::vector<std::pair<std::string, std::string>> facts() const override;
  std::vector<std::pair<std::string, std::string>> library_versions() const override {
    return {{"mpi.library", library_version()}};
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  int local_size() const override { return local_size_; }
  int root_rank() const override { return 0; }
  std::string hostname() const override { return hostname_; }
  std::vector<int> node_of_ranks() const override { return node_of_ranks_; }

  void barrier(const ArmedStep& step) override;
  void broadcast(std::span<std::byte> data, int root, const ArmedStep& step) override;
  std::vector<std::vector<std::byte>> gather(std::span<const std::byte> data, int root, const ArmedStep& step) override;
  std::vector<std::vector<std::byte>> allgather(std::span<const std::byte> data, const ArmedStep& step) override;
  std::vector<std::optional<std::vector<std::byte>>> gather_until(
      std::span<const std::byte> data, int root, std::chrono::steady_clock::time_point deadline) override {
    return bounded_->gather(data, root, deadline);
  }
  void broadcast_until(std::vector<std::byte>& data, int root,
                       std::chrono::steady_clock::time_point deadline) override {
    bounded_->broadcast(data, root, deadline);
  }
  void send_until(int peer, std::span<const std::byte> data, std::chrono::steady_clock::time_point deadline) override {
    bounded_->send(peer, data, deadline);
  }
  std::vector<std::byte> receive_until(int peer, std::chrono::steady_clock::time_point deadline) override {
    return bounded_->receive(peer, deadline);
  }
  [[noreturn]] void abort(int exit_code, const std::string& reason) override;

  // The connector's own communicator (a duplicate of MPI_COMM_WORLD), for backends that split groups from it.
  MPI_Comm comm() const { return comm_; }
  // The MPI library's version text.
  static std::string library_version();

 private:
  std::vector<std::vector<std::byte>> collect(std::span<const std::byte> data, int root, bool everyone);

  MPI_Comm comm_ = MPI_COMM_NULL;
  bool owns_mpi_ = false;
  int thread_asked_ = 0;     // MPI_THREAD_* asked for (when this connector initialised MPI)
  int thread_provided_ = 0;  // what MPI_Query_thread says
  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  int local_size_ = 1;
  std::string hostname_;
  std::vector<int> node_of_ranks_;
  // The *_until calls' messages on comm_. Destroyed after MPI_Finalize, which releases the buffers of messages
  // that were given up on only once MPI can no longer use them.
  std::optional<BoundedMessages> bounded_;
};

}  // namespace distbench::mpi
