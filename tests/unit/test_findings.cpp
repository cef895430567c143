// What the root keeps of a health check and what it shows: the reports sized by the nodes, not the pairs of nodes
// (a 64-node check, judged from synthetic phase results by the real judges), and the console's summary.
#include "benchmarks/health/findings.hpp"
#include "benchmarks/health/health_benchmark.hpp"
#include "benchmarks/health/health_record.hpp"
#include "core/report/console_reporter.hpp"
#include "core/report/json_reporter.hpp"
#include "tests/support/health_nodes.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>

namespace distbench::health {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

PhaseResult phase_of(std::string name, int ranks, const std::function<nlohmann::json(int)>& result) {
  PhaseResult r;
  r.name = std::move(name);
  for (int i = 0; i < ranks; ++i) r.ranks.emplace_back(result(i));
  return r;
}

// A figure near `typical` (within 4 %), the same each run.
double near(double typical, int i) { return typical * (1.0 + 0.04 * std::sin(1.7 * i)); }

// A whole check of n nodes (one rank each) from synthetic phase results, judged by the check's own judges, into
// `findings`. `slow`: a node whose egress runs at a hundredth (-1: none), named by isolation.
void run_check(Findings& findings, const Topology& topo, const HealthPlan& plan, int slow = -1) {
  const int n = static_cast<int>(topo.hosts.size());
  const auto phase_time = [&findings](const char* name) {
    findings.add({make_check("phase", name, "", "phase.seconds", 0.5, "s")});
  };
  Screening copy, node;
  findings.add(
      rank_checks(phase_of("rank", n,
                           [](int r) {
                             return nlohmann::json{{"wrong", 0}, {"memory_bytes", 1 << 20}, {"copy_gbps", near(10, r)}};
                           }),
                  topo, plan, copy));
  phase_time("rank");
  std::vector<double> offsets;
  findings.add(clock_checks(
      phase_of("clock", n,
               [n](int r) {
                 nlohmann::json nodes = nlohmann::json::array();
                 for (int k = 0; r == 0 && k < n; ++k) {
                   nodes.push_back({{"rank", k}, {"steady_offset_ns", 0}, {"wall_offset_ms", 1.0}, {"rtt_us", 20.0}});
                 }
                 return nlohmann::json{{"nodes", nodes}};
               }),
      topo, plan, offsets));
  phase_time("clock");
  const auto allreduce = [](int r) { return nlohmann::json{{"best_s", near(0.01, r)}, {"wrong", 0}, {"bytes", 8e6}}; };
  findings.add(allreduce_checks(phase_of("node", n, allreduce), "node", topo.ranks_of_node, topo.hosts, topo.hosts,
                                plan, &node));
  phase_time("node");
  phase_time("confirm");
  std::vector<int> all(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) all[static_cast<std::size_t>(i)] = i;
  findings.add(allreduce_checks(phase_of("job", n, allreduce), "job", {all}, {"job"}, {""}, plan, nullptr));
  phase_time("job");
  // links: the schedule the check runs, each direction's bandwidth on the sender, latency on the first
  const auto gbps = [slow](int from, int to) { return from == slow ? 0.01 : near(1.0, 7 * from + to); };
  PhaseResult links = phase_of("links", n, [](int) { return nlohmann::json{{"links", nlohmann::json::array()}}; });
  for (const auto& [a, b] : link_schedule(n, plan.links, plan.link_seed).in_order()) {
    (*links.ranks[static_cast<std::size_t>(a)])["links"].push_back({{"from", a}, {"to", b}, {"gbps", gbps(a, b)}});
    (*links.ranks[static_cast<std::size_t>(b)])["links"].push_back({{"from", b}, {"to", a}, {"gbps", gbps(b, a)}});
    (*links.ranks[static_cast<std::size_t>(a)])["links"].push_back({{"from", a}, {"to", b}, {"latency_us", 10.0}});
  }
  const LinkJudgement judged = link_checks(links, topo, plan);
  auto link_records = judged.checks;
  link_records.insert(link_records.end(), judged.node_summaries.begin(), judged.node_summaries.end());
  findings.add(link_records);
  phase_time("links");
  // isolation: each re-test as measured alone (the slow node still slow)
  const IsolationPlan iso = plan_isolation(n, judged.bad, judged.good, judged.score);
  PhaseResult retests = phase_of("isolation", n, [](int) {
    return nlohmann::json{{"links", nlohmann::json::array()}};
  });
  for (const auto& [a, b] : iso.in_order()) {
    (*retests.ranks[static_cast<std::size_t>(a)])["links"].push_back({{"from", a}, {"to", b}, {"gbps", gbps(a, b)}});
    (*retests.ranks[static_cast<std::size_t>(b)])["links"].push_back({{"from", b}, {"to", a}, {"gbps", gbps(b, a)}});
  }
  findings.add(isolation_checks(retests, topo, iso, judged, plan));
  phase_time("isolation");
  findings.add(straggler_checks(phase_of("stragglers", n,
                                         [](int r) {
                                           std::vector<double> arrivals, work;
                                           for (int i = 0; i < 20; ++i) {
                                             arrivals.push_back(1e9 * i + 1e3 * ((r + i) % 7));
                                             work.push_back(1e6);
                                           }
                                           return nlohmann::json{{"arrival_ns", arrivals}, {"work_ns", work}};
                                         }),
                                topo, plan, std::vector<double>(static_cast<std::size_t>(n), 0.0)));
  phase_time("stragglers");
}

RunInfo info_of(const Topology& topo) {
  RunInfo info;
  info.tool_version = "test";
  info.git_sha = "0";
  info.backend = "mpi";
  info.world_size = static_cast<int>(topo.node_of_rank.size());
  for (std::size_t r = 0; r < topo.node_of_rank.size(); ++r)
    info.ranks.push_back({static_cast<int>(r), topo.host_of(static_cast<int>(r))});
  return info;
}

// A check of `n` nodes reported as a run reports it: the JSON report, the console and the Prometheus file.
struct Reported {
  int exit_code = 0;
  nlohmann::json report;
  std::string console;
  std::string prom;
};

class FindingsTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(testing::TempDir()) / ("distbench_findings_" + std::to_string(::getpid()) + "_" +
                                           testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  Reported report(int n, HealthPlan plan, int slow = -1) {
    plan.prom_path = (dir_ / "h.prom").string();
    const Topology topo = one_rank_per_node(n);
    RunInfo info = info_of(topo);
    const RunDescription description = HealthBenchmark(plan).describe(info);
    auto json = std::make_unique<JsonReporter>(std::string(kInMemoryReport));
    JsonReporter* json_view = json.get();
    std::ostringstream console;
    ReporterSet reporters;
    reporters.push(std::move(json));
    reporters.push(std::make_unique<ConsoleReporter>(console));
    reporters.begin(info, description);
    Findings findings(&reporters, plan);
    findings.set_nodes(topo.hosts.size());
    run_check(findings, topo, plan, slow);
    Reported out;
    out.exit_code = findings.conclude(topo, "", "stragglers");
    info.status = "complete";
    reporters.end(info);
    out.report = nlohmann::json::parse(json_view->contents());
    out.console = console.str();
    std::ifstream prom(plan.prom_path);
    std::stringstream text;
    text << prom.rdbuf();
    out.prom = text.str();
    return out;
  }

  fs::path dir_;
};

std::size_t records_with(const nlohmann::json& report, const std::string& metric_prefix) {
  std::size_t n = 0;
  for (const auto& r : report["records"]) {
    if (r["params"]["metric"].get<std::string>().rfind(metric_prefix, 0) == 0) ++n;
  }
  return n;
}

std::size_t lines_with(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) n += line.find(needle) != std::string::npos ? 1 : 0;
  return n;
}

