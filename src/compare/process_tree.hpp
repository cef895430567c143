// Every process below one: read from /proc (each process's parent, field 4 of /proc/PID/stat), so that a run's
// keeper (keeper.hpp) can signal what the run started even when it left its process group (setsid) or lost its
// parent (a daemon's double fork, mpirun's ranks once mpirun is gone; a child subreaper adopts those). Allocates
// nothing: the tables are the caller's, made before the keeper was forked, and the only calls are system calls.
#pragma once

#include <sys/types.h>
#include <cstddef>
#include <cstdint>

namespace distbench::compare {

struct ProcessEntry {  // no default values: a table of them is left untouched until it is written
  pid_t pid, parent;
};

// Linux's largest process id is below 2^22 (PID_MAX_LIMIT on 64-bit systems).
inline constexpr std::size_t kPidLimit = std::size_t{1} << 22;
inline constexpr std::size_t kPidBitmapWords = kPidLimit / 64;

// A set of process ids: a bitmap of kPidBitmapWords words, one bit a pid.
inline bool pid_marked(const std::uint64_t* marks, pid_t pid) {
  const auto p = static_cast<std::size_t>(pid);
  return p < kPidLimit && (marks[p / 64] >> (p % 64) & 1U) != 0;
}
inline void mark_pid(std::uint64_t* marks, pid_t pid) {
  const auto p = static_cast<std::size_t>(pid);
  if (p < kPidLimit) marks[p / 64] |= std::uint64_t{1} << (p % 64);
}

// The parent's pid in the text of /proc/PID/stat ("PID (COMM) STATE PPID ..."; COMM may hold spaces and ')'), or -1
// when the text is not of that form.
pid_t parent_in_stat(const char* text, std::size_t n);

// The descendants of `root` among `entries` (any order), into `out` (at most `out_capacity`); their number. `marks`
// (kPidBitmapWords words) is scratch space.
std::size_t descendants_of(pid_t root, const ProcessEntry* entries, std::size_t n, std::uint64_t* marks, pid_t* out,
                           std::size_t out_capacity);

// Every process that is the parent of one of `entries`, into `parents` (kPidBitmapWords words; cleared first): what
// is not marked there has no child, a leaf of the tree (a launcher's rank, the last command of a shell).
void mark_parents(const ProcessEntry* entries, std::size_t n, std::uint64_t* parents);

// The processes of /proc with their parents, into `entries` (at most `capacity`); their number. `dents` (`dents_size`
// bytes) is scratch space for the directory's entries. A process that ends while it is read is left out.
std::size_t scan_processes(ProcessEntry* entries, std::size_t capacity, char* dents, std::size_t dents_size);

}  // namespace distbench::compare
