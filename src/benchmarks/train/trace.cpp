#include "benchmarks/train/trace.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace distbench::train {

std::string trace_events(const std::vector<TimelineSpan>& spans, double offset_s, int rank, int mode) {
  std::string out;
  for (const TimelineSpan& s : spans) {
    if (s.end < s.start) continue;
    nlohmann::json e = {{"name", s.name},
                        {"ph", "X"},
                        {"ts", (offset_s + s.start) * 1e6},
                        {"dur", (s.end - s.start) * 1e6},
                        {"pid", rank},
                        {"tid", 2 * mode + s.lane}};
    if (!out.empty()) out += ",\n";
    out += e.dump();
  }
  return out;
}

std::string trace_names(int rank, const std::string& host, const std::vector<bool>& overlaps) {
  std::string out = nlohmann::json{{"name", "process_name"},
                                   {"ph", "M"},
                                   {"pid", rank},
                                   {"args", {{"name", fmt::format("rank {} ({})", rank, host)}}}}
                        .dump();
  for (std::size_t m = 0; m < overlaps.size(); ++m) {
    for (int lane = 0; lane < 2; ++lane) {
      out += ",\n";
      out += nlohmann::json{{"name", "thread_name"},
                            {"ph", "M"},
                            {"pid", rank},
                            {"tid", 2 * static_cast<int>(m) + lane},
                            {"args",
                             {{"name", fmt::format("overlap {}: {}", overlaps[m] ? "on" : "off",
                                                   lane == 0 ? "compute" : "communication")}}}}
                 .dump();
    }
  }
  return out;
}

std::string trace_file(const std::vector<std::vector<char>>& by_rank) {
  std::string file = "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n";
  for (std::size_t r = 0; r < by_rank.size(); ++r) {
    if (r > 0) file += ",\n";
    file.append(by_rank[r].begin(), by_rank[r].end());
  }
  file += "\n]}\n";
  return file;
}

}  // namespace distbench::train
