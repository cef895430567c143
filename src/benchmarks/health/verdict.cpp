#include "benchmarks/health/verdict.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>

namespace distbench::health {
namespace {

constexpr std::array<std::string_view, 4> kNames{"healthy", "degraded", "failed", "unknown"};

int severity(Status s) {
  switch (s) {
    case Status::healthy:
      return 0;
    case Status::unknown:
      return 1;
    case Status::degraded:
      return 2;
    case Status::failed:
      return 3;
  }
  return 3;
}

}  // namespace

std::string describe(const Check& c) {
  std::string text = fmt::format("{} {}", c.subject, c.metric);
  if (!std::isnan(c.value)) {
    text += fmt::format(" = {:.4g}", c.value);
    if (c.unit != "1") text += fmt::format(" {}", c.unit);
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

Record check_record(const Check& c) {
  Record r;
  r.kind = "health";
  r.set("phase", c.phase)
      .set("subject", c.subject)
      .set("host", c.host)
      .set("metric", c.metric)
      .set("unit", c.unit)
      .set("limit", c.limit)
      .set("status", c.screening && c.status != Status::healthy ? std::string("suspect") : std::string(name(c.status)))
      .set("why", c.why)
      .set("role", c.screening ? "screening" : "verdict");
  r.set_metric("value", c.value);
  return r;
}

Check check_of(const Record& r) {
  Check c;
  c.phase = r.param_text("phase");
  c.subject = r.param_text("subject");
  c.host = r.param_text("host");
  c.metric = r.param_text("metric");
  c.unit = r.param_text("unit");
  c.limit = r.param_text("limit");
  const std::string status = r.param_text("status");
  c.status = status == "suspect" ? Status::degraded : parse_status(status).value_or(Status::unknown);
  c.why = r.param_text("why");
  c.value = r.metric("value");
  c.screening = r.param_text("role") == "screening";
  return c;
}

}  // namespace distbench::health
