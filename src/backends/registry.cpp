// The backend registry: the one place that knows which optional backends this build has.
#include "backends/registry.hpp"
#include "core/error.hpp"

#include "backends/mpi/mpi_backend.hpp"
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
  entries.push_back(mpi::mpi_backend_entry());
  return entries;
}

}  // namespace

std::span<const BackendEntry> backend_registry() {
  static const std::vector<BackendEntry> entries = make_registry();  // immutable after first use
  return entries;
}

std::unique_ptr<Connector> make_connector(int& argc, char**& argv) { return mpi::make_mpi_connector(argc, argv); }

const BackendEntry& choose_backend(std::string_view requested) {
  const auto entries = backend_registry();
  if (requested == "auto") {
    for (const auto& entry : entries) {
      if (!entry.unavailable_reason()) return entry;
    }
    throw Error(ExitCode::unavailable, "no backend of this build can run on this machine");
  }
  const auto it = std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.name == requested; });
  if (it == entries.end()) {
    std::string built;
    for (const auto& entry : entries) built += (built.empty() ? "" : ", ") + entry.name;
    throw usage_error(fmt::format("backend '{}' is not built into this distbench (built: {}); pick one of those or "
                                  "'auto'", requested, built));
  }
  if (const auto reason = it->unavailable_reason()) {
    throw Error(ExitCode::unavailable, fmt::format("backend '{}' cannot run here: {}", requested, *reason));
  }
  return *it;
}

}  // namespace distbench
