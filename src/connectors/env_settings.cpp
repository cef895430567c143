#include "connectors/env_settings.hpp"

#include "core/error.hpp"
#include "core/sys/text_file.hpp"

#include <charconv>
#include <cstdlib>

namespace distbench::connectors {
namespace {

// A value as it may appear in a message: short, printable.
std::string shown(std::string_view value) {
  std::string out;
  for (char c : value.substr(0, 40)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (value.size() > 40) out += "...";
  return out;
}

std::string required(const EnvLookup& env, std::string_view name, std::string_view what) {
  auto value = env(name);
  if (!value || value->empty()) {
    throw usage_error(
        fmt::format("{} is not set: an env:// launch needs it ({}); torchrun sets it, or export it "
                    "yourself before starting each process",
                    name, what));
  }
  return *value;
}

int whole_number(std::string_view name, const std::string& text, int low, int high, std::string_view what) {
  int value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || value < low || value > high) {
    throw usage_error(
        fmt::format("{}='{}' is not a whole number from {} to {}; it must be {}", name, shown(text), low, high, what));
  }
  return value;
}

// The job's secret from DISTBENCH_JOB_SECRET_FILE or DISTBENCH_JOB_SECRET (at most one), checked.
void read_secret(const EnvLookup& env, EnvSettings& s) {
  const auto file = env("DISTBENCH_JOB_SECRET_FILE");
  const auto value = env("DISTBENCH_JOB_SECRET");
  const bool from_file = file && !file->empty();
  const bool from_value = value && !value->empty();
  if (from_file && from_value) {
    throw usage_error(
        "DISTBENCH_JOB_SECRET_FILE and DISTBENCH_JOB_SECRET are both set: set one (the file is "
        "preferred: a secret in the environment is visible to whoever can read this process's)");
  }
  if (!from_file && !from_value) return;
  std::string secret;
  if (from_file) {
    secret = read_text_file(*file, "the job secret file (DISTBENCH_JOB_SECRET_FILE)", kMaxSecretBytes);
    while (!secret.empty() &&
           (secret.back() == '\n' || secret.back() == '\r' || secret.back() == ' ' || secret.back() == '\t')) {
      secret.pop_back();
    }
    s.secret_origin = fmt::format("DISTBENCH_JOB_SECRET_FILE ({})", shown(*file));
  } else {
    secret = *value;
    if (secret.size() > kMaxSecretBytes) {
      throw usage_error(
          fmt::format("DISTBENCH_JOB_SECRET is {} bytes, more than the {} allowed; give a shorter "
                      "secret (32 random bytes are plenty)",
                      secret.size(), kMaxSecretBytes));
    }
    s.secret_origin = "DISTBENCH_JOB_SECRET";
  }
  if (secret.size() < kMinSecretBytes) {
    throw usage_error(
        fmt::format("the job secret from {} is {} bytes, fewer than {}: a short secret can be guessed; "
                    "make one with e.g. `head -c 32 /dev/urandom | base64 > job.secret`",
                    s.secret_origin, secret.size(), kMinSecretBytes));
  }
  s.secret = std::move(secret);
}

}  // namespace

std::string shown_value(std::string_view value) { return shown(value); }

int env_whole_number(std::string_view name, const std::string& text, int low, int high, std::string_view what) {
  return whole_number(name, text, low, high, what);
}

EnvLookup process_environment() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

bool env_launch_requested(const EnvLookup& env) { return env("RANK").has_value() && env("WORLD_SIZE").has_value(); }

std::string launch_origin(const EnvSettings& s) {
  if (s.ranks_origin.empty() || s.port_origin == "from " + s.ranks_origin) return fmt::format("({})", s.port_origin);
  return fmt::format("({}; ranks from {})", s.port_origin, s.ranks_origin);
}

EnvSettings read_env_settings(const EnvLookup& env) {
  EnvSettings s;
  s.world_size = whole_number("WORLD_SIZE", required(env, "WORLD_SIZE", "the number of processes"), 1, kMaxEnvWorld,
                              "the number of processes in the job");
  s.rank = whole_number("RANK", required(env, "RANK", "this process's rank"), 0, s.world_size - 1,
                        fmt::format("this process's rank, below WORLD_SIZE={}", s.world_size));
  s.master_addr = required(env, "MASTER_ADDR", "the host of rank 0");
  if (const auto own = env("DISTBENCH_MASTER_PORT"); own && !own->empty()) {
    s.port = whole_number("DISTBENCH_MASTER_PORT", *own, 1, 65535, "a TCP port for rank 0 to listen on");
    s.port_origin = "DISTBENCH_MASTER_PORT";
  } else {
    const int master = whole_number("MASTER_PORT", required(env, "MASTER_PORT", "the port of rank 0"), 1, 65535,
                                    "a TCP port for rank 0 to listen on");
    if (env("TORCHELASTIC_USE_AGENT_STORE").value_or("") == "True") {
      // torchrun's agent serves its own store on MASTER_PORT.
      if (master == 65535) {
        throw usage_error(
            "MASTER_PORT=65535 is held by torchrun's agent store and there is no port after it; set "
            "DISTBENCH_MASTER_PORT to a free port");
      }
      s.port = master + 1;
      s.port_origin = "MASTER_PORT + 1, as torchrun's agent store holds MASTER_PORT";
    } else {
      s.port = master;
      s.port_origin = "MASTER_PORT";
    }
  }
  const auto local_rank = env("LOCAL_RANK");
  const auto local_world = env("LOCAL_WORLD_SIZE");
  if (local_world && !local_world->empty()) {
    s.local_world_size =
        whole_number("LOCAL_WORLD_SIZE", *local_world, 1, s.world_size,
                     fmt::format("the number of processes on this host, at most WORLD_SIZE={}", s.world_size));
  }
  if (local_rank && !local_rank->empty()) {
    if (!s.local_world_size) {
      throw usage_error(
          "LOCAL_RANK is set but LOCAL_WORLD_SIZE is not: set both (torchrun does) or neither, and the "
          "hosts' names decide");
    }
    s.local_rank =
        whole_number("LOCAL_RANK", *local_rank, 0, *s.local_world_size - 1,
                     fmt::format("this process's rank on its host, below LOCAL_WORLD_SIZE={}", *s.local_world_size));
  } else if (s.local_world_size) {
    throw usage_error(
        "LOCAL_WORLD_SIZE is set but LOCAL_RANK is not: set both (torchrun does) or neither, and the "
        "hosts' names decide");
  }
  s.run_id = env("TORCHELASTIC_RUN_ID").value_or("");
  read_secret(env, s);
  return s;
}

}  // namespace distbench::connectors