TEST_F(FindingsTest, SixtyFourHealthyNodesWriteNoLinkRecordAndARecordSetThatGrowsWithTheNodes) {
  HealthPlan plan;  // --links auto, --detail auto: the scaled schedule and the summary form above their thresholds
  const Reported r = report(64, plan);
  EXPECT_EQ(r.exit_code, 0) << r.console;
  EXPECT_EQ(r.report["config"]["links"], "scaled");
  EXPECT_EQ(r.report["config"]["detail"], "problems");
  EXPECT_EQ(records_with(r.report, "link."), 0U);
  EXPECT_EQ(records_with(r.report, "node.status"), 64U);
  EXPECT_EQ(records_with(r.report, "node.link.min_gbps"), 64U);
  EXPECT_EQ(records_with(r.report, "node.link.median_gbps"), 64U);
  // per node: memory (2), clock, node allreduce, the two link summaries, stragglers, the verdict: 8; and a dozen more
  EXPECT_LE(r.report["records"].size(), 8U * 64 + 20);
  EXPECT_EQ(lines_with(r.prom, "distbench_health_link_"), 0U);
  EXPECT_EQ(lines_with(r.prom, "distbench_health_node_status{"), 64U);
  EXPECT_LE(lines_with(r.prom, "distbench_"), 10U * 64);
  // every link on request: 2 directions and a latency per pair
  plan.detail = Detail::all;
  const Reported all = report(64, plan);
  const auto pairs = link_schedule(64, LinkMode::scaled, 1).pairs();
  EXPECT_EQ(records_with(all.report, "link.bandwidth_gbps"), 2 * pairs);
  EXPECT_EQ(records_with(all.report, "link.latency_us"), pairs);
  EXPECT_EQ(lines_with(all.prom, "distbench_health_link_bandwidth_bytes_per_second{"), 2 * pairs);
}

