// The health check's judgement (benchmarks/health/judge): figures against the group's median and MAD, screening
// suspects, and the rules file's absolute rules.
#include "benchmarks/health/health_record.hpp"
#include "benchmarks/health/judge.hpp"
#include "core/error.hpp"
#include "tests/support/health_checks.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace distbench::health {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

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
  EXPECT_THAT(
      message(R"({"rules": [{"metric": "memory.copy_gpbs", "compare": ">=", "threshold": 1}]})"),
      AllOf(HasSubstr("rule 1"), HasSubstr("\"memory.copy_gpbs\" matches no metric"), HasSubstr("memory.copy_gbps")));
  // of a family no metric has, the families, on a line that stays short however many metrics there are
  const std::string families = message(R"({"rules": [{"metric": "gpus.count", "compare": ">=", "threshold": 1}]})");
  EXPECT_THAT(families, AllOf(HasSubstr("the families are"), HasSubstr("gpu.*"), HasSubstr("hardware.*")));
  EXPECT_LT(families.size(), 400u) << families;
  EXPECT_THAT(message(R"({"rules": [{"metric": "memory.copy_gbps", "compare": ">=", "threshold": 1e400}]})"),
              AllOf(HasSubstr("the number 1e400 is beyond the range of a double"), Not(HasSubstr("json.exception"))));
}

TEST(Rules, AClusterKindCanSayHowManyGpusEachNodeHas) {
  EXPECT_EQ(parse_rules(R"({"gpus_per_node": 8, "rules": []})", "h200.json").gpus_per_node, 8);
  EXPECT_FALSE(parse_rules(R"({"rules": []})", "x.json").gpus_per_node.has_value());
  for (const char* bad : {R"({"gpus_per_node": 0, "rules": []})", R"({"gpus_per_node": 8.5, "rules": []})",
                          R"({"gpus_per_node": "8", "rules": []})", R"({"gpus_per_node": 65, "rules": []})"}) {
    try {
      parse_rules(bad, "bad.json");
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("\"gpus_per_node\" must be a whole number from 1 to 64")) << bad;
    }
  }
}

TEST(Rules, TheRulesFilesOfEachClusterKindParse) {
  const char* root = std::getenv("DISTBENCH_SOURCE_ROOT");
  ASSERT_NE(root, nullptr) << "run through meson test (DISTBENCH_SOURCE_ROOT names the sources)";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(root) + "/docs/rules")) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const Rules rules = parse_rules(text, entry.path().filename().string());
    EXPECT_EQ(rules.gpus_per_node, 8) << entry.path();
    EXPECT_FALSE(rules.rules.empty()) << entry.path();
    ++files;
  }
  EXPECT_GE(files, 2);
}

TEST(Rules, EveryMetricOfTheCheckCanBeRuled) {
  for (const std::string& metric : health_metrics()) {
    const std::string text = R"({"rules": [{"metric": ")" + metric + R"(", "compare": ">=", "threshold": 0}]})";
    EXPECT_NO_THROW(parse_rules(text, "r.json")) << metric;
  }
  EXPECT_NO_THROW(parse_rules(R"({"rules": [{"metric": "*.wrong", "compare": "<=", "threshold": 0}]})", "r.json"));
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

}  // namespace
}  // namespace distbench::health
