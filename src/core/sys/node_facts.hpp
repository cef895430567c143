// What one node runs and how it is set up, as ordered key/value pairs that health's drift phase compares across the
// nodes of a job (benchmarks/health/drift.hpp): the software (kernel, OS, NVIDIA driver, library versions), the limits
// and settings a job inherits (memlock and open files, transparent huge pages, CPU governor), and the NCCL_*, OMPI_*
// and UCX_* environment. Read from a root of /proc, /sys and /etc and an environment given as data, so that a test
// can feed a fake tree. Bounded: at most kMaxNodeFacts pairs, keys and values cut to their caps.
#pragma once

#include "core/sys/key_values.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace distbench {

inline constexpr std::size_t kMaxNodeFacts = 64;
inline constexpr std::size_t kMaxFactKeyChars = 64;     // a longer variable's name is not compared (counted)
inline constexpr std::size_t kMaxFactValueChars = 200;  // a longer value is cut
inline constexpr std::uint64_t kNoLimit = UINT64_MAX;   // a resource limit of RLIM_INFINITY

// Where the facts come from.
struct NodeFactSources {
  std::string root = "/";  // the file system root under which proc/, sys/ and etc/ are read
  KeyValues environment;   // the process's variables, (name, value); only NCCL_*, OMPI_*, UCX_* are kept
  std::uint64_t memlock_bytes = kNoLimit;  // soft limits (getrlimit): RLIMIT_MEMLOCK
  std::uint64_t open_files = kNoLimit;     // RLIMIT_NOFILE
  KeyValues versions;                      // what the program knows of itself and its libraries: first among the facts
};

// This process's sources: the root "/", its environment, its limits, and `versions`.
NodeFactSources this_process_sources(KeyValues versions);

// `versions`, then kernel (the release), os (os-release's PRETTY_NAME), nvidia.driver ("none" without the driver),
// limit.memlock ("64 KiB", "unlimited"), limit.nofile, thp (the bracketed mode), cpu.governor (cpu0's; "none"),
// then env.NAME for each NCCL_*, OMPI_* and UCX_* variable by name, less the launcher's bookkeeping
// (is_launcher_bookkeeping: rank, size, job ids, file locations) and the launcher's own settings (OMPI_MCA_plm*:
// mpirun's, which its remote daemons get rewritten). Bounded as merge_facts bounds.
KeyValues node_facts(const NodeFactSources& sources);

// `more` added to `facts` (a key already there takes the new value), before the environment's pairs, so that the
// cap drops variables first; keys and values cut to their caps, and what exceeds kMaxNodeFacts dropped and counted
// in the fact "facts.not_compared". How later facts join (a GPU's VBIOS, the CUDA driver through NVML).
void merge_facts(KeyValues& facts, KeyValues more);

// A resource limit in words: "unlimited", "64 KiB", "8 MiB", "1000 bytes" (bytes) or "1024" (a count).
std::string limit_text(std::uint64_t value, bool bytes);

}  // namespace distbench
