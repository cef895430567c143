// A list as users write it on a command line or in a variable: "a, b,c" split by ',' into "a", "b", "c".
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace distbench {

// `s` without the spaces at either end.
std::string_view trim_spaces(std::string_view s);

// The items of `s` between the separators, each trimmed of spaces; empty items are kept ("a,,b": "a", "", "b").
std::vector<std::string> split_list(std::string_view s, char sep);

}  // namespace distbench
