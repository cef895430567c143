#include "compare/report_file.hpp"

#include "core/error.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace distbench {

ParsedReport read_report_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw usage_error(fmt::format("cannot read report '{}': {}", path, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  try {
    return parse_report(text.str());
  } catch (const Error& e) {
    throw usage_error(fmt::format("report '{}': {}", path, e.what()));
  }
}

}  // namespace distbench
