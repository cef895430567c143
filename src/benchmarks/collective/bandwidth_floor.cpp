#include "benchmarks/collective/bandwidth_floor.hpp"

#include "benchmarks/collective/collective_record.hpp"
#include "core/measure/sizes.hpp"

#include <fmt/format.h>

#include <cmath>

namespace distbench::collective {
namespace {

struct Figure {
  double value = kNotMeasured;
  std::string what;  // "avg busbw", "lowest busbw at >= 1 MiB (4 MiB)"
};

Figure figure(const std::vector<Record>& records, const std::string& metric, const std::string& short_name,
              std::uint64_t at_bytes) {
  double sum = 0, lowest = kNotMeasured;
  std::size_t n = 0;
  std::string lowest_size;
  for (const Record& r : records) {
    if (!r.ok()) continue;
    const double v = r.metric(metric);
    if (!std::isfinite(v)) continue;
    if (at_bytes == 0) {
      sum += v;
      ++n;
      continue;
    }
    const ParamValue* bytes = r.param("bytes");
    const auto* b = bytes == nullptr ? nullptr : std::get_if<std::int64_t>(bytes);
    if (b == nullptr || static_cast<std::uint64_t>(*b) < at_bytes) continue;
    if (!std::isfinite(lowest) || v < lowest) {
      lowest = v;
      lowest_size = format_bytes(static_cast<std::uint64_t>(*b));
    }
  }
  if (at_bytes == 0) return {n > 0 ? sum / static_cast<double>(n) : kNotMeasured, "avg " + short_name};
  return {lowest, fmt::format("lowest {} at sizes >= {}{}", short_name, format_bytes(at_bytes),
                              lowest_size.empty() ? "" : fmt::format(" ({})", lowest_size))};
}

void judge_one(const std::vector<Record>& records, double min, const std::string& metric, const std::string& short_name,
               const std::string& flag, std::uint64_t at_bytes, FloorVerdict& out) {
  if (min <= 0) return;
  const Figure f = figure(records, metric, short_name, at_bytes);
  std::string clause;
  if (!std::isfinite(f.value)) {
    out.ok = false;
    clause = fmt::format("{}: nothing measured, floor {:.2f} GB/s ({})", f.what, min, flag);
  } else {
    const bool ok = f.value >= min;
    out.ok = out.ok && ok;
    clause = fmt::format("{} {:.2f} GB/s {} {:.2f} GB/s ({})", f.what, f.value, ok ? ">=" : "<", min, flag);
  }
  out.text += (out.text.empty() ? "" : "; ") + clause;
}

}  // namespace

FloorVerdict judge_floor(const std::vector<Record>& records, const BandwidthFloor& floor) {
  FloorVerdict out;
  judge_one(records, floor.min_busbw, metrics::busbw.key, metrics::busbw.title, "--min-busbw", floor.at_bytes, out);
  judge_one(records, floor.min_algbw, metrics::algbw.key, metrics::algbw.title, "--min-algbw", floor.at_bytes, out);
  return out;
}

}  // namespace distbench::collective
