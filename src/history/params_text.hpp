// A case's parameters as the history stores them: a JSON object in the parameters' order, as a report writes them.
#pragma once

#include "core/report/record.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace distbench::history {

std::string params_to_json(const std::vector<Param>& params);
// Throws usage_error when the text is not a JSON object of strings and numbers (a damaged history).
std::vector<Param> params_from_json(std::string_view text);

}  // namespace distbench::history
