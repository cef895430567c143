#include "core/environment.hpp"

#include <fmt/chrono.h>

#include <algorithm>
#include <chrono>
#include <string_view>

extern char** environ;  // POSIX

namespace distbench {
namespace {

bool recorded(std::string_view key) {
  constexpr std::string_view kPrefixes[] = {"NCCL_", "OMPI_", "UCX_"};
  constexpr std::string_view kBookkeeping[] = {"OMPI_COMM_WORLD_", "OMPI_MCA_orte_", "OMPI_MCA_ess_",
                                               "OMPI_MCA_pmix", "OMPI_FILE_LOCATION", "OMPI_UNIVERSE_SIZE",
                                               "OMPI_FIRST_RANKS", "OMPI_APP_CTX_", "OMPI_ARGV",
                                               "OMPI_COMMAND", "OMPI_MCA_initial_wdir", "OMPI_NUM_APP_CTX",
                                               "OMPI_MCA_mpi_oversubscribe", "OMPI_MCA_shmem_RUNTIME_QUERY_hint"};
  if (key == "CUDA_VISIBLE_DEVICES" || key == "GLIBC_TUNABLES" || key.starts_with("MALLOC_")) return true;
  const bool wanted = std::any_of(std::begin(kPrefixes), std::end(kPrefixes),
                                  [&](std::string_view p) { return key.starts_with(p); });
  const bool noise = std::any_of(std::begin(kBookkeeping), std::end(kBookkeeping),
                                 [&](std::string_view p) { return key.starts_with(p); });
  return wanted && !noise;
}

}  // namespace

KeyValues captured_environment() {
  KeyValues out;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const auto eq = text.find('=');
    if (eq == std::string_view::npos) continue;
    const auto key = text.substr(0, eq);
    if (recorded(key)) out.emplace_back(std::string(key), std::string(text.substr(eq + 1)));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string iso_time_now() {
  const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", now);
}

}  // namespace distbench
