#include "history/nccl_tests_case.hpp"

#include "core/device/collective.hpp"
#include "core/device/dtype.hpp"
#include "core/error.hpp"
#include "core/measure/sizes.hpp"
#include "core/measure/stats.hpp"
#include "history/case_identity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <map>

namespace distbench::history {
namespace {

std::string nccl_dtype(const std::string& type) {
  const auto t = parse_dtype(type);
  return t ? std::string(name(*t)) : type;
}

double nccl_median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? kNotMeasured : n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// A placement's point: the iterations' median (p50) with its interval when -J kept them, else nccl-tests' mean.
Point nccl_point(const NcclTiming& t, double bytes) {
  Point p;
  p.wrong = t.wrong;
  const double factor = t.algbw_gbps > 0 ? t.busbw_gbps / t.algbw_gbps : kNotMeasured;
  p.time_us = t.p50_us > 0 ? t.p50_us : t.time_us;
  if (t.p50_us > 0 && !t.iteration_us.empty()) {
    std::vector<double> sorted = t.iteration_us;
    std::sort(sorted.begin(), sorted.end());
    const MedianInterval ci = median_interval_sorted(sorted);
    p.time_low_us = ci.low;
    p.time_high_us = ci.high;
    p.samples = sorted.size();
  }
  if (p.time_us > 0 && bytes > 0) {
    p.algbw_gbps = bytes / (p.time_us * 1e-6) / 1e9;
    p.busbw_gbps = std::isfinite(factor) ? p.algbw_gbps * factor : t.busbw_gbps;
  }
  return p;
}

std::vector<Param> nccl_params(const NcclRow& r, const std::string& collective, std::string_view placement) {
  return {{"collective", collective},
          {"dtype", nccl_dtype(r.type)},
          {"op", r.redop},
          {"placement", std::string(placement)},
          {"root", r.root},
          {"bytes", r.bytes},
          {"count", r.count}};
}

std::string nccl_label(const NcclRow& r, const std::string& collective, std::string_view placement) {
  std::string label =
      fmt::format("{} {} {}", collective, format_bytes(static_cast<std::uint64_t>(r.bytes)), nccl_dtype(r.type));
  if (r.redop != "none") label += " " + r.redop;
  if (r.root >= 0) label += fmt::format(" root {}", r.root);
  return label + " " + std::string(placement);
}

// -N cycles repeat every row: one case, its time the median of the repeats' times (each a block's mean), the
// bandwidths at that time, the largest count of wrong elements.
Point nccl_combined(const std::vector<Point>& rep) {
  if (rep.size() == 1) return rep.front();
  std::vector<double> times;
  double wrong = kNotMeasured;
  for (const Point& p : rep) {
    times.push_back(p.time_us);
    if (std::isfinite(p.wrong)) wrong = std::isfinite(wrong) ? std::max(wrong, p.wrong) : p.wrong;
  }
  Point out;
  out.time_us = nccl_median(times);
  const double scale = rep.front().time_us / out.time_us;
  out.algbw_gbps = rep.front().algbw_gbps * scale;
  out.busbw_gbps = rep.front().busbw_gbps * scale;
  out.wrong = wrong;
  return out;
}

}  // namespace

std::string collective_of_program(std::string_view program) {
  std::string base = std::filesystem::path(std::string(program)).filename().string();
  if (const auto at = base.find("_perf"); at != std::string::npos && at > 0) base.resize(at);  // all_reduce_perf_mpi
  std::erase(base, '_');  // all_reduce -> allreduce; reduce_scatter -> reducescatter
  for (Collective c : all_collectives()) {
    std::string n(name(c));
    std::erase(n, '-');
    if (n == base) return std::string(name(c));
  }
  return base;  // hypercube, alltoallv: kept as nccl-tests names them
}

std::vector<CaseFigures> nccl_cases(const std::vector<NcclRow>& rows, const std::string& collective,
                                    const std::string& machine, int world, const std::string& file) {
  const std::string group = group_of({machine, "nccl-tests", "nccl", world, "nccl-tests"});
  std::map<std::string, std::size_t> at;  // key -> index into cases
  std::vector<CaseFigures> cases;
  std::vector<std::vector<Point>> repeats;
  for (const NcclRow& r : rows) {
    check_text_length(r.type, "a type", file);
    check_text_length(r.redop, "an operator", file);
    const std::array<std::pair<const char*, const NcclTiming*>, 2> placements = {
        {{"out-of-place", &r.out_of_place}, {"in-place", &r.in_place}}};
    for (const auto& [placement, timing] : placements) {
      if (!timing->present || !(timing->time_us > 0)) continue;
      std::vector<Param> params = nccl_params(r, collective, placement);
      std::string key = series_key(group, "collective", params);
      const auto [it, added] = at.emplace(key, cases.size());
      if (added) {
        cases.push_back({std::move(key), group, nccl_label(r, collective, placement), std::move(params), {}});
        repeats.emplace_back();
      }
      repeats[it->second].push_back(nccl_point(*timing, static_cast<double>(r.bytes)));
    }
  }
  for (std::size_t i = 0; i < cases.size(); ++i) cases[i].point = nccl_combined(repeats[i]);
  return cases;
}

}  // namespace distbench::history
