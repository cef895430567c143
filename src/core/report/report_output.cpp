#include "core/report/report_output.hpp"

#include "core/error.hpp"

#include <fmt/format.h>

#include <cstdio>

namespace distbench {

void ReportOutput::update(const std::function<std::string()>& make) {
  if (to_stdout()) return;
  const auto start = now_();
  if (written_ && start - last_end_ < last_cost_ * kPace) return;
  lock_.replace(make(), Durability::process);
  last_end_ = now_();
  last_cost_ = last_end_ - start;
  written_ = true;
}

void ReportOutput::finish(std::string_view content, const std::string& status) {
  if (!to_stdout()) {
    lock_.replace(content, final_durability(status));
    return;
  }
  if (std::fwrite(content.data(), 1, content.size(), stdout) != content.size() || std::fflush(stdout) != 0) {
    throw failure("the report could not be written to standard output (closed or full)");
  }
}

}  // namespace distbench
