#include "cli/option_scope.hpp"

#include "cli/parse_errors.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

namespace distbench::cli {
namespace {

enum class ScopeKind { backend, connector };

// One row per option that only one backend (or one connector) reads: where it applies, what it means elsewhere, its
// default (a value given equal to it changes nothing: no warning), and how to take it back out of the settings.
struct ScopedOptionRow {
  const char* name;  // as CLI11 finds it
  ScopeKind kind;
  const char* applies;  // the backend's or the connector's name
  const char* why;      // "{}": the backend or the launcher the run has
  const char* default_value;
  void (*reset)(BackendOptions&);
};

const ScopedOptionRow kScopedOptionRows[] = {
    {"--ngpus", ScopeKind::backend, "nccl", "the {} backend drives no GPU", "1",
     [](BackendOptions& o) { o.gpus_per_process = 1; }},
    {"--agg-iters", ScopeKind::backend, "nccl", "the {} backend makes no NCCL group calls", "1",
     [](BackendOptions& o) { o.agg_iters = 1; }},
    {"--cudagraph", ScopeKind::backend, "nccl", "the {} backend captures no CUDA graph", "0",
     [](BackendOptions& o) { o.graph_launches = 0; }},
    {"--blocking", ScopeKind::backend, "nccl", "the {} backend has no NCCL communicator", "0",
     [](BackendOptions& o) { o.blocking = false; }},
    {"--register", ScopeKind::backend, "nccl", "the {} backend has no NCCL buffers to register", "0",
     [](BackendOptions& o) {
       o.register_buffers = false;
       o.nccl_mem_alloc = false;
     }},
    {"--alloc", ScopeKind::backend, "nccl", "the {} backend's buffers are host memory", "auto",
     [](BackendOptions& o) { o.nccl_mem_alloc = false; }},
    {"--mpi-thread", ScopeKind::connector, "mpi", "MPI is not started under --launcher {}", "single",
     [](BackendOptions&) {}},
};

}  // namespace

std::vector<GivenScopedOption> given_scoped_options(const CLI::App& app) {
  std::vector<GivenScopedOption> out;
  for (std::size_t row = 0; row < std::size(kScopedOptionRows); ++row) {
    const CLI::Option* opt = app.get_option_no_throw(kScopedOptionRows[row].name);
    if (opt == nullptr || opt->count() == 0) continue;
    const std::string value = fmt::format("{}", fmt::join(opt->results(), ","));
    if (value == kScopedOptionRows[row].default_value) continue;
    out.push_back({row, fmt::format("{} {}", shown_names(*opt), value)});
  }
  return out;
}

OptionScope scope_options(const std::vector<GivenScopedOption>& given, const BackendOptions& options,
                          std::string_view backend, std::string_view connector) {
  OptionScope scope{options, {}};
  for (const GivenScopedOption& g : given) {
    const ScopedOptionRow& row = kScopedOptionRows[g.row];
    const std::string_view actual = row.kind == ScopeKind::backend ? backend : connector;
    if (actual == row.applies) continue;
    row.reset(scope.backend_options);
    scope.ignored.push_back({"option_ignored", fmt::format("{} ignored: {} ({} only)", g.given,
                                                           fmt::format(fmt::runtime(row.why), actual), row.applies)});
  }
  return scope;
}

}  // namespace distbench::cli
