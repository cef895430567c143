// A process alone (connectors/single_connector) meets the contract every connector meets.
#include "connectors/single_connector.hpp"
#include "tests/support/connector_contract.hpp"

namespace distbench {

Connector& contract::connector() {
  static connectors::SingleConnector alone;  // the tests' one world
  return alone;
}

}  // namespace distbench
