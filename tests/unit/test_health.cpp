// distbench health's pure parts: the round-robin schedule, the relative and absolute judgement, isolation, node
// verdicts, the rules file and the Prometheus text.
#include "benchmarks/health/evaluate.hpp"
#include "benchmarks/health/health_record.hpp"
#include "benchmarks/health/health_text.hpp"
#include "benchmarks/health/judge.hpp"
#include "benchmarks/health/prometheus.hpp"
#include "benchmarks/health/schedule.hpp"
#include "benchmarks/health/verdict.hpp"
#include "core/error.hpp"
#include "tests/support/layout_check.hpp"
#include "tests/support/shell_output.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace distbench::health {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(RoundRobin, EveryPairOnceInDisjointRounds) {
  for (int n = 1; n <= 9; ++n) {
    const auto rounds = round_robin(n);
    std::set<NodePair> seen;
    for (const auto& round : rounds) {
      std::set<int> busy;
      for (const auto& [a, b] : round) {
        EXPECT_LT(a, b);
        EXPECT_TRUE(busy.insert(a).second) << "node " << a << " twice in one round, n=" << n;
        EXPECT_TRUE(busy.insert(b).second) << "node " << b << " twice in one round, n=" << n;
        EXPECT_TRUE(seen.insert({a, b}).second) << "pair measured twice, n=" << n;
      }
    }
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(n * (n - 1) / 2)) << n;
    if (n >= 2) {
      EXPECT_EQ(rounds.size(), static_cast<std::size_t>(n % 2 == 0 ? n - 1 : n)) << n;
    }
  }
}

std::vector<Check> figures(const std::vector<double>& values, const std::string& metric = "link.bandwidth_gbps") {
  std::vector<Check> out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    Check c;
    c.subject = fmt::format("s{}", i);
    c.metric = metric;
    c.value = values[i];
    c.unit = "GB/s";
    out.push_back(c);
  }
  return out;
}

std::vector<Check*> pointers(std::vector<Check>& checks) {
  std::vector<Check*> out;
  for (auto& c : checks) out.push_back(&c);
  return out;
}

TEST(Judge, FlagsTheSlowOutlierOnly) {
  auto checks = figures({1.02, 0.98, 1.00, 0.012, 1.01, 0.013});
  const auto bound = judge_relative(pointers(checks), Better::higher, RelativeRule{});
  ASSERT_TRUE(bound);
  EXPECT_NEAR(bound->median, 0.99, 0.02);
  for (const Check& c : checks) {
    EXPECT_EQ(c.status, c.value < 0.5 ? Status::degraded : Status::healthy) << c.value;
    EXPECT_THAT(c.limit, HasSubstr("median"));
  }
}

TEST(Judge, ATightGroupDoesNotFlagAFewPercent) {
  // MAD is tiny, so 4 MADs alone would flag 0.93; the 25% tolerance keeps it healthy.
  auto checks = figures({1.000, 1.001, 0.999, 1.000, 0.93});
  judge_relative(pointers(checks), Better::higher, RelativeRule{});
  for (const Check& c : checks) EXPECT_EQ(c.status, Status::healthy) << c.value;
}

TEST(Judge, AWideGroupDoesNotFlagItsOwnTail) {
  auto checks = figures({1.0, 0.5, 0.7, 1.3, 0.6, 0.9, 1.1});
  judge_relative(pointers(checks), Better::higher, RelativeRule{});
  for (const Check& c : checks) EXPECT_EQ(c.status, Status::healthy) << c.value;
}

TEST(Judge, LowerIsBetterFlagsHighLatency) {
  auto checks = figures({20, 21, 19, 400}, "link.latency_us");
  judge_relative(pointers(checks), Better::lower, RelativeRule{1.0, 4.0});
  EXPECT_EQ(checks[3].status, Status::degraded);
  EXPECT_EQ(checks[0].status, Status::healthy);
}

TEST(Judge, TooFewFiguresAreNotCompared) {
  auto checks = figures({1.0, 0.01});
  EXPECT_FALSE(judge_relative(pointers(checks), Better::higher, RelativeRule{}));
  for (const Check& c : checks) EXPECT_EQ(c.status, Status::healthy);
}

