// A distbench JSON report (any schema version the report reader reads) as a run: each ok record is a case, its point
// the first phase's median time per operation with the median's confidence interval, and the bandwidths at that time.
#include "compare/case_pool.hpp"
#include "core/error.hpp"
#include "core/report/json_model.hpp"
#include "history/case_identity.hpp"
#include "history/ingest.hpp"

#include <fmt/format.h>

namespace distbench::history {
namespace {

// "AMD EPYC / cpu (host memory)": the kind of machine (CPU model and device), never a host name, so that runners of
// one kind share their series.
std::string report_machine(const ParsedReport& report) {
  const std::string cpu = report.info.version("cpu_model"), device = report.info.version("device");
  if (cpu.empty() && device.empty()) return "unknown machine";
  if (cpu.empty() || device.empty()) return cpu.empty() ? device : cpu;
  return cpu + " / " + device;
}

std::string report_timing(const ParsedReport& report) {
  const auto it = report.config.find("timing");
  return it != report.config.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The case's label: its collective (or kind), then the parameters that vary between the report's cases.
std::string report_case_label(const Record& r, const std::vector<std::string>& keys) {
  const std::string first = r.param("collective") != nullptr ? r.param_text("collective") : r.kind;
  std::vector<std::string> rest;
  for (const std::string& k : keys) {
    if (k != "collective") rest.push_back(k);
  }
  return rest.empty() ? first : first + " " + compare::detail::label_of(r, rest);
}

Point report_point(const Record& r) {
  Point p;
  const Summary& s = r.phases.front().summary;
  p.time_us = s.median * 1e6;
  p.time_low_us = s.samples > 0 && s.median_low > 0 ? s.median_low * 1e6 : kNotMeasured;
  p.time_high_us = s.samples > 0 && s.median_high > 0 ? s.median_high * 1e6 : kNotMeasured;
  p.samples = s.samples;
  const compare::detail::Bandwidth bw = compare::detail::bandwidth_of(r);
  if (r.metric("algbw_gbps") >= 0) {
    p.algbw_gbps = compare::detail::metric_of(compare::CompareMetric::algbw, p.time_us, bw);
    p.busbw_gbps = compare::detail::metric_of(compare::CompareMetric::busbw, p.time_us, bw);
  }
  p.wrong = r.metric("wrong");
  return p;
}

}  // namespace

RunToStore read_distbench(const SourceFile& file, const IngestOptions& options) {
  ParsedReport report;
  try {
    report = parse_report(file.text);
  } catch (const Error& e) {
    throw usage_error(fmt::format("'{}': malformed distbench report: {}", file.path, e.what()));
  }
  if (report.info.status != "complete") {
    throw usage_error(
        fmt::format("'{}' is a run that did not complete ({}: {}); a history keeps whole runs only: "
                    "measure it again",
                    file.path, report.info.status, report.info.error.empty() ? "no reason given" : report.info.error));
  }
  RunToStore run;
  RunMeta& m = run.meta;
  m.time = report.info.start_time;
  m.machine = options.machine.empty() ? report_machine(report) : options.machine;
  m.benchmark = report.benchmark;
  m.backend = report.info.backend;
  m.world = report.info.world_size;
  m.config = report.config.dump();
  const std::string group = group_of({m.machine, m.benchmark, m.backend, m.world, report_timing(report)});
  std::vector<const Record*> measured;
  for (const Record& r : report.records) {
    if (r.ok() && !r.phases.empty() && r.phases.front().summary.samples > 0) measured.push_back(&r);
  }
  const std::vector<std::string> keys = compare::detail::varying_keys(measured);
  for (const Record* r : measured) {
    run.cases.push_back(
        {series_key(group, r->kind, r->params), group, report_case_label(*r, keys), r->params, report_point(*r)});
  }
  return run;
}

}  // namespace distbench::history
