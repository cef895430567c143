// The metrics reports/SCHEMA.md documents for a kind of record: the rows of the "| key | unit | meaning |" table
// under a heading ("### Latency records"), a row's every `key` ("`faults_per_op`, `switches_per_op`") with its unit.
// Tests hold a benchmark's declared metrics to them, so that the manual cannot drift from the code.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>

namespace distbench::test_support {

// key -> unit, from the first metrics table after the line starting with `heading`; empty when not found.
inline std::map<std::string, std::string> documented_metrics(const std::string& heading) {
  const char* root = std::getenv("DISTBENCH_SOURCE_ROOT");
  std::map<std::string, std::string> out;
  if (root == nullptr) {
    ADD_FAILURE() << "run through meson test (DISTBENCH_SOURCE_ROOT names the sources)";
    return out;
  }
  std::ifstream in(std::filesystem::path(root) / "reports" / "SCHEMA.md");
  std::string line;
  bool in_section = false, in_table = false;
  const std::regex row(R"(^\| ([^|]+) \| ([^|]+) \|)");
  const std::regex key("`([^`]+)`");
  while (std::getline(in, line)) {
    if (line.rfind(heading, 0) == 0) {
      in_section = true;
      continue;
    }
    if (!in_section) continue;
    if (line.rfind("#", 0) == 0) break;  // the next heading
    if (line.rfind("| key | unit |", 0) == 0) {
      in_table = true;
      continue;
    }
    if (!in_table || line.rfind("|---", 0) == 0) continue;
    std::smatch m;
    if (!std::regex_search(line, m, row)) break;  // the table's end
    const std::string keys = m[1], unit = m[2];
    for (auto it = std::sregex_iterator(keys.begin(), keys.end(), key); it != std::sregex_iterator(); ++it) {
      out[(*it)[1]] = unit;
    }
  }
  return out;
}

}  // namespace distbench::test_support
