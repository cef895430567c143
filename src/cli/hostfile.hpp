// Hostfiles: the list of machines (and process slots on each) that mpirun launches on.
// Two formats, one per file:
//   OpenMPI   node1 slots=4 max_slots=8    (slots defaults to 1; `count=` is OpenMPI's alias for slots)
//   MPICH     node1:4                      (":N" defaults to 1)
// A file of bare host names is valid in both. Bad input throws distbench::usage_error "FILE:LINE: what; fix".
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace distbench {

struct HostEntry {
  std::string host;
  int slots = 1;
  std::optional<int> max_slots;  // OpenMPI only
  int line = 0;                  // 1-based line in the file that named the host
};

struct Hostfile {
  std::string origin;            // file name used in messages
  std::string format;            // "openmpi" or "mpich"; "openmpi" when `plain`
  bool plain = false;            // only bare host names: the file works with either launcher
  std::vector<HostEntry> hosts;  // in file order, never empty

  // The sum of the slots; parse_hostfile refuses a file whose sum exceeds INT_MAX (MPI counts ranks in an int).
  int total_slots() const;
};

// Parses hostfile text; `origin` names it in error messages (usually the path).
Hostfile parse_hostfile(std::string_view text, std::string_view origin);

// The largest hostfile read (a hostfile lists a few thousand hosts at most).
inline constexpr std::size_t kHostfileMaxBytes = std::size_t{1} << 20;  // 1 MiB

// Reads and parses the file at `path` (a regular file of at most kHostfileMaxBytes); a missing or unreadable file is a
// usage_error naming the path.
Hostfile read_hostfile(const std::string& path);

// A human-readable summary (format, one row per host, total slots), each line ending in '\n'.
std::string format_hostfile_summary(const Hostfile& hostfile);

}  // namespace distbench
