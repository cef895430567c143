#include "core/report/jsonl_reporter.hpp"

#include "core/report/json_model.hpp"

namespace distbench {
namespace {

// One line; invalid UTF-8 (an odd host name) replaced rather than losing the line.
std::string jsonl_line(const ordered_json& j) {
  return j.dump(-1, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace

void JsonLinesReporter::on_begin(const RunInfo& info) {
  const RunDescription& d = description();
  ordered_json run = {{"type", "run"},
                      {"schema_version", kReportSchemaVersion},
                      {"tool", {{"name", "distbench"}, {"version", info.tool_version}, {"git_sha", info.git_sha}}},
                      {"argv", info.argv},
                      {"start_time", info.start_time},
                      {"backend", info.backend},
                      {"world_size", info.world_size},
                      {"benchmark", d.benchmark},
                      {"title", d.title},
                      {"facts", d.facts},
                      {"config", d.config},
                      {"layout", layout_json(d.records)}};
  text_ = jsonl_line(run);
}

void JsonLinesReporter::on_add(const std::vector<Record>& row) {
  for (const Record& r : row) {
    ordered_json j = {{"type", "record"}, {"row", rows().size() - 1}};
    ordered_json record = record_json(r);
    for (auto& [key, value] : record.items()) j[key] = std::move(value);
    text_ += jsonl_line(j);
  }
}

void JsonLinesReporter::on_end(const RunInfo& info) {
  ordered_json end = {{"type", "end"},
                      {"status", info.status},
                      {"error", info.error.empty() ? ordered_json(nullptr) : ordered_json(info.error)},
                      {"end_time", info.end_time.empty() ? ordered_json(nullptr) : ordered_json(info.end_time)},
                      {"summary", summary_json(records(), summary())},
                      {"warnings", ordered_json::array()}};
  for (const Warning& w : info.warnings) end["warnings"].push_back(warning_json(w));
  text_ += jsonl_line(end);
}

}  // namespace distbench
