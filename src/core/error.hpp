// One error type for the whole tool: thrown where a problem is detected, with context, and caught once in main.
#pragma once

#include <fmt/core.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace distbench {

// Where an error was thrown, filled in by default arguments at the throwing call. std::source_location would do,
// but clang before 15 cannot build it with libstdc++ (the sanitizer and fuzzing builds use clang 14); both compilers
// have these builtins.
struct SourceLocation {
  const char* file = "";
  unsigned line = 0;
  static constexpr SourceLocation current(const char* file = __builtin_FILE(), unsigned line = __builtin_LINE()) {
    return {file, line};
  }
};

// Process exit codes, documented in README.md ("Exit codes").
enum class ExitCode : int {
  ok = 0,
  failure = 1,        // a runtime failure: backend, I/O, MPI
  usage = 2,          // bad input: options, files, sizes; nothing was measured
  wrong_results = 3,  // the run finished but verification counted wrong elements
  timeout = 4,        // the watchdog saw an operation outlive -T/--timeout and aborted the job
  unavailable = 5,    // a requested backend or device is not available on this machine
  below_floor = 6,    // the run finished but its bandwidth is below --min-busbw / --min-algbw
  regression = 1,     // distbench compare: at least one case is SLOWER (the same number as failure, by design)
  not_judged = 7,     // distbench compare: the gate could not judge (nothing compared, cases missing, a report that
                      // is not complete): it fails closed
  gate_failure = 8,   // compare, history check: a runtime failure (I/O, a lock, an internal error), never 1: a CI
                      // job tells "a case got slower" from "the gate broke"
};

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, std::string message, SourceLocation where = SourceLocation::current())
      : std::runtime_error(std::move(message)), code_(code), file_(where.file), line_(where.line) {}

  ExitCode code() const noexcept { return code_; }
  // Where the error was thrown, as a path inside the source tree's src/ ("compare/command_run.cpp:89"), never the
  // build machine's folders; shown for internal failures, not for bad input.
  std::string where() const { return fmt::format("{}:{}", source_path(file_), line_); }

  // `file` (as the compiler named it: absolute, or relative to the build folder) from its last "src/" folder on,
  // without it; its last component alone when it has none.
  static std::string_view source_path(std::string_view file) {
    if (const auto at = file.rfind("/src/"); at != std::string_view::npos) return file.substr(at + 5);
    if (file.rfind("src/", 0) == 0) return file.substr(4);
    const auto slash = file.rfind('/');
    return slash == std::string_view::npos ? file : file.substr(slash + 1);
  }

 private:
  ExitCode code_;
  const char* file_;
  unsigned line_;
};

// A problem with what the user asked for. `message` says what is wrong and how to fix it.
inline Error usage_error(std::string message, SourceLocation where = SourceLocation::current()) {
  return Error(ExitCode::usage, std::move(message), where);
}

inline Error failure(std::string message, SourceLocation where = SourceLocation::current()) {
  return Error(ExitCode::failure, std::move(message), where);
}

}  // namespace distbench
