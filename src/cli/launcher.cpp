#include "cli/launcher.hpp"

#include <charconv>
#include <string>

namespace distbench::cli {
namespace {

std::optional<long> env_number(const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  long value = 0;
  const char* end = text->data() + text->size();
  const auto [ptr, ec] = std::from_chars(text->data(), end, value);
  if (ec != std::errc() || ptr != end || value < 0) return std::nullopt;
  return value;
}

// A rank variable with its size variable: the rank when both are numbers and the rank is below the size.
std::optional<int> ranked(const connectors::EnvLookup& env, const char* rank_name, const char* size_name) {
  const auto rank = env_number(env(rank_name));
  const auto size = env_number(env(size_name));
  if (!rank || !size || *rank >= *size) return std::nullopt;
  return static_cast<int>(*rank);
}

}  // namespace

std::optional<int> launcher_rank(const connectors::EnvLookup& env) {
  if (const auto r = ranked(env, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE")) return r;
  if (env("PMIX_NAMESPACE")) {  // a PMIx server's process has its namespace too
    if (const auto r = env_number(env("PMIX_RANK"))) return static_cast<int>(*r);
  }
  if (const auto r = ranked(env, "PMI_RANK", "PMI_SIZE")) return r;
  if (const auto r = ranked(env, "SLURM_PROCID", "SLURM_STEP_NUM_TASKS")) return r;  // srun, whatever its --mpi
  return ranked(env, "RANK", "WORLD_SIZE");
}

bool prints_early_errors(const connectors::EnvLookup& env) { return launcher_rank(env).value_or(0) == 0; }

}  // namespace distbench::cli
