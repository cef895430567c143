// Reading a report file for the commands that work on reports (compare, report): one clear error naming the file.
#pragma once

#include "core/report/json_model.hpp"

#include <string>

namespace distbench {

// Throws usage_error "cannot read report 'F': ..." or "report 'F': malformed distbench report: ...".
ParsedReport read_report_file(const std::string& path);

}  // namespace distbench
