// What the reports keep of a health check when they do not keep every check (--detail problems).
#include "benchmarks/health/kept_checks.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace distbench::health {
namespace {

std::vector<std::string> subjects(const std::vector<Check>& checks) {
  std::vector<std::string> out;
  for (const Check& c : checks) out.push_back(c.phase + " " + c.subject + " " + c.metric);
  return out;
}

TEST(KeptChecks, HealthyLinksGoAndLinksThatAreNotHealthyStay) {
  Check fine = make_check("links", "a->b", "", "link.bandwidth_gbps", 1.0, "GB/s");
  fine.screening = true;
  Check slow = make_check("links", "c->a", "", "link.bandwidth_gbps", 0.01, "GB/s");
  slow.screening = true;
  slow.status = Status::degraded;
  const Check latency = make_check("links", "a<->b", "", "link.latency_us", 10, "us");
  const Check summary = make_check("links", "a", "a", "node.link.min_gbps", 0.01, "GB/s");
  const Check retest = make_check("isolation", "c->b", "c", "isolation.bandwidth_gbps", 0.9, "GB/s");
  EXPECT_EQ(subjects(kept_checks({fine, slow, latency, summary, retest})),
            (std::vector<std::string>{"links c->a link.bandwidth_gbps", "links a node.link.min_gbps",
                                      "isolation c->b isolation.bandwidth_gbps"}));
}

TEST(KeptChecks, OfAHealthyNodesRanksTheWorstStandsForThemAndEveryRankThatIsNotHealthyStays) {
  std::vector<Check> checks;
  const double copy[] = {9.5, 8.0, 9.9, 9.0};
  for (int r = 0; r < 4; ++r) {
    checks.push_back(make_check("rank", "rank " + std::to_string(r), "a", "memory.copy_gbps", copy[r], "GB/s"));
    checks.push_back(
        make_check("stragglers", "rank " + std::to_string(r), "a", "straggler.lateness_us", 10.0 * r, "us"));
  }
  checks.push_back(make_check("rank", "rank 4", "b", "memory.copy_gbps", 9.0, "GB/s"));
  Check wrong = make_check("rank", "rank 5", "b", "memory.wrong", 3, "1");
  wrong.status = Status::failed;
  checks.push_back(wrong);
  checks.push_back(make_check("clock", "a", "a", "clock.skew_ms", 1, "ms"));
  EXPECT_EQ(
      subjects(kept_checks(checks)),
      (std::vector<std::string>{"rank rank 1 memory.copy_gbps",             // a's lowest bandwidth
                                "stragglers rank 3 straggler.lateness_us",  // a's latest rank
                                "rank rank 4 memory.copy_gbps", "rank rank 5 memory.wrong", "clock a clock.skew_ms"}));
}

}  // namespace
}  // namespace distbench::health
