#include "core/report/nccl_tests_json.hpp"

#include "core/device/dtype.hpp"
#include "core/measure/units.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>

namespace distbench {

using ordered_json = nlohmann::ordered_json;  // as json_model.hpp names it

namespace {

// A figure as nccl-tests writes it: a number, or the string "nan" where it has none.
ordered_json nt_figure(double v) { return std::isfinite(v) ? ordered_json(v) : ordered_json("nan"); }

// nccl-tests' booleans are strings.
ordered_json nt_bool(bool v) { return v ? "true" : "false"; }

// "2026-11-30T03:22:00.123Z" as nccl-tests' "%Y-%m-%d %H:%M:%S" (distbench's times are UTC).
std::string nt_time(const std::string& iso) {
  std::string t = iso.substr(0, 19);
  std::replace(t.begin(), t.end(), 'T', ' ');
  return t;
}

// NCCL_VERSION_CODE of "2.28.9" (22809; 2.8.4 and older: 2804); 0 where NCCL did not run.
int nt_nccl_version(const RunInfo& info) {
  int major = 0, minor = 0, patch = 0;
  if (info.backend != "nccl") return 0;
  if (std::sscanf(info.version("nccl.library").c_str(), "%d.%d.%d", &major, &minor, &patch) != 3) return 0;
  return major <= 2 && minor < 9 ? major * 1000 + minor * 100 + patch : major * 10000 + minor * 100 + patch;
}

std::int64_t nt_integer(const Record& r, std::string_view key) {
  const ParamValue* v = r.param(key);
  if (v == nullptr) return 0;
  if (const auto* i = std::get_if<std::int64_t>(v)) return *i;
  if (const auto* d = std::get_if<double>(v)) return static_cast<std::int64_t>(*d);
  return 0;
}

// The device a rank drove (nccl: its first GPU, as distbench picks it; else -1) and what it is.
ordered_json nt_devices(const RunInfo& info, const ordered_json& config) {
  const ordered_json backend = config.value("backend_options", ordered_json::object());
  const int gpus = backend.value("gpus_per_process", 1);
  const int index = backend.value("device_index", -1);
  const std::int64_t group_size = config.value("group_size", std::int64_t{0});
  const std::string described = info.version("device");
  const auto open = described.find('('), close = described.rfind(')');
  const bool on_gpu = described.starts_with("cuda");
  const std::string name =
      on_gpu && open != std::string::npos && close > open ? described.substr(open + 1, close - open - 1) : described;
  ordered_json devices = ordered_json::array();
  for (const RankInfo& r : info.ranks) {
    devices.push_back({{"rank", r.rank},
                       {"group", group_size > 0 ? r.rank / group_size : 0},
                       {"hostname", r.host},
                       {"device", !on_gpu      ? -1
                                  : index >= 0 ? index
                                               : r.local_rank * gpus},
                       {"device_info", name}});
  }
  return devices;
}

// -f or -i as the sizes show them: a constant ratio is a factor, else the first step in bytes.
void nt_steps(const std::vector<std::int64_t>& sizes, ordered_json& out) {
  if (sizes.size() < 2 || sizes[0] <= 0) {
    out["step_factor"] = 1;
    return;
  }
  const std::int64_t ratio = sizes[1] / sizes[0];
  bool factor = ratio > 1;
  for (std::size_t i = 1; factor && i < sizes.size(); ++i) factor = sizes[i] == sizes[i - 1] * ratio;
  if (factor) {
    out["step_factor"] = ratio;
  } else {
    out["step_bytes"] = sizes[1] - sizes[0];
  }
}

ordered_json nt_config(const RunInfo& info, const ordered_json& c) {
  const ordered_json backend = c.value("backend_options", ordered_json::object());
  const std::vector<std::int64_t> sizes = c.value("sizes", std::vector<std::int64_t>{});
  const bool blocks = c.value("timing", std::string()) == "nccl-tests";
  const std::int64_t samples = c.value("stopping", ordered_json::object()).value("samples", std::int64_t{0});
  ordered_json out = {{"nthreads", 1},
                      {"ngpus", backend.value("gpus_per_process", 1)},
                      {"minimum_bytes", sizes.empty() ? 0 : sizes.front()},
                      {"maximum_bytes", sizes.empty() ? 0 : sizes.back()}};
  nt_steps(sizes, out);
  out["warmup_iters"] = c.value("warmup_iters", 0);
  out["iterations"] = blocks ? c.value("block_iters", samples) : samples;
  out["aggregated_iterations"] = backend.value("agg_iters", 1);
  out["validation"] = c.value("check", true) ? c.value("check_iters", 1) : 0;
  out["graph"] = backend.value("graph_launches", 0);
  out["blocking_collectives"] = nt_bool(backend.value("blocking", false));
  out["per_iter_timing"] = nt_bool(c.value("per_iter_timing", false));
  out["per_iter_skip"] = c.value("per_iter_skip", 0);
  out["parallel_init"] = nt_bool(false);
  out["devices"] = nt_devices(info, c);
  return out;
}

ordered_json nt_per_iter(const PhaseStats& phase, std::size_t skip) {
  std::vector<double> us;
  for (double s : phase.samples) us.push_back(s * kMicro);
  const IterationStats s = iteration_stats(us, skip);
  ordered_json times = ordered_json::array();
  for (double t : us) times.push_back(nt_figure(t));
  return {{"skipped_iterations", s.skipped}, {"min_us", nt_figure(s.min_us)},     {"max_us", nt_figure(s.max_us)},
          {"avg_us", nt_figure(s.avg_us)},   {"p50_us", nt_figure(s.p50_us)},     {"p95_us", nt_figure(s.p95_us)},
          {"p99_us", nt_figure(s.p99_us)},   {"stdev_us", nt_figure(s.stdev_us)}, {"cv_pct", nt_figure(s.cv_pct)},
          {"times_us", std::move(times)}};
}

struct ResultForm {
  bool cpu_time = false;    // -C 1: the time's key is "cpu_time"
  bool per_iter = false;    // -I 1: the *_per_iter statistics
  std::size_t skip = 0;     // -K
  std::string timing = {};  // the first timing method: a --timing list's first records only
};

// A row's record of a placement: the first of the first timing method that was measured; nullptr: none.
const Record* nt_record(std::span<const Record> row, std::string_view placement, const ResultForm& form) {
  for (const Record& r : row) {
    const bool timing = form.timing.empty() || r.param("timing") == nullptr || r.param_text("timing") == form.timing;
    if (r.ok() && timing && r.param_text("placement") == placement && r.phase("time") != nullptr) return &r;
  }
  return nullptr;
}

// One row: its key, then each placement that ran; `busbw` gathers the bus bandwidths shown.
ordered_json nt_result(std::span<const Record> row, const ResultForm& form, std::vector<double>& busbw) {
  const Record& first = row.front();
  const auto type = parse_dtype(first.param_text("dtype"));
  ordered_json out = {{"size", nt_integer(first, "bytes")},
                      {"count", nt_integer(first, "count")},
                      {"type", type ? std::string(nccl_tests_name(*type)) : first.param_text("dtype")},
                      {"redop", first.param_text("op")},
                      {"root", fmt::format("{:6}", nt_integer(first, "root"))}};
  std::int64_t samples = 0;
  for (const auto& [placement, key] : {std::pair{"out-of-place", "out_of_place"}, {"in-place", "in_place"}}) {
    const Record* r = nt_record(row, placement, form);
    if (r == nullptr) continue;
    const double wrong = r->metric("wrong");
    out[key] = {{form.cpu_time ? "cpu_time" : "time", nt_figure(nccl_tests_time_us(*r))},
                {"alg_bw", nt_figure(r->metric("algbw_gbps"))},
                {"bus_bw", nt_figure(r->metric("busbw_gbps"))},
                {"nwrong", std::isnan(wrong) ? ordered_json(nullptr) : ordered_json(wrong)}};
    if (form.per_iter) out[std::string(key) + "_per_iter"] = nt_per_iter(*r->phase("time"), form.skip);
    if (std::isfinite(r->metric("busbw_gbps"))) busbw.push_back(r->metric("busbw_gbps"));
    samples = static_cast<std::int64_t>(r->phase("time")->summary.samples) * r->ops_per_sample;
  }
  out["actual_iterations"] = samples;
  out["experiment_name"] = "";
  return out;
}

ResultForm result_form(const ordered_json& c) {
  ResultForm f;
  f.cpu_time = c.value("cpu_time", false);
  f.per_iter = c.value("per_iter_timing", false);
  f.skip = c.value("per_iter_skip", std::size_t{0});
  f.timing = c.value("timing", std::string());
  return f;
}

// The rows as the reporter was given them (a record each when `rows` is empty); a row with no placement measured, or
// of another benchmark, gives none.
ordered_json nt_results(const RunDescription& d, const std::vector<Record>& records,
                        const std::vector<std::size_t>& rows, std::vector<double>& busbw) {
  const ResultForm form = result_form(d.config);
  ordered_json out = ordered_json::array();
  std::size_t at = 0;
  for (std::size_t i = 0; at < records.size(); ++i) {
    const std::size_t n = std::min(i < rows.size() ? rows[i] : 1, records.size() - at);
    const std::span<const Record> row(records.data() + at, n);
    at += std::max<std::size_t>(n, 1);
    if (n == 0 || row.front().kind != "collective") continue;
    ordered_json r = nt_result(row, form, busbw);
    if (r.contains("out_of_place") || r.contains("in_place")) out.push_back(std::move(r));
  }
  return out;
}

ordered_json nt_env(const RunInfo& info) {
  ordered_json env = ordered_json::array();
  for (const auto& [k, v] : info.environment) env.push_back(k + "=" + v);
  return env;
}

// The verdicts of the footer: wrong elements over every row, the average bus bandwidth against --min-busbw.
void nt_footer(const ordered_json& config, const std::vector<Record>& records, const std::vector<double>& busbw,
               ordered_json& out) {
  double wrong = 0;
  for (const Record& r : records) {
    if (r.ok() && std::isfinite(r.metric("wrong"))) wrong += r.metric("wrong");
  }
  out["out_of_bounds"] = {{"count", static_cast<std::int64_t>(wrong)}, {"okay", nt_bool(wrong == 0)}};
  const double avg = busbw.empty()
                         ? kNotMeasured
                         : std::accumulate(busbw.begin(), busbw.end(), 0.0) / static_cast<double>(busbw.size());
  const double floor = config.value("bandwidth_floor", ordered_json::object()).value("min_busbw_gbps", 0.0);
  out["average_bus_bandwidth"] = {{"bandwidth", nt_figure(avg)},
                                  {"okay", floor > 0 ? nt_bool(avg >= floor) : ordered_json("unchecked")}};
}

}  // namespace

IterationStats iteration_stats(std::span<const double> times_us, std::size_t skip) {
  IterationStats s;
  if (times_us.empty()) return s;
  s.skipped = std::min(skip, times_us.size() - 1);
  std::vector<double> sorted(times_us.begin() + static_cast<std::ptrdiff_t>(s.skipped), times_us.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  const auto nearest_rank = [&sorted, n](std::size_t p) { return sorted[std::min(n - 1, (n * p + 99) / 100 - 1)]; };
  s.min_us = sorted.front();
  s.max_us = sorted.back();
  s.p50_us = sorted[n / 2];
  s.p95_us = nearest_rank(95);
  s.p99_us = nearest_rank(99);
  s.avg_us = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(n);
  double squares = 0;
  for (double t : sorted) squares += (t - s.avg_us) * (t - s.avg_us);
  s.stdev_us = std::sqrt(squares / static_cast<double>(n));
  s.cv_pct = s.avg_us > 0 ? s.stdev_us / s.avg_us * 100.0 : 0.0;
  return s;
}

// The headline time: whichever statistic the collective's table shows (its time_us metric).
double nccl_tests_time_us(const Record& record) { return record.metric("time_us"); }

ordered_json nccl_tests_json(const RunInfo& info, const RunDescription& description, const std::vector<Record>& records,
                             const std::vector<std::size_t>& rows) {
  ordered_json out = {{"version", kNcclTestsJsonVersion},
                      {"start_time", nt_time(info.start_time)},
                      {"args", info.argv},
                      {"env", nt_env(info)},
                      {"nccl_version", nt_nccl_version(info)},
                      {"config", nt_config(info, description.config)}};
  std::vector<double> busbw;
  out["results"] = nt_results(description, records, rows, busbw);
  nt_footer(description.config, records, busbw, out);
  out["errors"] = info.error.empty() ? ordered_json::array() : ordered_json::array({info.error});
  if (!info.end_time.empty()) out["end_time"] = nt_time(info.end_time);
  // distbench's own, after nccl-tests' keys: what ran in place of NCCL, and whether the run completed.
  out["distbench"] = {{"version", info.tool_version},
                      {"backend", info.backend},
                      {"library", info.version(info.backend == "nccl" ? "nccl.library" : "mpi.library")},
                      {"status", info.status}};
  return out;
}

}  // namespace distbench
