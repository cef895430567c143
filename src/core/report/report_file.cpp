#include "core/report/report_file.hpp"

#include "core/error.hpp"
#include "core/sys/quote.hpp"
#include "core/sys/text_file.hpp"

#include <fmt/format.h>

namespace distbench {

ParsedReport read_report_file(const std::string& path) {
  const std::string text = read_text_file(path, "report", kReportFileMaxBytes);
  try {
    return parse_report(text);
  } catch (const Error& e) {
    throw usage_error(fmt::format("report '{}': {}", escape_text(path), e.what()));
  }
}

}  // namespace distbench