TEST(Rules, GlobsMatch) {
  EXPECT_TRUE(glob_match("link.*", "link.bandwidth_gbps"));
  EXPECT_TRUE(glob_match("*.busbw_gbps", "node.allreduce.busbw_gbps"));
  EXPECT_TRUE(glob_match("*", "anything"));
  EXPECT_TRUE(glob_match("a*b*c", "aXbYc"));
  EXPECT_FALSE(glob_match("link.*", "memory.copy_gbps"));
  EXPECT_FALSE(glob_match("a*b", "aXbY"));
}

TEST(Rules, ParseAndApply) {
  const Rules rules = parse_rules(R"({"relative": false, "rules": [
      {"metric": "link.bandwidth_gbps", "compare": ">=", "threshold": 10, "severity": "degraded"},
      {"metric": "*.wrong", "compare": "<=", "threshold": 0, "severity": "failed"}]})",
                                  "r.json");
  EXPECT_FALSE(rules.relative);
  ASSERT_EQ(rules.rules.size(), 2U);
  auto checks = figures({12, 8});
  for (Check& c : checks) apply_rules(c, rules.rules);
  EXPECT_EQ(checks[0].status, Status::healthy);
  EXPECT_EQ(checks[1].status, Status::degraded);
  EXPECT_THAT(checks[1].limit, HasSubstr(">= 10"));
  auto wrong = figures({3}, "job.allreduce.wrong");
  apply_rules(wrong[0], rules.rules);
  EXPECT_EQ(wrong[0].status, Status::failed);
}

