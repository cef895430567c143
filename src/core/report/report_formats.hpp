// One table of the report formats a run can write: each entry is the option that asks for it, its help and how its
// reporter is made. The options (cli/common_options.hpp), the runner's reporters, health's and `distbench report
// --format` all read this table, so a new format is its reporter's file and one entry here.
#pragma once

#include "core/report/file_reporter.hpp"

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace distbench {

struct ReportFormat {
  std::string_view name;  // the long option without its dashes, and `report --format`'s word: "json"
  std::string_view flag;  // the option's names as CLI11 takes them: "-J,--json"
  std::string_view help;
  // "-": standard output, at the end; "" (kInMemoryReport): nothing written, the text taken with contents()
  std::unique_ptr<FileReporter> (*make)(std::string path);

  std::string option() const { return "--" + std::string(name); }  // "--json"
};

// Every format, in the order their reporters are fed.
std::span<const ReportFormat> report_formats();
// The entry named `name`; nullptr when there is none.
const ReportFormat* find_report_format(std::string_view name);

// A report a run was asked for: its format (an entry of report_formats()) and where it goes.
struct ReportTarget {
  const ReportFormat* format = nullptr;
  std::string path;  // "-": standard output, at the end
};

// Asks for `format` at `path`, in place of an earlier request of that format; `targets` stay in the table's order.
void set_report_target(std::vector<ReportTarget>& targets, const ReportFormat& format, std::string path);

}  // namespace distbench
