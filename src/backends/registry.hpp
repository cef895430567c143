// The backends and connectors this build has: the only place (with registry.cpp) that knows which optional parts
// were compiled in. The CLI and the test mains ask it; the core never does.
#pragma once

#include "core/comm/backend.hpp"
#include "core/comm/connector.hpp"

#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace distbench {

// Backends built in, in order of preference for --backend auto.
std::span<const BackendEntry> backend_registry();
// Whether this build has MPI (the MPI connector and backend).
bool built_with_mpi();

// How this process joins the others (--launcher, and -T for the rendezvous of env://).
struct ConnectOptions {
  std::string launcher = "auto";  // auto, mpi, env, none (connectors/launch_choice.hpp)
  double timeout_s = 300.0;
  std::string mpi_thread = "single";  // MPI_Init_thread's level, by name (backends/mpi/mpi_thread_level.hpp)
};
// Which connector forms the job ("mpi", "env", "none"), from --launcher and the environment: the same answer, or
// the same Error (usage, unavailable), on every process.
std::string choose_connector(const ConnectOptions& options);
// Forms the job with the connector of `kind`: MPI's, env://'s or a process alone. Call once, before anything else
// touches MPI. Throws Error (usage, timeout, failure) when the job cannot form, each process with its own view.
std::unique_ptr<Connector> make_connector(const std::string& kind, int& argc, char**& argv,
                                          const ConnectOptions& options);
// Both, as a test main needs them.
std::unique_ptr<Connector> make_connector(int& argc, char**& argv, const ConnectOptions& options = {});

// What `auto` resolves to here, or the named one, for a job formed by `connector`; throws Error(unavailable) /
// usage_error.
const BackendEntry& choose_backend(std::string_view requested, const Connector& connector);
// Why `entry` cannot run here with `connector`, or nullopt when it can.
std::optional<std::string> backend_unavailable_reason(const BackendEntry& entry, const Connector& connector);

}  // namespace distbench
