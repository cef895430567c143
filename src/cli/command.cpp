#include "cli/command.hpp"

#include "backends/registry.hpp"

namespace distbench::cli {

Connector& Invocation::connect() {
  if (!connector) connector = make_connector(argc, argv);
  return *connector;
}

}  // namespace distbench::cli
