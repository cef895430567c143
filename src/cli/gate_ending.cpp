#include "cli/gate_ending.hpp"

#include "cli/exit_codes.hpp"
#include "core/report/atomic_file.hpp"
#include "core/sys/quote.hpp"
#include "core/sys/text_file.hpp"

#include <fmt/core.h>

namespace distbench::cli {

int end_gate(const compare::Comparison& c, const std::string& view, const std::string& output) {
  if (output.empty()) {
    write_stdout(view);
  } else {
    write_file_atomically(output, view, Durability::disk);
    fmt::print("{}: {}\n", c.regressed() ? "REGRESSION" : c.not_judged.empty() ? "OK" : "NOT JUDGED", c.summary_line());
  }
  for (const auto& w : c.warnings) fmt::print(stderr, "warning: {}\n", escape_text(w));
  if (c.regressed()) return static_cast<int>(ExitCode::regression);
  if (!c.not_judged.empty()) {
    fmt::print(stderr, "error: the gate could not judge: {}\n", escape_text(c.not_judged));
    return static_cast<int>(ExitCode::not_judged);
  }
  return static_cast<int>(ExitCode::ok);
}

int gate_exit_code_of_error(ExitCode error) {
  return static_cast<int>(error == ExitCode::failure ? ExitCode::gate_failure : error);
}

}  // namespace distbench::cli
