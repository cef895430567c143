// What `distbench health` decides: each figure it measured (a Check) with the status it earned, and from them a
// verdict per node. Statuses follow the Nagios convention that monitoring systems read from exit codes.
#pragma once

#include "core/report/record.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace distbench::health {

enum class Status { healthy = 0, degraded = 1, failed = 2, unknown = 3 };  // the exit code of each
std::string_view name(Status s);
std::optional<Status> parse_status(std::string_view text);
// The worse of two statuses: failed > degraded > unknown > healthy (a node we could not judge is not healthy, but
// one that failed says more).
Status worse(Status a, Status b);

// One measured figure and how it was judged.
struct Check {
  std::string phase;    // "rank", "clock", "node", "job", "links", "isolation", "stragglers", "arrival"
  std::string subject;  // what was measured: "rank 3", "nodeB", "nodeA->nodeC", "job"
  std::string host;     // the node a bad status counts against; "" when none can be named (a link before isolation)
  std::string metric;   // the key rules match: "link.bandwidth_gbps"
  double value = kNotMeasured;
  std::string unit;  // "GB/s", "us", "ms", "1"
  Status status = Status::healthy;
  std::string limit;  // the bound it was held to, e.g. ">= 0.71 (0.75 x median)"; "" when none
  std::string why;    // for a status other than healthy: what is wrong, in words
  std::string peer;   // a node's summary of its links: the node at the other end of its slowest ("" otherwise)
  std::string key;    // drift: the setting that differs ("kernel", "env.NCCL_IB_HCA"; "" otherwise)
  // A figure measured while others measured too (every node's allreduce at once, a link in a busy round): its
  // status nominates a suspect, and the suspect's re-test alone (confirmation, isolation) decides. A screening
  // check counts in no verdict.
  bool screening = false;
  // A check that could not be made here (no GPU driver on the node, a reading the GPU does not give): why. It
  // counts in no verdict and is shown as skipped, never as healthy.
  std::string skipped;
};

Check make_check(std::string phase, std::string subject, std::string host, std::string metric, double value,
                 std::string unit);
// A check that could not be made here, with why (Check::skipped): no value, counted in no verdict.
Check make_skipped_check(std::string phase, std::string subject, std::string host, std::string metric, std::string why);

struct NodeVerdict {
  std::string host;
  std::vector<int> ranks;
  Status status = Status::healthy;
  std::string reason;  // the check that decided, in words ("" when healthy)
};

// A check in words: "nodeC->nodeA isolation.bandwidth_gbps = 0.012 GB/s, needs >= 0.25 GB/s (...): why".
std::string describe(const Check& c);

// The verdict of each host (in the order given) from every check that counts against it (screening checks do not):
// the worst status, and as reason the first check (in check order) with that status.
std::vector<NodeVerdict> node_verdicts(const std::vector<std::string>& hosts,
                                       const std::vector<std::vector<int>>& ranks_of_host,
                                       const std::vector<Check>& checks);
// The run's status: the worst of every node verdict and of every check that names no host (the job's allreduce);
// screening checks count only through their re-tests.
Status overall_status(const std::vector<NodeVerdict>& nodes, const std::vector<Check>& checks);

}  // namespace distbench::health
