// Health's text (benchmarks/health/health_text): verdicts, the link matrix, and Slurm drain lines that stay one
// command.
#include "benchmarks/health/health_record.hpp"
#include "benchmarks/health/health_text.hpp"
#include "benchmarks/health/verdict.hpp"
#include "tests/support/health_checks.hpp"
#include "tests/support/shell_output.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace distbench::health {
namespace {

using ::testing::HasSubstr;

TEST(HealthText, VerdictsMatrixAndSlurmLines) {
  const auto sections = health_sections(sample_run(), true);
  std::string all;
  for (const auto& s : sections) {
    all += "## " + s.title + "\n";
    for (const auto& l : s.lines) all += l + "\n";
  }
  EXPECT_THAT(all, HasSubstr("Verdict per node"));
  EXPECT_THAT(all, ::testing::ContainsRegex("nodeC +degraded"));
  EXPECT_THAT(all, ::testing::Not(HasSubstr("cluster")));   // the job's verdict is no node's
  EXPECT_THAT(all, ::testing::Not(HasSubstr("the job:")));  // its reason would only list nodeC again
  auto stopped = sample_run();
  Check job = check_of(stopped.back());
  job.why = "health phase links: TIMEOUT";
  stopped.back() = check_record(job);
  EXPECT_THAT(health_sections(stopped, false).front().lines.back(),
              ::testing::Eq("the job: degraded: health phase links: TIMEOUT"));
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

}  // namespace
}  // namespace distbench::health
