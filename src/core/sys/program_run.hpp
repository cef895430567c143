// Runs one program as an argument vector, never through a shell: found on a PATH, started with posix_spawn, its
// stdin /dev/null, its stdout and stderr read within a cap, ended with SIGKILL at its deadline. For short
// administrative calls from the root (health's --slurm-drain runs scontrol so), not for benchmarks.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace distbench {

struct ProgramOutcome {
  bool started = false;    // false: it could not be started (`error` says why)
  bool timed_out = false;  // it outlived its deadline and was killed (SIGKILL, its process group)
  int status = -1;         // its exit code, or 128 + N when a signal N ended it; -1 when it did not start
  std::string out, err;    // the first `cap` bytes of its stdout and stderr (the rest read and dropped)
  bool cut = false;        // either was longer than the cap
  double seconds = 0;      // from its start to its end (or to its deadline)
  std::string error;       // why it could not be started: "posix_spawn: No such file or directory"

  bool ok() const { return started && !timed_out && status == 0; }
};

// The first file named `program` in the folders of `path` (a PATH value: ':'-separated; an empty entry is skipped, not
// read as the current folder: this may run as root) that is a regular file this process may execute; std::nullopt
// when none is. `program` holding a '/' is taken as it is (when executable).
std::optional<std::string> find_on_path(std::string_view program, std::string_view path);

// Runs argv[0] (a path, as find_on_path gives) with argv as its arguments and this process's environment. The child
// has its own process group, no blocked signal, the default action for every signal (this process ignores SIGPIPE and
// blocks SIGTERM: the child should not), and no open file but its stdin, stdout and stderr. Waits at most `timeout_s`;
// never throws for what the program does.
ProgramOutcome run_program(const std::vector<std::string>& argv, double timeout_s, std::size_t cap_bytes);

// A waitpid status as a shell reports it: the exit code, or 128 + N when signal N ended the process; -1 otherwise.
int exit_status_of(int wait_status);

// The last non-empty line of a program's stderr, else of its stdout, trimmed: what it said when it failed ("" when
// nothing).
std::string last_output_line(const ProgramOutcome& outcome);

}  // namespace distbench
