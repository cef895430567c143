// Reading a file into a run of the history: a distbench JSON report, nccl-tests' text output (a log of
// all_reduce_perf and its kin) or nccl-tests' JSON (-J, file version 3). A file is untrusted input: it is read within
// bounds (kIngestMaxBytes, line and string lengths, kIngestMaxCases) and anything wrong is one usage_error naming the
// file, before anything is written.
#pragma once

#include "history/history_db.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace distbench::history {

inline constexpr std::size_t kIngestMaxBytes = std::size_t{256} << 20;  // 256 MiB, as a report read back
inline constexpr std::size_t kIngestMaxLineBytes = 64 << 10;            // a line of nccl-tests' text
inline constexpr std::size_t kIngestMaxCases = 100'000;                 // cases of one run
inline constexpr std::size_t kIngestMaxTextBytes = 1024;                // a label, commit, machine, parameter value

enum class SourceFormat { automatic, distbench, nccl_tests, nccl_tests_json };
std::string_view name(SourceFormat f);                    // "distbench", "nccl-tests", "nccl-tests-json", "auto"
SourceFormat parse_source_format(std::string_view text);  // throws usage_error

struct IngestOptions {
  std::string label, commit, machine;  // "" : the defaults (the file's name, none, the source's machine)
  std::string collective;              // nccl-tests' text without its "Collective test" lines: which collective
  SourceFormat format = SourceFormat::automatic;
};

// A file as read: its name (for messages and the run's source), its bytes, when it was last written.
struct SourceFile {
  std::string path;
  std::string text;
  std::string modified;  // ISO 8601 UTC
};

SourceFile read_source_file(const std::string& path);

// The run in `file`, its metadata from the file and `options` (the content hash set). Throws usage_error for a file
// of no known format, one out of bounds or malformed, a distbench report that did not complete (exit 2: a partial run
// would stand in the history as if whole; measure it again), a run with no case.
RunToStore read_run(const SourceFile& file, const IngestOptions& options);

// Each format's reader (read_run picks one); `meta` comes with the common fields set.
RunToStore read_distbench(const SourceFile& file, const IngestOptions& options);
RunToStore read_nccl_tests_text(const SourceFile& file, const IngestOptions& options);
RunToStore read_nccl_tests_json(const SourceFile& file, const IngestOptions& options);

}  // namespace distbench::history
