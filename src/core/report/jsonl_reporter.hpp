// A JSON Lines stream of the run (--jsonl): one compact JSON object per line, in the order things happen: the run
// ({"type": "run", ...}), each record as it is measured ({"type": "record", "row": N, ...: the JSON report's record}),
// and once it ended the verdict and the summary ({"type": "end", ...}). Line by line it reads with `jq -c`, grep or
// a log shipper; rewritten atomically after every row, like the other report files.
#pragma once

#include "core/report/file_reporter.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace distbench {

class JsonLinesReporter final : public FileReporter {
 public:
  using FileReporter::FileReporter;

 protected:
  void on_begin(const RunInfo& info) override;
  void on_add(const std::vector<Record>& row) override;
  void on_end(const RunInfo& info) override;
  std::string text() const override { return text_; }

 private:
  std::string text_;  // the lines so far
};

}  // namespace distbench
