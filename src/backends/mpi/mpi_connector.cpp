#include "backends/mpi/mpi_connector.hpp"

#include "backends/mpi/mpi_thread_level.hpp"
#include "backends/mpi/mpi_types.hpp"
#include "core/error.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <limits>
#include <numeric>

namespace distbench::mpi {

MPIConnector::MPIConnector(int& argc, char**& argv, int thread_level) : thread_asked_(thread_level) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    // Only the main thread calls MPI: the watchdog and signal threads write the report and end their own process,
    // and the launcher ends the others (mpi_thread_level.hpp: why single is the default).
    int provided = 0;
    check(MPI_Init_thread(&argc, &argv, thread_level, &provided), "MPI_Init_thread");
    owns_mpi_ = true;
    if (provided < thread_level) {  // every rank runs the same library: all of them leave alike
      MPI_Finalize();
      throw Error(
          ExitCode::unavailable,
          fmt::format("--mpi-thread {}: this MPI library provides only {}; ask for {} or less, or use an MPI "
                      "built with thread support",
                      thread_level_name(thread_level), thread_level_name(provided), thread_level_name(provided)));
    }
  }
  MPI_Query_thread(&thread_provided_);
  check(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "MPI_Comm_dup");
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  bounded_.emplace(comm_, rank_, size_);

  // Ranks of one node: MPI's shared-memory split.
  MPI_Comm node = MPI_COMM_NULL;
  check(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  MPI_Comm_rank(node, &local_rank_);
  MPI_Comm_size(node, &local_size_);
  // A node's id is the lowest world rank on it; ids are then renumbered 0.. in order of first appearance.
  int leader = rank_;
  check(MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, node), "MPI_Allreduce");
  MPI_Comm_free(&node);
  std::vector<int> leaders(static_cast<std::size_t>(size_));
  check(MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, comm_), "MPI_Allgather");
  std::vector<int> order;
  node_of_ranks_.resize(leaders.size());
  for (std::size_t r = 0; r < leaders.size(); ++r) {
    auto it = std::find(order.begin(), order.end(), leaders[r]);
    if (it == order.end()) it = order.insert(order.end(), leaders[r]);
    node_of_ranks_[r] = static_cast<int>(it - order.begin());
  }

  std::array<char, 256> host{};
  gethostname(host.data(), host.size() - 1);
  hostname_ = host.data();
}

MPIConnector::~MPIConnector() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  if (bounded_) bounded_->release_requests();
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  if (owns_mpi_) MPI_Finalize();
}

void MPIConnector::barrier(const ArmedStep&) { check(MPI_Barrier(comm_), "MPI_Barrier"); }

void MPIConnector::broadcast(std::span<std::byte> data, int root, const ArmedStep&) {
  check(MPI_Bcast(data.data(), checked_int(data.size()), MPI_BYTE, root, comm_), "MPI_Bcast");
}

std::vector<std::vector<std::byte>> MPIConnector::collect(std::span<const std::byte> data, int root, bool everyone) {
  const int mine = checked_int(data.size());
  std::vector<int> sizes(static_cast<std::size_t>(size_));
  if (everyone) {
    check(MPI_Allgather(&mine, 1, MPI_INT, sizes.data(), 1, MPI_INT, comm_), "MPI_Allgather");
  } else {
    check(MPI_Gather(&mine, 1, MPI_INT, sizes.data(), 1, MPI_INT, root, comm_), "MPI_Gather");
  }
  const bool receives = everyone || rank_ == root;
  std::vector<int> offsets(sizes.size(), 0);
  std::vector<std::byte> all;
  if (receives) {
    std::exclusive_scan(sizes.begin(), sizes.end(), offsets.begin(), 0);
    all.resize(static_cast<std::size_t>(offsets.back()) + static_cast<std::size_t>(sizes.back()));
  }
  if (everyone) {
    check(MPI_Allgatherv(data.data(), mine, MPI_BYTE, all.data(), sizes.data(), offsets.data(), MPI_BYTE, comm_),
          "MPI_Allgatherv");
  } else {
    check(MPI_Gatherv(data.data(), mine, MPI_BYTE, all.data(), sizes.data(), offsets.data(), MPI_BYTE, root, comm_),
          "MPI_Gatherv");
  }
  std::vector<std::vector<std::byte>> out;
  if (!receives) return out;
  out.reserve(sizes.size());
  for (std::size_t r = 0; r < sizes.size(); ++r) {
    const auto first = all.begin() + offsets[r];
    out.emplace_back(first, first + sizes[r]);
  }
  return out;
}

std::vector<std::vector<std::byte>> MPIConnector::gather(std::span<const std::byte> data, int root, const ArmedStep&) {
  return collect(data, root, false);
}

std::vector<std::vector<std::byte>> MPIConnector::allgather(std::span<const std::byte> data, const ArmedStep&) {
  return collect(data, 0, true);
}

std::string MPIConnector::launch_description() const {
  return size_ > 1 ? "an MPI launch" : "MPI's singleton (one process, no launcher)";
}

std::vector<std::pair<std::string, std::string>> MPIConnector::facts() const {
  std::string level = thread_level_name(thread_provided_);
  if (!owns_mpi_) {
    level += " (MPI was initialised before distbench's connector)";
  } else if (thread_provided_ != thread_asked_) {
    level += fmt::format(" (asked for {})", thread_level_name(thread_asked_));
  }
  return {{"mpi.thread_level", level}};
}

// The launcher ends the other ranks; this one has printed why.
void MPIConnector::abort(int exit_code, const std::string&) {
  MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::_Exit(exit_code);  // MPI_Abort does not return; should it, leave anyway
}

std::string MPIConnector::library_version() {
  std::array<char, MPI_MAX_LIBRARY_VERSION_STRING> text{};
  int length = 0;
  MPI_Get_library_version(text.data(), &length);
  std::string version(text.data(), static_cast<std::size_t>(length));
  while (!version.empty() && (version.back() == '\n' || version.back() == '\0')) version.pop_back();
  return version;
}

}  // namespace distbench::mpi
