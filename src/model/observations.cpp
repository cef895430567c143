#include "model/observations.hpp"

#include "core/error.hpp"
#include "core/measure/sizes.hpp"
#include "core/measure/stats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

namespace distbench::model {
namespace {

double record_seconds(const Record& r) {
  if (const PhaseStats* p = r.phase("time"); p != nullptr && p->summary.samples > 0 && p->summary.median > 0) {
    return p->summary.median;
  }
  return r.metric("time_us") * 1e-6;
}

// A parameter as a number (written as an integer or a double); NaN where absent or text.
double number_param(const Record& r, std::string_view key) {
  const ParamValue* v = r.param(key);
  if (v == nullptr) return std::numeric_limits<double>::quiet_NaN();
  if (const auto* i = std::get_if<std::int64_t>(v)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(v)) return *d;
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

std::vector<Observation> observations_of(const ParsedReport& report, const std::string& source) {
  if (report.benchmark != "collective") {
    throw usage_error(
        fmt::format("report '{}' holds a '{}' run, not a collective sweep; fit a model to reports of "
                    "distbench allreduce, allgather, ... (--json)",
                    source, report.benchmark));
  }
  bool any_out_of_place = false;
  for (const Record& r : report.records)
    any_out_of_place = any_out_of_place || r.param_text("placement") == "out-of-place";
  // A sweep timed several ways (--timing a,b) is fitted as the first method timed it: the methods' times of one
  // case differ by what surrounds the call, and a median over them would describe neither.
  std::string first_timing;
  for (const Record& r : report.records) {
    if (first_timing.empty()) first_timing = r.param_text("timing");
  }
  const std::optional<EagerLimit> eager = eager_limit(report.info);
  std::vector<Observation> out;
  for (const Record& r : report.records) {
    if (!r.ok()) continue;
    const double bytes = std::floor(number_param(r, "bytes"));  // NaN stays NaN
    if (bytes > kLargestModelledBytes) {  // any measured case, used here or not: the report is damaged
      throw usage_error(
          fmt::format("report '{}' holds a case of {:g} bytes, above the {} a model takes: no rank "
                      "holds a buffer that large, so the report is damaged; fit the reports as "
                      "distbench wrote them",
                      source, bytes, format_bytes(kLargestModelledBytes)));
    }
    if (any_out_of_place && r.param_text("placement") == "in-place") continue;
    if (r.param_text("timing") != first_timing) continue;
    const auto collective = parse_collective(r.param_text("collective"));
    const double nranks = number_param(r, "nranks");
    const double seconds = record_seconds(r);
    if (!collective || !(nranks >= 1 && nranks <= (1 << 24)) || !(bytes >= 1) || !(seconds > 0) ||
        !std::isfinite(seconds)) {
      continue;
    }
    Observation o;
    o.collective = *collective;
    o.nranks = static_cast<int>(nranks);
    o.bytes = bytes;
    o.seconds = seconds;
    o.faults_per_op = r.metric("faults_per_op");
    o.backend = r.param_text("backend").empty() ? report.info.backend : r.param_text("backend");
    o.source = source;
    o.recorded = recorded_algorithm(report.info.environment, *collective);
    o.eager = eager;
    out.push_back(std::move(o));
  }
  if (out.empty()) {
    throw usage_error(
        fmt::format("report '{}' holds no measured case (every record skipped or empty); pass a "
                    "report of a sweep that ran",
                    source));
  }
  return out;
}

std::vector<Observation> merge_repeats(std::vector<Observation> points) {
  using Key = std::tuple<int, int, double, std::string>;
  std::map<Key, std::vector<Observation>> groups;
  for (Observation& o : points) {
    const std::string algorithm = o.recorded.algorithm ? std::string(name(*o.recorded.algorithm)) : std::string();
    groups[{static_cast<int>(o.collective), o.nranks, o.bytes, algorithm}].push_back(std::move(o));
  }
  std::vector<Observation> out;
  for (auto& [key, group] : groups) {
    Observation merged = group.front();
    std::vector<double> times;
    double faults = merged.faults_per_op;
    for (const Observation& o : group) {
      times.push_back(o.seconds);
      if (std::isfinite(o.faults_per_op))
        faults = std::isfinite(faults) ? std::max(faults, o.faults_per_op) : o.faults_per_op;
    }
    std::sort(times.begin(), times.end());
    merged.seconds = percentile_sorted(times, 50);
    merged.faults_per_op = faults;
    out.push_back(std::move(merged));
  }
  return out;
}

}  // namespace distbench::model
