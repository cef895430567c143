// What every reporter that writes a file has in common, once: the file (or, for the path "-", standard output at
// the end) taken at claim(), and the whole text written after begin(), after every row (paced: report_output.hpp)
// and at end(). A format only keeps what it needs in its hooks and says what the text is, as hyperfine's exporters
// serialize while one manager owns the files.
#pragma once

#include "core/report/report_output.hpp"
#include "core/report/reporter.hpp"

#include <string>
#include <vector>

namespace distbench {

class FileReporter : public Reporter {
 public:
  // "-": standard output, at the end; "" (kInMemoryReport): nothing written, the text kept for contents(); `now`
  // paces the rewrites (tests pass a clock they drive)
  explicit FileReporter(std::string path, ReportOutput::Now now = ReportOutput::Clock::now)
      : output_(std::move(path), std::move(now)) {}

  // The whole text as it stands, for a caller that owns the reporter alone (no run feeding it meanwhile): a view
  // made in memory takes its text here once it ended.
  std::string contents() const { return text(); }

 protected:
  // Called with the lock held, in lifecycle order, before the text is written; description() and records() are up
  // to date (records() already holds `row`).
  virtual void on_begin(const RunInfo& /*info*/) {}
  virtual void on_add(const std::vector<Record>& /*row*/) {}
  virtual void on_end(const RunInfo& /*info*/) {}
  // The whole file as it stands; called only when a version is due.
  virtual std::string text() const = 0;

 private:
  void do_claim() final { output_.claim(); }
  void do_begin(const RunInfo& info) final {
    on_begin(info);
    output_.update([this] { return text(); });
  }
  void do_add(const std::vector<Record>& row) final {
    on_add(row);
    output_.update([this] { return text(); });
  }
  void do_end(const RunInfo& info) final {
    on_end(info);
    output_.finish(text(), info.status);
  }

  ReportOutput output_;
};

}  // namespace distbench
