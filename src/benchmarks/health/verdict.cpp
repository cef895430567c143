#include "benchmarks/health/verdict.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <utility>

namespace distbench::health {
namespace {

constexpr std::array<std::string_view, 4> kNames{"healthy", "degraded", "failed", "unknown"};

int severity(Status s) {
  switch (s) {
    case Status::healthy: return 0;
    case Status::unknown: return 1;
    case Status::degraded: return 2;
    case Status::failed: return 3;
  }
  return 3;
}

}  // namespace

std::string describe(const Check& c) {
  std::string text = fmt::format("{} {}", c.subject, c.metric);
  if (!std::isnan(c.value)) {
    text += fmt::format(" = {:.4g}", c.value);
    if (!c.unit.empty() && c.unit != "1") text += fmt::format(" {}", c.unit);
  }
  if (!c.limit.empty()) text += fmt::format(", needs {}", c.limit);
  if (!c.why.empty()) text += fmt::format(": {}", c.why);
  return text;
}

std::string_view name(Status s) { return kNames[static_cast<std::size_t>(s)]; }

std::optional<Status> parse_status(std::string_view text) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == text) return static_cast<Status>(i);
  }
  return std::nullopt;
}

Check make_check(std::string phase, std::string subject, std::string host, std::string metric, double value,
                 std::string unit) {
  Check c;
  c.phase = std::move(phase);
  c.subject = std::move(subject);
  c.host = std::move(host);
  c.metric = std::move(metric);
  c.value = value;
  c.unit = std::move(unit);
  return c;
}

Check make_skipped_check(std::string phase, std::string subject, std::string host, std::string metric,
                         std::string why) {
  Check c = make_check(std::move(phase), std::move(subject), std::move(host), std::move(metric), kNotMeasured, "");
  c.skipped = std::move(why);
  return c;
}

Status worse(Status a, Status b) { return severity(b) > severity(a) ? b : a; }

std::vector<NodeVerdict> node_verdicts(const std::vector<std::string>& hosts,
                                       const std::vector<std::vector<int>>& ranks_of_host,
                                       const std::vector<Check>& checks) {
  std::vector<NodeVerdict> out;
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    NodeVerdict v{hosts[i], i < ranks_of_host.size() ? ranks_of_host[i] : std::vector<int>{}, Status::healthy, ""};
    for (const Check& c : checks) {
      if (c.host != hosts[i] || c.status == Status::healthy || c.screening) continue;
      if (worse(v.status, c.status) != v.status) {
        v.status = c.status;
        v.reason = describe(c);
      }
    }
    out.push_back(std::move(v));
  }
  return out;
}

Status overall_status(const std::vector<NodeVerdict>& nodes, const std::vector<Check>& checks) {
  Status s = Status::healthy;
  for (const NodeVerdict& v : nodes) s = worse(s, v.status);
  for (const Check& c : checks) {
    if (c.host.empty() && !c.screening) s = worse(s, c.status);
  }
  return s;
}

}  // namespace distbench::health
