// Runs one shell command to its end or its deadline, as the interleaved gate runs each side's benchmark: under a
// keeper process (keeper.hpp) that owns everything the command starts, so that nothing of it outlives the run, its
// deadline or compare (even killed by SIGKILL); with its output in a log file, within a cap (output_cap.hpp), stdin
// from /dev/null, and the signals this process blocks or ignores at their defaults again.
#pragma once

#include <sys/types.h>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace distbench::compare {

struct CommandOutcome {
  int status = 0;                 // the exit status as a shell reports it (128 + N when ended by signal N)
  bool timed_out = false;         // it outlived its deadline and was ended
  bool stopped = false;           // stop() ended it
  std::uint64_t left_behind = 0;  // processes it left running when it ended, which the keeper then ended
  std::uint64_t output_bytes = 0, output_dropped = 0;  // what it printed; what the log left out (the middle)
  double seconds = 0;                                  // wall time
};

class CommandRunner {
 public:
  // Runs `/bin/sh -c command` with `environment` added to this process's ("NAME=value" each, replacing a variable of
  // that name), stdout and stderr to `log_path` (created or truncated). Throws Error(failure) when the command cannot
  // be started.
  CommandOutcome run(const std::string& command, const std::string& log_path, double timeout_s,
                     const std::vector<std::string>& environment = {});

  // Ends the running command, if any, and everything it started (SIGTERM, then SIGKILL after the keeper's grace), and
  // waits for that, at most `wait_s`. Safe to call from another thread (a signal handler's) while run() waits.
  void stop(double wait_s = 60);

 private:
  std::atomic<pid_t> keeper_{0};
};

// The last non-empty line of a text file (read from its last 64 KiB only), cut to an excerpt; "" when there is none.
// For error messages.
std::string last_line_of(const std::string& path);

}  // namespace distbench::compare
