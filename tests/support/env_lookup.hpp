// An environment for tests: a map standing in for the process's variables (connectors/env_settings.hpp's EnvLookup).
#pragma once

#include "connectors/env_settings.hpp"

#include <map>
#include <string>

namespace distbench::test_support {

inline connectors::EnvLookup lookup(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    const auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

}  // namespace distbench::test_support
