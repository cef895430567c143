// The table on stdout, nccl-tests' layout when the benchmark is a collective: a header naming what runs, one line
// per row (the key columns, then each group's value columns side by side), and a footer from the run's summary.
#pragma once

#include "core/report/reporter.hpp"

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace distbench {

class ConsoleReporter final : public Reporter {
 public:
  // `before_write` runs before each write (e.g. to erase a progress line from the terminal).
  explicit ConsoleReporter(std::ostream& out, std::function<void()> before_write = {});

 protected:
  void do_begin(const RunInfo& info) override;
  void do_add(const std::vector<Record>& row) override;
  void do_end(const RunInfo& info) override;

 private:
  void write(const std::string& text);

  std::ostream& out_;
  std::function<void()> before_write_;
  std::string section_;  // the last section line's value (TableLayout::console_section_key)
};

}  // namespace distbench
