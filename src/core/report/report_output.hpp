// Where a report goes: a file, rewritten atomically after every row so that a run that dies keeps what it measured;
// or, for the path "-", standard output, written once when the run ends (a stream cannot be rewritten), so that
// `--json - | jq` works.
#pragma once

#include <string>
#include <string_view>

namespace distbench {

inline constexpr std::string_view kStdoutReport = "-";

class ReportOutput {
 public:
  explicit ReportOutput(std::string path) : path_(std::move(path)) {}

  bool to_stdout() const { return path_ == kStdoutReport; }
  // A version written while the run goes on (after begin and after each row): files only.
  void update(std::string_view content) const;
  // The last version, once the run ended with `status` (a complete run's file is synced to disk).
  void finish(std::string_view content, const std::string& status) const;

 private:
  std::string path_;
};

}  // namespace distbench
