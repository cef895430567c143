// Where a report goes: a file, rewritten atomically while the run goes on so that a run that dies keeps what it
// measured; or, for the path "-", standard output, written once when the run ends (a stream cannot be rewritten), so
// that `--json - | jq` works.
//
// Rewriting the whole report after every row grows with the report (a 5.7 MB report rewritten 2,448 times made a
// 7.6 s run take 36 s), so a rewrite waits until the time since the last one is at least kPace times what that one
// took: rewriting then costs at most about 1/kPace of the run, however large the report grows, and a small report is
// still rewritten after every row. A run killed outright (SIGKILL) keeps everything up to the last rewrite; any run
// that can still act (a failure, a timeout, a signal it handles) writes the whole report at its end.
#pragma once

#include "core/report/report_lock.hpp"

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

namespace distbench {

inline constexpr std::string_view kStdoutReport = "-";
// No path: a report made in memory (a view of a report read back), never written; its reporter gives the text.
inline constexpr std::string_view kInMemoryReport = "";

class ReportOutput {
 public:
  static constexpr double kPace = 20.0;

  using Clock = std::chrono::steady_clock;
  using Now = std::function<Clock::time_point()>;

  // `now` reads the clock that paces rewrites (tests pass one they drive).
  explicit ReportOutput(std::string path, Now now = Clock::now)
      : path_(std::move(path)), lock_(path_), now_(std::move(now)) {}

  bool to_stdout() const { return path_ == kStdoutReport; }
  bool in_memory() const { return path_ == kInMemoryReport; }
  // Before the run: takes the file from here on, refusing (usage_error) one that another live run is writing.
  void claim() {
    if (!to_stdout() && !in_memory()) lock_.claim();
  }
  // A version written while the run goes on (after begin and after each row): files only, paced as above; `make`
  // builds the content and is called only when a rewrite is due.
  void update(const std::function<std::string()>& make);
  // The last version, once the run ended with `status` (a complete run's file is synced to disk).
  void finish(std::string_view content, const std::string& status);

 private:
  std::string path_;
  ReportLock lock_;
  Now now_;
  bool written_ = false;          // a rewrite has been made
  Clock::time_point last_end_{};  // when the last rewrite finished
  Clock::duration last_cost_{};   // what it took, content built and written
};

}  // namespace distbench