TEST_F(FindingsTest, ASlowNodeAmongSixtyFourIsNamedWithItsLinksAndNoOtherLink) {
  const Reported r = report(64, HealthPlan{}, 40);
  EXPECT_EQ(r.exit_code, 1);
  std::set<std::string> bad_links_from;
  for (const auto& rec : r.report["records"]) {
    const auto& p = rec["params"];
    if (p["metric"] == "node.status") {
      EXPECT_EQ(p["status"], p["subject"] == "node040" ? "degraded" : "healthy") << p;
    }
    if (p["metric"] == "link.bandwidth_gbps") {
      EXPECT_EQ(p["status"], "suspect");
      const std::string link = p["subject"].get<std::string>();
      bad_links_from.insert(link.substr(0, link.find("->")));
    }
  }
  EXPECT_EQ(bad_links_from, std::set<std::string>{"node040"});
}

TEST_F(FindingsTest, TheConsoleOf26HealthyNodesIsASummaryInAtMost40Lines) {
  HealthPlan plan;
  plan.links = LinkMode::scaled;  // as the cluster test forces it
  const Reported r = report(26, plan);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_LE(lines_with(r.console, ""), 40U) << r.console;
  EXPECT_THAT(r.console, HasSubstr("# Health: healthy (26 healthy; 26 nodes)"));
  EXPECT_THAT(r.console, HasSubstr("(26 more nodes, healthy)"));
  EXPECT_THAT(r.console, HasSubstr("# links: scaled: ring, distances 2^k, 1 random ring (seed 1)"));
  EXPECT_THAT(r.console, Not(HasSubstr("Link bandwidth (GB/s")));  // no matrix beyond 8 nodes
  EXPECT_THAT(r.console, Not(HasSubstr("memory.copy_gbps")));      // no healthy check as a row
}

TEST_F(FindingsTest, TheConsoleNamesTheBadNodeWithTheCheckAndFigureThatDecidedAndShowsOnlyWhatIsNotHealthy) {
  HealthPlan plan;
  plan.links = LinkMode::scaled;
  const Reported r = report(26, plan, 4);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.console, ::testing::ContainsRegex("node004 +degraded +node004->node[0-9]+ isolation.bandwidth_gbps = "
                                                  "0.01 GB/s"));
  EXPECT_THAT(r.console, HasSubstr("(25 more nodes, healthy)"));
  EXPECT_EQ(lines_with(r.console, "scontrol update nodename="), 1U);
  EXPECT_THAT(r.console, HasSubstr("scontrol update nodename=node004 "));
  // the table's rows (before the summary line): what is not healthy, node004's re-test (its links were suspects:
  // in the report, not on the console)
  std::vector<std::string> lines;
  std::istringstream in(r.console);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  const auto summary =
      std::find_if(lines.begin(), lines.end(), [](const auto& l) { return l.rfind("# Health:", 0) == 0; });
  ASSERT_NE(summary, lines.end());
  std::size_t rows = 0;
  for (auto at = summary; at != lines.begin() && (at - 1)->rfind('#', 0) != 0; --at, ++rows) {
    EXPECT_THAT(*(at - 1), HasSubstr("node004")) << *(at - 1);
    EXPECT_THAT(*(at - 1), HasSubstr("isolation.bandwidth_gbps")) << *(at - 1);
    EXPECT_THAT(*(at - 1), HasSubstr(" degraded ")) << *(at - 1);
  }
  EXPECT_EQ(rows, 1U) << r.console;
  EXPECT_GE(records_with(r.report, "link.bandwidth_gbps"), 10U);  // the suspects are in the report
  EXPECT_LE(lines_with(r.console, ""), 70U) << r.console;
}

TEST_F(FindingsTest, EightNodesOrFewerKeepEveryCheckAndDrawTheMatrix) {
  const Reported r = report(8, HealthPlan{});
  EXPECT_EQ(r.report["config"]["detail"], "all");
  EXPECT_EQ(records_with(r.report, "link.bandwidth_gbps"), 8U * 7);
  EXPECT_THAT(r.console, HasSubstr("Link bandwidth (GB/s"));
  EXPECT_THAT(r.console, ::testing::ContainsRegex("node007 +healthy"));  // every node's verdict
}

}  // namespace
}  // namespace distbench::health
