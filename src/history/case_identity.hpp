// What makes runs comparable and a case the same case across runs: a series' group (machine, benchmark, backend,
// world size, timing method) and its key (the group and the case's kind and parameters). docs/history.md, "Series".
#pragma once

#include "core/report/record.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace distbench::history {

struct GroupFacts {
  std::string machine, benchmark, backend;
  int world = 0;
  std::string timing;
};

// "AMD EPYC / cpu (host memory) | collective | mpi | np 2 | sampled"
std::string group_of(const GroupFacts& g);
// The group, then the kind and every parameter in order: "<group> | collective|bytes=8|..."
std::string series_key(std::string_view group, std::string_view kind, const std::vector<Param>& params);

// Throws usage_error ("FILE: WHAT is longer than 1024 bytes") for a string past kIngestMaxTextBytes.
void check_text_length(std::string_view text, std::string_view what, std::string_view file);

}  // namespace distbench::history
