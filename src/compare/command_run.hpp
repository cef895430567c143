// Runs one shell command to its end or its deadline, as the interleaved gate runs each side's benchmark: in a process
// group of its own (so that a timeout or an interrupt ends mpirun and everything it started), with its output in a
// log file and stdin from /dev/null, and with the signals this process blocks unblocked again.
#pragma once

#include <atomic>
#include <string>
#include <sys/types.h>

namespace distbench {

struct CommandOutcome {
  int status = 0;           // the exit status as a shell reports it (128 + N when ended by signal N)
  bool timed_out = false;   // it outlived its deadline and was ended (SIGTERM, then SIGKILL 5 s later)
  double seconds = 0;       // wall time
};

class CommandRunner {
 public:
  // Runs `/bin/sh -c command`, stdout and stderr to `log_path` (created or truncated). Throws Error(failure) when the
  // command cannot be started.
  CommandOutcome run(const std::string& command, const std::string& log_path, double timeout_s);

  // Ends the running command's process group, if any (SIGTERM, then SIGKILL after `grace_s`), and waits for it.
  // Safe to call from another thread (a signal handler's) while run() waits.
  void stop(double grace_s = 5.0);

 private:
  std::atomic<pid_t> running_{0};
};

// The last non-empty line of a text file, cut to an excerpt; "" when there is none. For error messages.
std::string last_line_of(const std::string& path);

}  // namespace distbench
