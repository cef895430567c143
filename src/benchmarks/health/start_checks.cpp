#include "benchmarks/health/start_checks.hpp"

#include <fmt/format.h>

#include <cmath>

namespace distbench::health {

std::vector<Check> start_checks(const std::vector<StartupRank>& ranks, const Topology& topo, double late_start_s) {
  std::vector<Check> out;
  for (std::size_t n = 0; n < topo.hosts.size(); ++n) {
    double late = kNotMeasured;
    int latest = -1;
    for (int r : topo.ranks_of_node[n]) {
      const auto i = static_cast<std::size_t>(r);
      if (i >= ranks.size() || std::isnan(ranks[i].late_s)) continue;
      if (latest < 0 || ranks[i].late_s > late) {
        late = ranks[i].late_s;
        latest = r;
      }
    }
    if (latest < 0) continue;
    Check c = make_check("start", topo.hosts[n], topo.hosts[n], "start.late_s", late, "s");
    c.limit = fmt::format("<= {:g} s", late_start_s);
    if (late > late_start_s) {
      c.status = Status::degraded;
      c.why = fmt::format(
          "its rank {} began {:.2f} s after the first rank, and the job waited for it: a loaded or "
          "swapping node, a slow disk or shared file system, or a slow launcher",
          latest, late);
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace distbench::health
