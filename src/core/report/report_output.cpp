#include "core/report/report_output.hpp"

#include "core/error.hpp"
#include "core/report/atomic_file.hpp"

#include <fmt/format.h>

#include <cstdio>

namespace distbench {

void ReportOutput::update(std::string_view content) const {
  if (!to_stdout()) write_file_atomically(path_, content, Durability::process);
}

void ReportOutput::finish(std::string_view content, const std::string& status) const {
  if (!to_stdout()) {
    write_file_atomically(path_, content, final_durability(status));
    return;
  }
  if (std::fwrite(content.data(), 1, content.size(), stdout) != content.size() || std::fflush(stdout) != 0) {
    throw failure("the report could not be written to standard output (closed or full)");
  }
}

}  // namespace distbench
