#include "cli/command.hpp"

#include "backends/registry.hpp"

namespace distbench::cli {

Connector& Invocation::connect(const ConnectOptions& options) {
  if (!connector) {
    try {
      connector = make_connector(argc, argv, options);
    } catch (...) {
      forming_failed = true;
      throw;
    }
  }
  return *connector;
}

}  // namespace distbench::cli
