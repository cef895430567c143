// The torchrun-style environment of an env:// launch: where rank 0 listens, and who this process is.
//
// torchrun (and Kubernetes' PyTorchJob, Ray, ssh scripts) start every worker with MASTER_ADDR, MASTER_PORT, RANK,
// WORLD_SIZE and usually LOCAL_RANK, LOCAL_WORLD_SIZE. Rank 0 listens on MASTER_PORT, except where torchrun's agent
// already serves its own store there (TORCHELASTIC_USE_AGENT_STORE=True): then on MASTER_PORT + 1.
// DISTBENCH_MASTER_PORT overrides both.
//
// The job's secret, which every process proves it holds before it may join (rendezvous.hpp), comes from the file
// DISTBENCH_JOB_SECRET_FILE names (preferred: it stays out of the processes' environment and command lines) or from
// DISTBENCH_JOB_SECRET itself; at most one of them, at least kMinSecretBytes bytes (a file's final line break and
// trailing spaces are not part of it). Neither set: the job runs without one, as torchrun's variables alone describe
// it, and rank 0 warns that anyone who can reach its port can join.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace distbench::connectors {

// Reads one environment variable; std::nullopt when it is not set. Tests pass their own.
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;
// The process's real environment.
EnvLookup process_environment();

struct EnvSettings {
  std::string master_addr;
  int port = 0;             // where rank 0 listens
  std::string port_origin;  // how `port` was found, for messages ("MASTER_PORT", ...)
  int rank = 0;
  int world_size = 1;
  std::optional<int> local_rank;  // LOCAL_RANK, with LOCAL_WORLD_SIZE
  std::optional<int> local_world_size;
  std::string run_id;                 // TORCHELASTIC_RUN_ID: processes of another run are turned away
  std::optional<std::string> secret;  // the job's secret (bytes); never printed, never sent
  std::string secret_origin;          // where it came from, for messages ("DISTBENCH_JOB_SECRET_FILE (path)")
  std::string ranks_origin;  // "Slurm's variables: job 12 step 3" where Slurm's gave the ranks; empty: torchrun's
};

inline constexpr std::size_t kMinSecretBytes = 16;
inline constexpr std::size_t kMaxSecretBytes = 4096;

// The most processes an env:// job may have.
inline constexpr int kMaxEnvWorld = 1 << 20;

// Whether the launcher asked for env:// (RANK and WORLD_SIZE both set).
bool env_launch_requested(const EnvLookup& env);

// The settings, checked; throws usage_error naming the variable that is missing or wrong and what it must be.
EnvSettings read_env_settings(const EnvLookup& env);

// What follows "env:// rendezvous at host:port " in the job's description: "(MASTER_PORT)", "(from Slurm's
// variables: job 12 step 3)", "(MASTER_PORT; ranks from Slurm's variables: job 12 step 3)".
std::string launch_origin(const EnvSettings& s);

// A variable's value as a message may show it: at most 40 characters, printable ones ('?' for others).
std::string shown_value(std::string_view value);
// `text` as a whole number from `low` to `high`; else usage_error: "NAME='text' is not a whole number from low to
// high; it must be <what>".
int env_whole_number(std::string_view name, const std::string& text, int low, int high, std::string_view what);

}  // namespace distbench::connectors
