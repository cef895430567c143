#include "core/report/text.hpp"

#include "core/device/huge_pages.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ctime>

namespace distbench {

std::string fixed_text(double v, int decimals) {
  if (!std::isfinite(v)) return "-";
  if (std::fabs(v) >= kLargestFixed) return fmt::format("{:.3g}", v);
  return fmt::format("{:.{}f}", v, std::clamp(decimals, 0, 6));
}

std::string time_text(double us) {
  if (us < 1e5) return fixed_text(us, 2);
  if (us < 1e6) return fixed_text(us, 1);
  return fixed_text(us, 0);
}

std::string bandwidth_text(double gbps) { return fixed_text(gbps, 2); }

std::string fitted_text(double v, int width) {
  if (!std::isfinite(v)) return "-";
  for (int decimals = 2; decimals >= 0; --decimals) {
    std::string text = fmt::format("{:.{}f}", v, decimals);
    if (static_cast<int>(text.size()) <= width) return text;
  }
  return width >= 7 ? fmt::format("{:.1e}", v) : fmt::format("{:.0e}", v);
}

std::string count_text(double per_op) { return fixed_text(per_op, per_op < 100 ? 2 : 0); }

std::string percent_number(double percent, int decimals, Sign sign) {
  if (!std::isfinite(percent)) return "-";
  const bool plus = sign == Sign::always;
  if (std::fabs(percent) < kLargestFixedPercent) {
    return plus ? fmt::format("{:+.{}f}", percent, std::clamp(decimals, 0, 6))
                : fmt::format("{:.{}f}", percent, std::clamp(decimals, 0, 6));
  }
  return plus ? fmt::format("{:+.1e}", percent) : fmt::format("{:.1e}", percent);
}

std::string percent_text(double percent, int decimals, Sign sign) {
  const std::string number = percent_number(percent, decimals, sign);
  return number == "-" ? number : number + "%";
}

std::string timestamp_text(double unix_seconds) {
  if (!(unix_seconds >= 0 && unix_seconds < 253402300800.0)) return "-";  // 1970 to the end of year 9999
  const auto ms = static_cast<std::int64_t>(std::floor(unix_seconds * 1000.0));
  const auto seconds = static_cast<std::time_t>(ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                     utc.tm_hour, utc.tm_min, utc.tm_sec, ms % 1000);
}

std::string plural(std::size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string mpi_threads_text(const RunInfo& info) {
  const std::string level = info.version("mpi.thread_level");
  return level.empty() ? std::string() : "   MPI threads: " + level;
}

std::string host_memory_text(const RunInfo& info, std::uint64_t largest_buffer) {
  const std::string policy = info.version("memory.huge_pages");
  const std::string mode = info.version("memory.thp_mode");
  if (policy.empty()) return {};
  // At most 100 columns with its "# ": the details are docs/methods.md's ("Huge pages").
  if (!huge_page_policies_differ(mode, largest_buffer)) {
    return fmt::format("memory: huge pages {} (--huge-pages), THP mode {}", policy, mode);
  }
  return fmt::format("memory: huge pages {}, THP mode {}: {} (--huge-pages {} to measure that)", policy, mode,
                     policy == "off" ? "small pages as IMB's" : "2 MiB-aligned, advised",
                     policy == "off" ? "on" : "off");
}

std::string ranks_per_host_text(const std::vector<RankInfo>& ranks) {
  if (ranks.empty()) return "unknown";
  std::vector<std::pair<std::string, int>> hosts;  // in order of first appearance
  for (const RankInfo& r : ranks) {
    auto it = std::find_if(hosts.begin(), hosts.end(), [&](const auto& h) { return h.first == r.host; });
    if (it == hosts.end()) {
      hosts.emplace_back(r.host, 1);
    } else {
      ++it->second;
    }
  }
  const bool uniform =
      std::all_of(hosts.begin(), hosts.end(), [&](const auto& h) { return h.second == hosts.front().second; });
  if (uniform) return fmt::format("{} ({})", hosts.front().second, plural(hosts.size(), "host", "hosts"));
  std::string text;
  for (const auto& [host, n] : hosts) text += fmt::format("{}{} {}", text.empty() ? "" : ", ", host, n);
  return text;
}

std::string samples_text(const StoppingRule& rule) {
  if (!rule.noise_mode()) {
    if (rule.max_time_s <= 0) return fmt::format("{} per case", rule.samples);
    return fmt::format("{} per case, fewer past {:g} s of sampling (at least {})", rule.samples, rule.max_time_s,
                       std::min(rule.min_samples, rule.samples));
  }
  return fmt::format("until the median is within +/-{:g}% (95% CI; at least {}, at most {:g} s per case)",
                     rule.max_noise, rule.min_samples, rule.max_time_s);
}

}  // namespace distbench
