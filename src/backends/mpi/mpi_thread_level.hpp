// MPI's thread levels by name (--mpi-thread): which one a run asks MPI_Init_thread for, and which one it got.
//
// The default is single, as IMB-MPI1 and the OSU benchmarks run. Open MPI 4.1 takes its thread-safe paths (real
// locks, atomic free lists, a condition variable per blocking wait) at every level above single, funneled
// included; MPICH treats single, funneled and serialized alike. distbench's watchdog and signal threads never call
// MPI (the main thread makes every call), so a run at single is what the peers measure; funneled is the level the
// MPI standard names for a process with such threads.
#pragma once

#include <string>
#include <string_view>

namespace distbench::mpi {

// The names, in increasing order of support: single, funneled, serialized, multiple.
inline constexpr std::string_view kThreadLevelNames[] = {"single", "funneled", "serialized", "multiple"};

// MPI_THREAD_* for a name of kThreadLevelNames; throws usage_error for any other.
int thread_level_of(std::string_view name);
// The name of an MPI_THREAD_* value ("level <n>" for one MPI does not define).
std::string thread_level_name(int level);

}  // namespace distbench::mpi
