// Reading a report file for the commands that work on reports (compare, report): one clear error naming the file.
#pragma once

#include "core/report/json_model.hpp"

#include <cstddef>
#include <string>

namespace distbench {

// The largest report read: a report is JSON a run wrote, a few MiB per thousand records.
inline constexpr std::size_t kReportFileMaxBytes = std::size_t{256} << 20;  // 256 MiB

// Throws usage_error "cannot read report 'F': ..." or "report 'F': malformed distbench report: ...".
ParsedReport read_report_file(const std::string& path);

}  // namespace distbench
