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
  // "": every run writes it; else only runs of this benchmark ("collective"), whose options then give it the short
  // name it shares with an unrestricted format (-J: nccl-tests' JSON on a collective, --json on the others)
  std::string_view benchmark = {};
  // "": any path; else the ending a file's name must have ("-" is always taken): ".json"
  std::string_view extension = {};

  // The option's long name: "--json"
  std::string option() const {
    const auto at = flag.find("--");
    return std::string(at == std::string_view::npos ? flag : flag.substr(at));
  }
  // The option's names on a command running `benchmark`: its own, less a short name that a format for that benchmark
  // alone takes; "": the format is none of that command's.
  std::string flag_for(std::string_view benchmark) const;
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
