// Facts as ordered pairs of key and text (a backend's versions, the environment, a report's facts).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace distbench {

using KeyValues = std::vector<std::pair<std::string, std::string>>;

}  // namespace distbench
