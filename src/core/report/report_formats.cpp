#include "core/report/report_formats.hpp"

#include "core/report/csv_reporter.hpp"
#include "core/report/json_reporter.hpp"
#include "core/report/jsonl_reporter.hpp"
#include "core/report/markdown_reporter.hpp"
#include "core/report/nccl_tests_json_reporter.hpp"

#include <algorithm>

namespace distbench {
namespace {

template <typename R>
std::unique_ptr<FileReporter> make_reporter(std::string path) {
  return std::make_unique<R>(std::move(path));
}

constexpr ReportFormat kFormats[] = {
    {"json", "-J,--json", "Write a JSON report, updated as the run goes; '-': stdout at the end",
     make_reporter<JsonReporter>},
    {"csv", "--csv", "Write a CSV report, the same way", make_reporter<CsvReporter>},
    {"md", "--md", "Write a Markdown report, the same way (e.g. for a pull request)", make_reporter<MarkdownReporter>},
    {"jsonl", "--jsonl", "Write JSON Lines: a line per record as it is measured, the same way",
     make_reporter<JsonLinesReporter>},
    {"nccl-tests-json", "-J,--output-file", "Write nccl-tests' JSON to a .json file, as nccl-tests' -J does",
     make_reporter<NcclTestsJsonReporter>, "collective", ".json"},
};

}  // namespace

std::span<const ReportFormat> report_formats() { return kFormats; }

const ReportFormat* find_report_format(std::string_view name) {
  for (const ReportFormat& f : kFormats) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string ReportFormat::flag_for(std::string_view run) const {
  if (!benchmark.empty()) return benchmark == run ? std::string(flag) : std::string();
  std::string names(flag);
  for (const ReportFormat& f : kFormats) {
    const std::string_view own = f.flag.substr(0, f.flag.find(','));
    if (f.benchmark.empty() || f.benchmark != run || own.starts_with("--")) continue;
    if (names.starts_with(std::string(own) + ",")) names.erase(0, own.size() + 1);
  }
  return names;
}

void set_report_target(std::vector<ReportTarget>& targets, const ReportFormat& format, std::string path) {
  std::erase_if(targets, [&format](const ReportTarget& t) { return t.format == &format; });
  const auto after =
      std::find_if(targets.begin(), targets.end(), [&format](const ReportTarget& t) { return t.format > &format; });
  targets.insert(after, {&format, std::move(path)});
}

}  // namespace distbench
