// The keeper of one run (docs/compare.md, "What a run leaves behind: nothing"): a process between `compare` and the
// run's shell that owns everything the run starts, so that nothing of it outlives the run, its deadline or `compare`
// itself. It is a child subreaper (PR_SET_CHILD_SUBREAPER: a process whose parent ends, a setsid daemon's double fork
// or mpirun's ranks, is adopted by it, not by init) with a parent-death signal (PR_SET_PDEATHSIG: it learns when
// compare dies, even by SIGKILL). It starts the command in a process group of its own, keeps its output within a cap
// (output_cap.hpp), and when the command ends, its deadline passes, compare asks (SIGTERM) or compare dies, it ends
// what is left: SIGTERM, once, to every process below the keeper (the command's group among them), the bottom of the
// tree first (a launcher's ranks before the launcher; everything by half the grace), kKeeperGraceSeconds for them to
// end (mpirun needs SIGTERM and a few seconds to end its ranks), then SIGKILL to the group and to whatever remains
// below it, reaping all.
//
// It is forked without exec from compare, which has other threads (the termination signals' watcher): between fork and
// exit it makes system calls only, on memory prepared before the fork (KeeperPlan, KeeperShared); nothing in it
// allocates or takes a lock another thread may have held.
#pragma once

#include "compare/output_cap.hpp"
#include "compare/process_tree.hpp"

#include <sys/types.h>
#include <cstddef>
#include <cstdint>

namespace distbench::compare {

inline constexpr double kKeeperGraceSeconds = 5;             // SIGTERM, then this long before SIGKILL
inline constexpr double kKeeperKillWaitSeconds = 30;         // SIGKILL, then at most this long for the processes to go
inline constexpr std::size_t kKeeperMaxProcesses = 1 << 18;  // processes of /proc read per scan

// What the keeper is given: everything prepared by compare before the fork.
struct KeeperPlan {
  const char* shell = "/bin/sh";
  char* const* argv = nullptr;  // {"/bin/sh", "-c", COMMAND, nullptr}
  char* const* envp = nullptr;  // the environment, with DISTBENCH_REPORT
  int stdin_fd = -1;            // /dev/null
  int output_write_fd = -1;     // the pipe the command writes (stdout and stderr)
  int output_read_fd = -1;      // the keeper's end of it
  int log_fd = -1;              // where the output goes, within the cap
  std::int64_t timeout_ns = 0;  // the run's deadline, from its start (saturated: deadline.hpp)
  std::int64_t grace_ns = 0;    // SIGTERM, then this long before SIGKILL
  pid_t parent = 0;             // compare
};

// Shared with compare (a MAP_SHARED mapping made before the fork): the keeper's results, and its scratch space.
struct KeeperShared {
  // Results, valid once the keeper has exited 0.
  int wait_status = 0;            // the shell's, as waitpid reports it
  bool command_ended = false;     // the shell was reaped (false: it could not be started, see start_errno)
  bool timed_out = false;         // the deadline passed first
  bool stopped = false;           // compare asked (SIGTERM, SIGINT, SIGHUP) or died first
  bool processes_remain = false;  // something would not die within kKeeperKillWaitSeconds of SIGKILL
  int start_errno = 0;            // why the command could not be started (fork); 0 when it was
  std::uint64_t left_behind = 0;  // processes the command left running when it ended, then ended by the keeper
  std::uint64_t output_bytes = 0, output_dropped = 0;
  std::int64_t elapsed_ns = 0;  // from the command's start to its end (or to its deadline)

  // Scratch space of the keeper.
  char output_ring[kOutputTailBytes];
  char read_buffer[1 << 16];
  char dents[1 << 16];
  ProcessEntry processes[kKeeperMaxProcesses];
  pid_t found[kKeeperMaxProcesses];
  std::uint64_t marks[kPidBitmapWords];      // descendants_of's and mark_parents' scratch
  std::uint64_t signalled[kPidBitmapWords];  // who had its SIGTERM
};

// Runs the command and ends it as the header says, then _exit(0). Never returns. Call in the child of fork().
[[noreturn]] void run_keeper(const KeeperPlan& plan, KeeperShared& shared);

}  // namespace distbench::compare
