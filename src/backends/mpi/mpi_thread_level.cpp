#include "backends/mpi/mpi_thread_level.hpp"

#include "core/error.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <array>

namespace distbench::mpi {
namespace {

constexpr std::array kThreadLevels = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED,
                                      MPI_THREAD_MULTIPLE};
static_assert(kThreadLevels.size() == std::size(kThreadLevelNames));

}  // namespace

int thread_level_of(std::string_view name) {
  for (std::size_t i = 0; i < kThreadLevels.size(); ++i) {
    if (kThreadLevelNames[i] == name) return kThreadLevels[i];
  }
  throw usage_error(
      fmt::format("--mpi-thread {}: not a thread level; use single, funneled, serialized or multiple", name));
}

std::string thread_level_name(int level) {
  for (std::size_t i = 0; i < kThreadLevels.size(); ++i) {
    if (kThreadLevels[i] == level) return std::string(kThreadLevelNames[i]);
  }
  return fmt::format("level {}", level);
}

}  // namespace distbench::mpi
