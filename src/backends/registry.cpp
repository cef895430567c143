// The registry: the one place that knows which optional backends (and so which connectors) this build has.
#include "backends/registry.hpp"

#include "connectors/env_connector.hpp"
#include "connectors/launch_choice.hpp"
#include "connectors/single_connector.hpp"
#include "core/error.hpp"

#if DISTBENCH_HAVE_MPI
#include "backends/mpi/mpi_backend.hpp"
#endif
#if DISTBENCH_HAVE_NCCL
#include "backends/nccl/nccl_backend.hpp"
#endif

#include <algorithm>
#include <vector>

namespace distbench {
namespace {

std::vector<BackendEntry> make_registry() {
  std::vector<BackendEntry> entries;
#if DISTBENCH_HAVE_NCCL
  entries.push_back(nccl::nccl_backend_entry());
#endif
#if DISTBENCH_HAVE_MPI
  entries.push_back(mpi::mpi_backend_entry());
#endif
  return entries;
}

}  // namespace

std::span<const BackendEntry> backend_registry() {
  static const std::vector<BackendEntry> entries = make_registry();  // immutable after first use
  return entries;
}

bool built_with_mpi() {
#if DISTBENCH_HAVE_MPI
  return true;
#else
  return false;
#endif
}

std::string choose_connector(const ConnectOptions& options) {
  return connectors::resolve_launcher(options.launcher, connectors::process_environment(), built_with_mpi());
}

std::unique_ptr<Connector> make_connector(int& argc, char**& argv, const ConnectOptions& options) {
  return make_connector(choose_connector(options), argc, argv, options);
}

std::unique_ptr<Connector> make_connector(const std::string& kind, [[maybe_unused]] int& argc,
                                          [[maybe_unused]] char**& argv, const ConnectOptions& options) {
  if (kind == "env")
    return std::make_unique<connectors::EnvConnector>(
        connectors::read_launch_settings(connectors::process_environment()), options.timeout_s);
  if (kind == "none") return std::make_unique<connectors::SingleConnector>();
#if DISTBENCH_HAVE_MPI
  return mpi::make_mpi_connector(argc, argv, options.mpi_thread);
#else
  throw failure("the MPI connector was chosen in a build without MPI");
#endif
}

std::optional<std::string> backend_unavailable_reason(const BackendEntry& entry, const Connector& connector) {
  if (!entry.connectors.empty() &&
      std::find(entry.connectors.begin(), entry.connectors.end(), connector.kind()) == entry.connectors.end()) {
    return fmt::format(
        "it needs processes started by an MPI launcher (mpirun, srun --mpi=pmix), and this job was "
        "formed by {}",
        connector.launch_description());
  }
  return entry.unavailable_reason();
}

const BackendEntry& choose_backend(std::string_view requested, const Connector& connector) {
  const auto entries = backend_registry();
  if (requested == "auto") {
    std::string why;
    for (const auto& entry : entries) {
      const auto reason = backend_unavailable_reason(entry, connector);
      if (!reason) return entry;
      why += fmt::format("; {}: {}", entry.name, *reason);
    }
    throw Error(ExitCode::unavailable,
                fmt::format("no backend of this build can run here{}", why.empty() ? ": none is built in" : why));
  }
  const auto it = std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.name == requested; });
  if (it == entries.end()) {
    std::string built;
    for (const auto& entry : entries) built += (built.empty() ? "" : ", ") + entry.name;
    throw usage_error(
        fmt::format("backend '{}' is not built into this distbench (built: {}); pick one of those or "
                    "'auto'",
                    requested, built.empty() ? "none" : built));
  }
  if (const auto reason = backend_unavailable_reason(*it, connector)) {
    throw Error(ExitCode::unavailable, fmt::format("backend '{}' cannot run here: {}", requested, *reason));
  }
  return *it;
}

}  // namespace distbench
