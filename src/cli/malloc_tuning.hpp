// The remedy for page faults inside library calls (--malloc-reuse). glibc serves large allocations (from 128 KiB,
// growing with what was freed) as fresh memory maps and unmaps them on free, so a library that allocates a message-
// sized temporary per call (Open MPI's reductions do) pays a page fault per 4 KiB page on every call. With mmap off
// and trimming pushed out of reach, freed blocks stay in the heap and the next call reuses mapped pages.
#pragma once

#include <string>

namespace distbench {

// Applies mallopt(M_MMAP_MAX, 0) and mallopt(M_TRIM_THRESHOLD, 2 GiB - 1) to this process; call it before MPI (or
// anything that allocates much) starts. Returns what was set, for the report; throws failure if glibc refuses.
std::string apply_malloc_reuse();

}  // namespace distbench
