// The backends this build has: the only place (with registry.cpp) that knows which optional backends were compiled
// in. The CLI and the test mains ask it; the core never does.
#pragma once

#include "core/backend.hpp"
#include "core/connector.hpp"

#include <memory>
#include <span>
#include <string_view>

namespace distbench {

// Backends built in, in order of preference for --backend auto.
std::span<const BackendEntry> backend_registry();
// The out-of-band connector of this build (MPI). Call once, before anything else touches MPI.
std::unique_ptr<Connector> make_connector(int& argc, char**& argv);
// What `auto` resolves to here, or the named one; throws Error(unavailable) / usage_error.
const BackendEntry& choose_backend(std::string_view requested);

}  // namespace distbench
