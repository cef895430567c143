#include "cli/exit_codes.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace distbench::cli {
namespace {

// README.md's table, a line each (its full text stays there).
struct Known {
  ExitCode code;
  const char* meaning;
};
constexpr Known kKnown[] = {
    {ExitCode::ok, "success"},
    {ExitCode::failure, "runtime failure (MPI, backend, I/O); the error line says where"},
    {ExitCode::usage, "bad input (options, sizes, files); nothing was run"},
    {ExitCode::wrong_results, "the run finished, but verification found wrong elements"},
    {ExitCode::timeout, "a step outlived -T/--timeout; the job was ended, the report says which step"},
    {ExitCode::unavailable, "the backend or device asked for is not available here"},
    {ExitCode::below_floor, "the run finished below its bandwidth floor (--min-busbw, --min-algbw)"},
    {ExitCode::not_judged, "compare could not judge (cases missing, a report not complete)"},
    {ExitCode::gate_failure, "compare or history check failed to run (I/O, an internal error); no verdict"},
};
const ExitCodeLine kInterrupted{"130, 143", "interrupted (SIGINT, SIGTERM); the report keeps every finished case"};

}  // namespace

std::vector<ExitCodeLine> exit_code_lines(std::initializer_list<ExitCode> codes, bool interruptible) {
  std::vector<ExitCodeLine> out;
  for (ExitCode code : codes) {
    const auto* known =
        std::find_if(std::begin(kKnown), std::end(kKnown), [code](const Known& k) { return k.code == code; });
    if (known != std::end(kKnown)) out.push_back({std::to_string(static_cast<int>(code)), known->meaning});
  }
  if (interruptible) out.push_back(kInterrupted);
  return out;
}

std::vector<ExitCodeLine> all_exit_code_lines() {
  std::vector<ExitCodeLine> out;
  for (const Known& k : kKnown) out.push_back({std::to_string(static_cast<int>(k.code)), k.meaning});
  out.push_back(kInterrupted);
  return out;
}

std::vector<ExitCodeLine> health_exit_code_lines() {
  return {{"0", "healthy"},
          {"1", "degraded: a node is slower than the others or breaks a degraded rule"},
          {"2", "failed: a node failed a check or did not arrive"},
          {"3", "unknown: bad input, the check could not run, or it was interrupted"}};
}

std::vector<ExitCodeLine> compare_exit_code_lines() {
  return {{"0", "no case got slower"},
          {"1", "a case got SLOWER"},
          {"2", "bad input: options, or reports that cannot be compared"},
          {"3", "a report of either side counts wrong elements: it fails closed"},
          {"7", "could not judge (too few runs; cases missing, even in a round; a report not complete)"},
          {"8", "the gate failed to run (I/O, an internal error): no verdict; the error line says where"},
          {"130, 143", "interrupted (SIGINT, SIGTERM); the interleaved runs so far are kept"}};
}

std::string help_footer(const std::string& prose, const std::vector<ExitCodeLine>& codes) {
  std::size_t widest = 0;
  for (const ExitCodeLine& line : codes) widest = std::max(widest, line.code.size());
  std::string out = prose.empty() ? std::string() : prose + "\n\n";
  out += "Exit codes:";
  for (const ExitCodeLine& line : codes) out += fmt::format("\n  {:<{}}  {}", line.code, widest, line.meaning);
  return out;
}

}  // namespace distbench::cli
