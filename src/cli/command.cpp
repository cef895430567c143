#include "cli/command.hpp"

#include "backends/registry.hpp"

namespace distbench::cli {

Connector& Invocation::connect(const ConnectOptions& options) {
  if (!connector) connector = make_connector(argc, argv, options);
  return *connector;
}

}  // namespace distbench::cli
