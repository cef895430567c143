// Options that mean something only on one backend or under one launcher (NCCL's -g, -m, -G, -z, -R, --alloc; MPI's
// --mpi-thread), in one table: a run that chose another warns once for each one given (code option_ignored) and
// runs, and records, the backend's settings with it reset to its default, as if it had not been given.
#pragma once

#include "core/comm/backend.hpp"
#include "core/report/record.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
}

namespace distbench::cli {

// An option of the table that the command line gave: its row and how it was given ("-g/--ngpus 2").
struct GivenScopedOption {
  std::size_t row = 0;
  std::string given;
};

// The options of the table that `app` declares and the command line gave.
std::vector<GivenScopedOption> given_scoped_options(const CLI::App& app);

struct OptionScope {
  BackendOptions backend_options;  // what the run uses and records
  std::vector<Warning> ignored;    // one line each
};

// Of `given`, those that do not apply to `backend` under `connector` (Connector::kind: "mpi", "env", "none"): each
// reset in `options` and warned.
OptionScope scope_options(const std::vector<GivenScopedOption>& given, const BackendOptions& options,
                          std::string_view backend, std::string_view connector);

}  // namespace distbench::cli
