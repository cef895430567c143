#include "core/report/csv_reporter.hpp"

#include "core/error.hpp"
#include "core/report/atomic_file.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string_view>

namespace distbench {
namespace {

constexpr std::string_view kHeader =
    "collective,backend,dtype,op,placement,root,bytes,count,nranks,group,groups,ops_per_sample,samples,time_us,"
    "median_us,mean_us,min_us,max_us,stddev_us,p99_us,noise_pct,rank_min_us,rank_avg_us,rank_max_us,algbw_gbps,"
    "busbw_gbps,wrong,median_ci_pct,faults_per_op,switches_per_op,status\n";

// RFC 4180: a field with a comma, a double quote or a line break is quoted, and its quotes doubled.
std::string quoted(std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(field);
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

// 12 significant digits: every digit a timer can measure, none of the noise of the unit conversion.
std::string number(double v) { return std::isfinite(v) ? fmt::format("{:.12g}", v) : std::string(); }
std::string microseconds(double seconds) { return number(seconds * 1e6); }

std::string row(const CaseResult& r) {
  std::string line = fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}", quoted(r.collective), quoted(r.backend),
                                 quoted(r.dtype), quoted(r.op), quoted(r.placement), r.root, r.bytes, r.count,
                                 r.nranks, quoted(r.group), r.groups, r.ops_per_sample);
  if (r.status == "ok") {
    const Summary& t = r.time;
    line += fmt::format(",{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}", t.samples, microseconds(r.time_shown),
                        microseconds(t.median), microseconds(t.mean), microseconds(t.min), microseconds(t.max),
                        microseconds(t.stddev), microseconds(t.p99), number(t.noise), microseconds(r.rank_time.min),
                        microseconds(r.rank_time.avg), microseconds(r.rank_time.max), number(r.algbw),
                        number(r.busbw), r.wrong < 0 ? std::string() : std::to_string(r.wrong));
    line += fmt::format(",{},{},{}", number(t.median_ci), number(max_over_ranks(r.os_per_op, &OsCounters::faults)),
                        number(max_over_ranks(r.os_per_op, &OsCounters::switches)));
  } else {
    line += std::string(18, ',');  // nothing was measured
  }
  line += ',';
  line += quoted(r.status);
  line += '\n';
  return line;
}

}  // namespace

CsvReporter::CsvReporter(std::string path) : path_(std::move(path)) {}

void CsvReporter::do_begin(const RunInfo&, const SweepPlan&) {
  text_ = kHeader;
  write_file_atomically(path_, text_, Durability::process);
}

void CsvReporter::do_add(const std::vector<CaseResult>& results) {
  for (const CaseResult& r : results) text_ += row(r);
  write_file_atomically(path_, text_, Durability::process);  // the final write goes to disk as well
}

void CsvReporter::do_end(const RunInfo& info) {
  write_file_atomically(path_, text_, final_durability(info.status));
}

}  // namespace distbench
