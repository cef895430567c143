#include "cli/command.hpp"

#include "backends/registry.hpp"

namespace distbench::cli {

Connector& Invocation::connect(const ConnectOptions& options) {
  if (!connector) {
    const std::string kind = choose_connector(options);  // alike everywhere: the usual rule of who prints
    try {
      connector = make_connector(kind, argc, argv, options);
    } catch (...) {
      forming_failed = true;
      throw;
    }
  }
  return *connector;
}

}  // namespace distbench::cli