TEST(Rules, BadFilesSayWhatIsWrong) {
  auto message = [](const char* text) {
    try {
      parse_rules(text, "bad.json");
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::usage);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(message("{"), HasSubstr("not valid JSON"));
  EXPECT_THAT(message("[]"), HasSubstr("expected an object"));
  EXPECT_THAT(message(R"({"rulez": []})"), HasSubstr("unknown key \"rulez\""));
  EXPECT_THAT(message(R"({"rules": [{"metric": "x", "compare": "=~", "threshold": 1}]})"), HasSubstr("\"compare\""));
  EXPECT_THAT(message(R"({"rules": [{"metric": "x", "compare": ">=", "threshold": "1"}]})"), HasSubstr("wrong type"));
  EXPECT_THAT(message(R"({"rules": [{"metric": "x", "compare": ">="}]})"), HasSubstr("\"threshold\""));
  EXPECT_THAT(message(R"({"rules": [{"metric": "x", "compare": ">=", "threshold": 1, "severity": "bad"}]})"),
              HasSubstr("severity"));
  EXPECT_THAT(message(R"({"rules": [{"compare": ">=", "threshold": 1}]})"), HasSubstr("\"metric\""));
  EXPECT_THAT(message(R"({"rules": [{"metric": "x", "compare": ">=", "threshold": 1, "sev": "failed"}]})"),
              HasSubstr("unknown key \"sev\""));
  EXPECT_THAT(message("{"), HasSubstr("bad.json"));
  // A misspelt metric would disable its rule in silence; a number beyond a double is said in words.
  EXPECT_THAT(message(R"({"rules": [{"metric": "memory.copy_gpbs", "compare": ">=", "threshold": 1}]})"),
              AllOf(HasSubstr("rule 1"), HasSubstr("\"memory.copy_gpbs\" matches no metric"), HasSubstr("memory.copy_gbps")));
  EXPECT_THAT(message(R"({"rules": [{"metric": "memory.copy_gbps", "compare": ">=", "threshold": 1e400}]})"),
              AllOf(HasSubstr("the number 1e400 is beyond the range of a double"), Not(HasSubstr("json.exception"))));
}

TEST(Rules, EveryMetricOfTheCheckCanBeRuled) {
  for (const std::string& metric : health_metrics()) {
    const std::string text =
        R"({"rules": [{"metric": ")" + metric + R"(", "compare": ">=", "threshold": 0}]})";
    EXPECT_NO_THROW(parse_rules(text, "r.json")) << metric;
  }
  EXPECT_NO_THROW(parse_rules(R"({"rules": [{"metric": "*.wrong", "compare": "<=", "threshold": 0}]})", "r.json"));
}

TEST(Isolation, TheNodeInEverySlowPairIsRetestedAgainstAGoodOne) {
  // nodeC (2) is slow with A and B; A-B is fine: A and B are the references, C is re-tested against the better.
  const auto plan = plan_isolation(3, {{0, 2}, {1, 2}}, {{0, 1}}, {1.0, 1.2, 0.3});
  EXPECT_EQ(plan.references, (std::vector<int>{0, 1}));
  ASSERT_EQ(plan.retests.size(), 1U);
  EXPECT_EQ(plan.retests[0], (NodePair{2, 1}));
  EXPECT_TRUE(plan.cannot_isolate.empty());
}

TEST(Isolation, NodesOutsideBadPairsAreReferences) {
  const auto plan = plan_isolation(5, {{1, 3}}, {{0, 1}, {0, 2}}, {1, 1, 1, 1, 1});
  EXPECT_EQ(plan.references, (std::vector<int>{0, 2, 4}));
  EXPECT_EQ(plan.retests.size(), 2U);  // both ends of the one bad pair, each against a reference
}

TEST(Isolation, WhenEveryPairLooksSlowTheFastestNodeIsTheReference) {
  const auto plan = plan_isolation(3, {{0, 1}, {0, 2}, {1, 2}}, {}, {1.0, 1.5, 0.02});
  EXPECT_EQ(plan.references, (std::vector<int>{1}));
  EXPECT_EQ(plan.retests, (std::vector<NodePair>{{0, 1}, {2, 1}}));
  EXPECT_TRUE(plan.cannot_isolate.empty());
}

TEST(Isolation, WhenEveryPairLooksSlowTheNodeInFewestSlowPairsIsTheReference) {
  auto plan = plan_isolation(3, {{0, 1}, {0, 2}, {1, 2}}, {}, {1.0, 1.5, 0.02});
  EXPECT_EQ(plan.references, (std::vector<int>{1}));  // a tie in slow pairs: the best score
  EXPECT_EQ(plan.retests, (std::vector<NodePair>{{0, 1}, {2, 1}}));
  EXPECT_TRUE(plan.cannot_isolate.empty());
  // nodeC (2) in two slow pairs, A and B in one each (with C): a noisy A-B link is not the whole story
  plan = plan_isolation(4, {{0, 2}, {1, 2}, {2, 3}, {0, 1}, {0, 3}, {1, 3}}, {}, {1.0, 1.0, 2.0, 1.0});
  EXPECT_EQ(plan.references, (std::vector<int>{2}));
}

TEST(Isolation, TwoNodesCannotBeIsolated) {
  const auto plan = plan_isolation(2, {{0, 1}}, {}, {0.1, 0.1});
  EXPECT_TRUE(plan.retests.empty());
  EXPECT_EQ(plan.cannot_isolate, (std::vector<int>{0, 1}));
}

TEST(Isolation, NothingToDoWhenAllIsWell) {
  const auto plan = plan_isolation(4, {}, {{0, 1}, {2, 3}}, {1, 1, 1, 1});
  EXPECT_TRUE(plan.retests.empty());
  EXPECT_TRUE(plan.references.empty());
}

TEST(Verdict, WorstCheckDecidesAndNamesItself) {
  std::vector<Check> checks = figures({1, 2, 3});
  checks[0].host = "nodeA";
  checks[1].host = "nodeB";
  checks[1].status = Status::degraded;
  checks[1].why = "slow";
  checks[2].host = "nodeB";
  checks[2].status = Status::failed;
  checks[2].why = "wrong";
  const auto v = node_verdicts({"nodeA", "nodeB", "nodeC"}, {{0}, {1}, {2}}, checks);
  ASSERT_EQ(v.size(), 3U);
  EXPECT_EQ(v[0].status, Status::healthy);
  EXPECT_EQ(v[1].status, Status::failed);
  EXPECT_THAT(v[1].reason, HasSubstr("wrong"));
  EXPECT_EQ(v[2].status, Status::healthy);
  EXPECT_EQ(overall_status(v, checks), Status::failed);
  EXPECT_EQ(worse(Status::unknown, Status::degraded), Status::degraded);
  EXPECT_EQ(worse(Status::healthy, Status::unknown), Status::unknown);
}

TEST(Verdict, ScreeningChecksCountOnlyThroughTheirRetests) {
  std::vector<Check> checks = figures({0.01, 0.02});
  checks[0].screening = true;  // a slow link, before isolation
  checks[0].status = Status::degraded;
  checks[1].screening = true;  // a node's allreduce measured alongside the others
  checks[1].host = "nodeA";
  checks[1].status = Status::degraded;
  auto v = node_verdicts({"nodeA"}, {{0}}, checks);
  EXPECT_EQ(v[0].status, Status::healthy);
  EXPECT_EQ(overall_status(v, checks), Status::healthy);
  checks[0].screening = false;
  checks[1].screening = false;
  v = node_verdicts({"nodeA"}, {{0}}, checks);
  EXPECT_EQ(v[0].status, Status::degraded);
  EXPECT_EQ(overall_status(v, checks), Status::degraded);
}

TEST(Judge, NoisyGroupsStillFlagSuspectsBelowHalfTheMedian) {
  // Healthy figures spread over 4x (a shared VM): the verdict bound widens with the spread, the suspect bound stops
  // at half the median.
  auto checks = figures({0.6, 3.4, 1.4, 2.5, 0.9, 1.1});
  for (Check& c : checks) c.screening = true;
  const auto bound = judge_relative(pointers(checks), Better::higher, RelativeRule{});
  ASSERT_TRUE(bound);
  EXPECT_LT(bound->factor, 0.5);
  EXPECT_NEAR(bound->suspect_bound, 0.5 * std::sqrt(1.1 * 1.4), 1e-9);  // half the (geometric) median of all six
  EXPECT_EQ(checks[0].status, Status::degraded);                        // 0.6: a suspect, re-tested alone
  EXPECT_EQ(checks[2].status, Status::healthy);
  EXPECT_EQ(check_record(checks[0]).param_text("status"), "suspect");
  EXPECT_FALSE(bound->breaks(0.6));  // but not a verdict
  EXPECT_TRUE(bound->breaks(0.01));
}

TEST(Judge, OutliersDoNotWidenTheirOwnVerdictBound) {
  // What the throttled cluster measured: four noisy healthy links (0.7 .. 5.7 GB/s) and nodeC's two at 12 MB/s. On
  // all six, 4 MADs of the logarithms reach down to 0.0007 x the median and would let the slow links pass; the
  // verdict bound comes from the four that are not suspects.
  auto checks = figures({0.7, 5.687, 2.218, 3.144, 0.01196, 0.01196});
  for (Check& c : checks) c.screening = true;
  const auto bound = judge_relative(pointers(checks), Better::higher, RelativeRule{});
  ASSERT_TRUE(bound);
  EXPECT_EQ(checks[4].status, Status::degraded);
  EXPECT_EQ(checks[5].status, Status::degraded);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(checks[static_cast<std::size_t>(i)].status, Status::healthy) << i;
  EXPECT_TRUE(bound->breaks(0.012));  // the re-test alone still fails ...
  EXPECT_FALSE(bound->breaks(0.7));   // ... the slowest healthy link does not
  EXPECT_GT(bound->bound, 0.1);
}

TEST(Verdict, RecordsRoundTrip) {
  Check c = figures({0.5})[0];
  c.phase = "links";
  c.host = "nodeC";
  c.status = Status::degraded;
  c.limit = ">= 0.7";
  c.why = "slow";
  const Check back = check_of(check_record(c));
  EXPECT_EQ(back.phase, c.phase);
  EXPECT_EQ(back.subject, c.subject);
  EXPECT_EQ(back.host, c.host);
  EXPECT_EQ(back.metric, c.metric);
  EXPECT_EQ(back.value, c.value);
  EXPECT_EQ(back.status, c.status);
  EXPECT_EQ(back.limit, c.limit);
  EXPECT_EQ(back.why, c.why);
  EXPECT_FALSE(back.screening);
  c.screening = true;
  EXPECT_TRUE(check_of(check_record(c)).screening);
}

std::vector<Record> sample_run() {
  std::vector<Record> out;
  auto add = [&out](std::string phase, std::string subject, std::string host, std::string metric, double value,
                    Status status, std::string why = "") {
    Check c = make_check(std::move(phase), std::move(subject), std::move(host), std::move(metric), value, "1");
    c.status = status;
    c.why = std::move(why);
    out.push_back(check_record(c));
  };
  add("links", "nodeA->nodeB", "", "link.bandwidth_gbps", 1.1, Status::healthy);
  add("links", "nodeB->nodeA", "", "link.bandwidth_gbps", 1.2, Status::healthy);
  add("links", "nodeC->nodeA", "", "link.bandwidth_gbps", 0.012, Status::degraded);
  add("links", "nodeA<->nodeC", "", "link.latency_us", 40, Status::healthy);
  add("phase", "links", "", "phase.seconds", 2.5, Status::healthy);
  add("verdict", "nodeA", "nodeA", "node.status", 0, Status::healthy);
  add("verdict", "nodeC", "nodeC", "node.status", 1, Status::degraded, "nodeC->nodeA \"slow\"");
  add("verdict", "cluster", "", "cluster.status", 1, Status::degraded);
  return out;
}

// The one metric is declared once (metrics::value): the layout lists it, the table shows it and the builder sets it.
TEST(HealthRecord, TheTableShowsTheDeclaredMetricAndTheBuilderSetsIt) {
  EXPECT_EQ(test_support::shown_metrics(health_record_layout(), health_table()), std::vector<std::string>{"value"});
  Check c;
  c.value = 1.5;
  const Record r = check_record(c);
  EXPECT_EQ(test_support::metric_keys(r), test_support::metric_keys(health_record_layout()));
  EXPECT_EQ(check_of(r).value, 1.5);
}

TEST(HealthText, VerdictsMatrixAndSlurmLines) {
  const auto sections = health_sections(sample_run(), true);
  std::string all;
  for (const auto& s : sections) {
    all += "## " + s.title + "\n";
    for (const auto& l : s.lines) all += l + "\n";
  }
  EXPECT_THAT(all, HasSubstr("Verdict per node"));
  EXPECT_THAT(all, ::testing::ContainsRegex("nodeC +degraded"));
  EXPECT_THAT(all, ::testing::ContainsRegex("cluster +degraded"));
  EXPECT_THAT(all, HasSubstr("0.012*"));  // the slow cell is marked
  EXPECT_THAT(all, HasSubstr("scontrol update nodename=nodeC state=drain reason='distbench health: degraded: "
                             "nodeC->nodeA \"slow\"'"));
  EXPECT_THAT(all, ::testing::Not(HasSubstr("nodename=nodeA")));
  const auto summary = health_summary(sample_run());
  ASSERT_EQ(summary.size(), 1U);
  EXPECT_EQ(summary[0].value, 1);
  EXPECT_THAT(summary[0].text, HasSubstr("degraded (1 degraded, 1 healthy; 2 nodes)"));
}

// The words /bin/sh makes of `line`, one per line.
std::string shell_words(const std::string& line) { return test_support::shell_output("printf '%s\\n' " + line); }

TEST(HealthText, ADrainLineIsOneCommandWhateverTheHostIsNamed) {
  std::vector<Record> records;
  Check c = make_check("verdict", "x;touch PWN $(id)", "x;touch PWN $(id)", "node.status", 2, "1");
  c.status = Status::failed;
  c.why = "rank 1 (x;touch PWN $(id)) did not arrive; it's `gone`\nscontrol update nodename=good state=drain";
  records.push_back(check_record(c));
  std::string drain;
  for (const auto& section : health_sections(records, true)) {
    for (const auto& line : section.lines) {
      if (line.rfind("scontrol ", 0) == 0) drain += line;
    }
  }
  ASSERT_EQ(drain.rfind("scontrol ", 0), 0U) << drain;
  EXPECT_EQ(drain.find('\n'), std::string::npos) << drain;  // one line: nothing forged after it
  // What a shell given the line runs: scontrol with exactly these four arguments.
  EXPECT_EQ(shell_words(drain.substr(std::string("scontrol ").size())),
            "update\nnodename=x;touch PWN $(id)\nstate=drain\nreason=distbench health: failed: rank 1 (x;touch PWN "
            "$(id)) did not arrive; it's `gone`\\nscontrol update nodename=good state=drain\n");
}

TEST(Prometheus, FamiliesOnceWithEscapedLabels) {
  auto records = sample_run();
  Check odd;
  odd.phase = "verdict";
  odd.subject = "we\"ird\\host";
  odd.metric = "node.status";
  odd.value = 2;
  records.push_back(check_record(odd));
  odd.subject = "vm\xff";  // not UTF-8, which Prometheus requires of a label
  records.push_back(check_record(odd));
  const std::string text = prometheus_text(records, 1.7e9);
  EXPECT_THAT(text, HasSubstr("distbench_health_node_status{host=\"vm\xEF\xBF\xBD\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE distbench_health_node_status gauge\n"));
  EXPECT_THAT(text, HasSubstr("distbench_health_node_status{host=\"nodeC\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("distbench_health_node_status{host=\"we\\\"ird\\\\host\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("distbench_health_status 1\n"));
  EXPECT_THAT(text,
              HasSubstr("distbench_health_link_bandwidth_bytes_per_second{src=\"nodeC\",dst=\"nodeA\"} 12000000\n"));
  EXPECT_THAT(text, HasSubstr("distbench_health_link_healthy{src=\"nodeC\",dst=\"nodeA\",figure=\"bandwidth\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("distbench_health_last_run_timestamp_seconds 1700000000\n"));
  // Each family's HELP and TYPE once.
  std::size_t at = 0, types = 0;
  while ((at = text.find("# TYPE distbench_health_node_status ", at)) != std::string::npos) {
    ++types;
    ++at;
  }
  EXPECT_EQ(types, 1U);
}

TEST(Prometheus, AnUnfinishedCheckSaysUnknownWithItsReason) {
  const std::string text = prometheus_unfinished_text(1.7e9);
  EXPECT_THAT(text, HasSubstr("# TYPE distbench_health_status gauge\n"));
  EXPECT_THAT(text, HasSubstr("distbench_health_status{reason=\"the check started and has not ended: still running, "
                              "or killed\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("distbench_health_started_timestamp_seconds 1700000000\n"));
  EXPECT_THAT(text, Not(HasSubstr("last_run_timestamp")));  // it has not ended
  // ended without a verdict: unknown, the reason as a label (escaped), and when it ended
  const std::string ended = prometheus_ended_early_text("interrupted by signal 15 (SIGTERM) during \"rank\"", 1.8e9);
  EXPECT_THAT(ended, HasSubstr("distbench_health_status{reason=\"interrupted by signal 15 (SIGTERM) during "
                               "\\\"rank\\\"\"} 3\n"));
  EXPECT_THAT(ended, HasSubstr("distbench_health_last_run_timestamp_seconds 1800000000\n"));
  EXPECT_THAT(ended, Not(HasSubstr("started_timestamp")));
}

// A phase's results as the root gets them: one JSON per rank, nullopt for a rank that did not arrive.
PhaseResult phase_of(std::string name, std::vector<std::optional<nlohmann::json>> ranks) {
  PhaseResult r;
  r.name = std::move(name);
  r.ranks = std::move(ranks);
  return r;
}

TEST(Stragglers, ARankLastInMostIterationsByAMillisecondIsNamed) {
  const Topology topo = make_topology({0, 0, 1, 1}, {"a", "a", "b", "b"});
  HealthPlan plan;
  // rank 3 (host b) arrives 3 ms after the others in 18 of 20 iterations; host b's steady clock runs 1 s ahead of
  // the root's, which the clock offsets take out.
  std::vector<std::optional<nlohmann::json>> ranks;
  for (int r = 0; r < 4; ++r) {
    nlohmann::json arrivals = nlohmann::json::array();
    for (int i = 0; i < 20; ++i) {
      double t = 1e9 * i + 10e3 * r;          // ns: ranks 10 us apart
      if (r == 3) t += i >= 2 ? 3e6 : -50e3;  // first in the first two iterations
      if (r >= 2) t += 1e9;
      arrivals.push_back(t);
    }
    // rank 3's work takes 4 ms, the others' 1 ms
    ranks.emplace_back(
        nlohmann::json{{"arrival_ns", arrivals}, {"work_ns", std::vector<double>(20, r == 3 ? 4e6 : 1e6)}});
  }
  const auto checks = straggler_checks(phase_of("stragglers", ranks), topo, plan, {0.0, 1e9});
  ASSERT_EQ(checks.size(), 4U);
  for (int r = 0; r < 3; ++r) EXPECT_EQ(checks[static_cast<std::size_t>(r)].status, Status::healthy) << r;
  EXPECT_EQ(checks[3].status, Status::degraded);
  EXPECT_EQ(checks[3].host, "b");
  EXPECT_THAT(checks[3].why, HasSubstr("last to arrive in 18 of 20"));
  // without the clock offset, host b would look a second late every time: the offsets matter
  const auto unaligned = straggler_checks(phase_of("stragglers", ranks), topo, plan, {0.0, 0.0});
  EXPECT_EQ(unaligned[2].status, Status::healthy);  // rank 2 is never the last: rank 3 always is
  EXPECT_EQ(unaligned[3].status, Status::degraded);
  // late, but its work is as fast as everyone's: the collective before let it go last (a slow link), not a straggler
  for (auto& r : ranks) (*r)["work_ns"] = std::vector<double>(20, 1e6);
  EXPECT_EQ(straggler_checks(phase_of("stragglers", ranks), topo, plan, {0.0, 1e9})[3].status, Status::healthy);
}

TEST(Arrival, MissingRanksFailTheirNodeAndWaitersAreUnknown) {
  const Topology topo = make_topology({0, 0, 1, 1}, {"a", "a", "b", "b"});
  auto phase = phase_of("links", {nlohmann::json{{"error", "receive from rank 2 timed out"}, {"timeout", true}},
                                  nlohmann::json::object(), std::nullopt, std::nullopt});
  EXPECT_EQ(phase.missing(), (std::vector<int>{2, 3}));
  const auto checks = arrival_checks(phase, topo, 5, 0);
  ASSERT_EQ(checks.size(), 3U);
  EXPECT_EQ(checks[0].host, "b");
  EXPECT_EQ(checks[0].status, Status::failed);
  EXPECT_THAT(checks[0].why, HasSubstr("TIMEOUT: did not arrive at the end of phase links within 5 s"));
  EXPECT_EQ(checks[2].host, "a");
  EXPECT_EQ(checks[2].status, Status::unknown);
  const auto v = node_verdicts(topo.hosts, topo.ranks_of_node, checks);
  EXPECT_EQ(v[0].status, Status::unknown);
  EXPECT_EQ(v[1].status, Status::failed);
  // with everyone present, a rank whose calls failed is the failure
  phase.ranks[2] = nlohmann::json::object();
  phase.ranks[3] = nlohmann::json::object();
  EXPECT_EQ(arrival_checks(phase, topo, 5, 0)[0].status, Status::failed);
}

TEST(Arrival, ALateRootIsNamedAndTheRanksItMissedAreNotBlamed) {
  // The root (rank 0, host a) was stopped past the phase's wait: rank 3's result did not reach it in time, and its
  // own body failed waiting for the others. Blaming rank 3 would drain host b, which kept time.
  const Topology topo = make_topology({0, 0, 1, 1}, {"a", "a", "b", "b"});
  auto phase = phase_of("node", {nlohmann::json{{"error", "allreduce timed out"}, {"timeout", true}},
                                 nlohmann::json::object(), nlohmann::json{{"error", "allreduce timed out"}},
                                 std::nullopt});
  phase.root_behind_s = 2.25;
  const auto checks = arrival_checks(phase, topo, 5, 0);
  ASSERT_EQ(checks.size(), 3U);
  EXPECT_EQ(checks[0].subject, "rank 0");
  EXPECT_EQ(checks[0].host, "a");
  EXPECT_EQ(checks[0].status, Status::failed);
  EXPECT_THAT(checks[0].why, HasSubstr("the root, was 2.25 s late in phase node (timeout 5 s)"));
  EXPECT_EQ(checks[1].subject, "rank 3");
  EXPECT_EQ(checks[1].status, Status::unknown);
  EXPECT_THAT(checks[1].why, HasSubstr("the root itself was late"));
  EXPECT_EQ(checks[2].subject, "rank 2");  // its failure waited for the root: not its own
  EXPECT_EQ(checks[2].status, Status::unknown);
  const auto v = node_verdicts(topo.hosts, topo.ranks_of_node, checks);
  EXPECT_EQ(v[0].status, Status::failed);
  EXPECT_EQ(v[1].status, Status::unknown);
}

TEST(Topology, NodesInOrderOfTheirFirstRank) {
  const Topology t = make_topology({0, 0, 1, 1, 2, 2}, {"a", "a", "b", "b", "c", "c"});
  EXPECT_EQ(t.hosts, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(t.leaders, (std::vector<int>{0, 2, 4}));
  EXPECT_EQ(t.host_of(3), "b");
  EXPECT_EQ(t.link_name(2, 0), "c->a");
}

}  // namespace
}  // namespace distbench::health
