// env:// links every rank to every other, a socket a peer, and rank 0 also holds the connections waiting to be
// admitted: a rank of an N-rank job needs about N + kMaxPending + a few dozen open files. The usual soft limit
// (`ulimit -n`, 1,024) ends a job near 1,000 ranks in a rendezvous that times out without saying why; the hard limit
// is usually far higher, and a process may raise its soft limit up to it.
#pragma once

#include <cstdint>

namespace distbench::connectors {

// The descriptors rank `rank` of a `world_size`-rank job needs (its links, rank 0's admissions, files and slack).
std::uint64_t open_files_needed(int rank, int world_size);

// Raises this process's soft RLIMIT_NOFILE to what rank `rank` needs (as far as the hard limit allows rank 0's room
// for admissions), when it is lower; throws Error(unavailable) naming both when the hard limit is below the links'
// need. Returns the soft limit in force after.
std::uint64_t ensure_open_files(int rank, int world_size);

}  // namespace distbench::connectors
