// `distbench list`: what this build can run (collectives, types, operators, backends).
#include "backends/registry.hpp"
#include "cli/command.hpp"
#include "core/backend.hpp"
#include "core/collective.hpp"
#include "core/dtype.hpp"
#include "core/reduce_op.hpp"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

namespace distbench::cli {
namespace {

int run_list() {
  fmt::print("collectives:\n");
  for (Collective c : all_collectives()) {
    fmt::print("  {:<15} {}{}\n", name(c), is_reduction(c) ? "reduces (-o)" : "moves data",
               is_rooted(c) ? ", rooted (-r)" : "");
  }
  fmt::print("datatypes:\n");
  for (DType t : all_dtypes()) {
    fmt::print("  {:<15} {} bytes, {}\n", name(t), size_of(t),
               is_integer(t) ? (is_signed(t) ? "signed integer" : "unsigned integer") : "floating point");
  }
  fmt::print("reduction operators:\n");
  for (ReduceOp op : all_reduce_ops()) {
    fmt::print("  {:<15} {}\n", name(op), is_bitwise(op) ? "integer types only; mpi backend only" : "every type");
  }
  fmt::print("backends:\n");
  for (const auto& entry : backend_registry()) {
    const auto reason = entry.unavailable_reason();
    fmt::print("  {:<15} {} ({})\n", entry.name, entry.summary,
               reason ? "unavailable here: " + *reason : std::string("available"));
  }
  return 0;
}

}  // namespace

void add_list_command(CLI::App& root, Commands& commands) {
  auto* app = root.add_subcommand("list", "List collectives, datatypes, operators and backends of this build");
  commands.push_back({app, [](Invocation&) { return run_list(); }});
}

}  // namespace distbench::cli
