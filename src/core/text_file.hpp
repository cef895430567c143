// Reading a whole input file (a hostfile, a report) for the commands that take one.
#pragma once

#include <string>
#include <string_view>

namespace distbench {

// The file's bytes. Throws usage_error "cannot read WHAT 'PATH': <the system's reason>; check the path and its
// permissions" when it cannot be opened or read.
std::string read_text_file(const std::string& path, std::string_view what);

}  // namespace distbench
