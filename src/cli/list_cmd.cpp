// `distbench list`: what this build can run (collectives, types, operators, backends), as text or as JSON for tools.
#include "backends/registry.hpp"
#include "cli/command.hpp"
#include "cli/exit_codes.hpp"
#include "cli/option_groups.hpp"
#include "core/comm/backend.hpp"
#include "core/device/collective.hpp"
#include "core/device/dtype.hpp"
#include "core/device/reduce_op.hpp"
#include "core/report/text.hpp"
#include "version.hpp"

#include <fmt/core.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <memory>

namespace distbench::cli {
namespace {

std::string kind_of(DType t) {
  return is_integer(t) ? (is_signed(t) ? "signed integer" : "unsigned integer") : "floating point";
}

// The backends that run `op` (the bitwise operators: only those that say they reduce with them).
std::vector<std::string> backends_of(ReduceOp op) {
  std::vector<std::string> names;
  for (const auto& entry : backend_registry()) {
    if (!is_bitwise(op) || entry.bitwise_reductions) names.push_back(entry.name);
  }
  return names;
}

int run_list_text() {
  fmt::print("collectives:\n");
  for (Collective c : all_collectives()) {
    fmt::print("  {:<15} {}{}\n", name(c), is_reduction(c) ? "reduces (-o)" : "moves data",
               is_rooted(c) ? ", rooted (-r)" : "");
  }
  fmt::print("datatypes:\n");
  for (DType t : all_dtypes())
    fmt::print("  {:<15} {}, {}\n", name(t), plural(size_of(t), "byte", "bytes"), kind_of(t));
  fmt::print("reduction operators:\n");
  for (ReduceOp op : all_reduce_ops()) {
    fmt::print("  {:<15} {}\n", name(op), is_bitwise(op) ? "integer types only; mpi backend only" : "every type");
  }
  fmt::print("backends:\n");
  for (const auto& entry : backend_registry()) {
    const auto reason = entry.unavailable_reason();
    fmt::print("  {:<15} {}\n  {:<15} {}\n", entry.name, entry.summary, "",
               reason ? fmt::format("unavailable here: {}", *reason) : std::string("available here"));
  }
  return 0;
}

int run_list_json() {
  nlohmann::ordered_json doc;
  doc["version"] = kVersion;
  doc["git"] = kGitSha;
  doc["collectives"] = nlohmann::ordered_json::array();
  for (Collective c : all_collectives()) {
    doc["collectives"].push_back({{"name", name(c)},
                                  {"reduces", is_reduction(c)},
                                  {"rooted", is_rooted(c)},
                                  {"description", traits(c).description}});
  }
  doc["datatypes"] = nlohmann::ordered_json::array();
  for (DType t : all_dtypes())
    doc["datatypes"].push_back({{"name", name(t)}, {"bytes", size_of(t)}, {"kind", kind_of(t)}});
  doc["ops"] = nlohmann::ordered_json::array();
  for (ReduceOp op : all_reduce_ops()) {
    doc["ops"].push_back({{"name", name(op)}, {"integer_only", is_bitwise(op)}, {"backends", backends_of(op)}});
  }
  doc["backends"] = nlohmann::ordered_json::array();
  for (const auto& entry : backend_registry()) {
    const auto reason = entry.unavailable_reason();
    doc["backends"].push_back({{"name", entry.name},
                               {"summary", entry.summary},
                               {"available", !reason.has_value()},
                               {"reason", reason ? nlohmann::ordered_json(*reason) : nlohmann::ordered_json()}});
  }
  fmt::print("{}\n", doc.dump(2));
  return 0;
}

}  // namespace

void add_list_command(CLI::App& root, Commands& commands) {
  auto* app = root.add_subcommand("list", "List collectives, datatypes, operators and backends of this build");
  app->group("Reports and tools");
  app->footer(help_footer("", exit_code_lines({ExitCode::ok, ExitCode::usage}, false)));
  auto json = std::make_shared<bool>(false);
  app->add_flag("--json", *json, "Print JSON for tools instead of text")->group(groups::kOutput);
  commands.push_back({app, [json](Invocation&) { return *json ? run_list_json() : run_list_text(); }});
}

}  // namespace distbench::cli
