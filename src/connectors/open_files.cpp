#include "connectors/open_files.hpp"

#include "connectors/admission.hpp"
#include "core/error.hpp"

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace distbench::connectors {
namespace {

constexpr std::uint64_t kOtherFiles = 64;  // reports, /proc reads, the library's own, standard streams

}  // namespace

std::uint64_t open_files_needed(int rank, int world_size) {
  const auto peers = static_cast<std::uint64_t>(world_size > 1 ? world_size - 1 : 0);
  return peers + (rank == 0 ? kMaxPending + 1 : 0) + kOtherFiles;
}

std::uint64_t ensure_open_files(int rank, int world_size) {
  // Rank 0's room for connections waiting to be admitted is wanted, not needed: strangers' connections, dropped
  // oldest first when the room is short.
  const std::uint64_t wanted = open_files_needed(rank, world_size);
  const std::uint64_t needed = open_files_needed(1, world_size);
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    throw Error(ExitCode::failure, fmt::format("env://: cannot read the open-file limit: {}", std::strerror(errno)));
  }
  if (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur >= wanted) return limit.rlim_cur;
  if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < needed) {
    throw Error(ExitCode::unavailable,
                fmt::format("env:// connects every rank to every other: rank {} of {} needs about {} open files, and "
                            "this process may open at most {} (hard limit, ulimit -Hn); raise it where the ranks are "
                            "started (limits.conf, the launcher's or the container's settings) or launch with mpirun",
                            rank, world_size, needed, static_cast<std::uint64_t>(limit.rlim_max)));
  }
  const rlim_t before = limit.rlim_cur;
  limit.rlim_cur = limit.rlim_max == RLIM_INFINITY ? static_cast<rlim_t>(wanted)
                                                   : std::min(limit.rlim_max, static_cast<rlim_t>(wanted));
  if (setrlimit(RLIMIT_NOFILE, &limit) != 0) {
    throw Error(ExitCode::unavailable,
                fmt::format("env://: rank {} of {} needs about {} open files and may open {}; raising the limit "
                            "failed: {}; raise it (ulimit -n) where the ranks are started",
                            rank, world_size, needed, static_cast<std::uint64_t>(before), std::strerror(errno)));
  }
  return static_cast<std::uint64_t>(limit.rlim_cur);
}

}  // namespace distbench::connectors
