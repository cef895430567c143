#include "core/report/report_output.hpp"

#include "core/sys/text_file.hpp"

namespace distbench {

void ReportOutput::update(const std::function<std::string()>& make) {
  if (to_stdout() || in_memory()) return;
  const auto start = now_();
  if (written_ && start - last_end_ < last_cost_ * kPace) return;
  lock_.replace(make(), Durability::process);
  last_end_ = now_();
  last_cost_ = last_end_ - start;
  written_ = true;
}

void ReportOutput::finish(std::string_view content, const std::string& status) {
  if (in_memory()) return;
  if (!to_stdout()) {
    lock_.replace(content, final_durability(status));
    return;
  }
  write_stdout(content);
}

}  // namespace distbench
