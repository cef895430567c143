// The JSON report: the whole report is rewritten atomically after begin(), after every add() and at end(), so that
// a run that dies keeps everything measured so far, marked "incomplete".
#pragma once

#include "core/report/atomic_file.hpp"
#include "core/report/reporter.hpp"

#include <string>
#include <vector>

namespace distbench {

class JsonReporter final : public Reporter {
 public:
  explicit JsonReporter(std::string path);

 protected:
  void do_begin(const RunInfo& info) override;
  void do_add(const std::vector<Record>& row) override;
  void do_end(const RunInfo& info) override;

 private:
  // Rows in flight only need to survive the process; a complete report goes to disk as well.
  void rewrite(Durability durability);

  std::string path_;
  RunInfo info_;
};

}  // namespace distbench
