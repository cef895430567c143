// --slurm-drain's calls (benchmarks/health/slurm_run): one query, then one update per node to drain or resume, each
// bounded and all within the budget; what was done as records (and the console's section), what failed as one
// warning. A stand-in runs "scontrol" for most tests; the last runs a script on a PATH of its own, as a program.
#include "benchmarks/health/health_record.hpp"
#include "benchmarks/health/health_text.hpp"
#include "benchmarks/health/slurm_run.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

namespace distbench::health {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A stand-in for scontrol: the calls it was given, and answers in order (the last one again when they run out).
struct FakeScontrol {
  std::vector<std::vector<std::string>> argv;
  std::vector<double> timeouts;
  std::vector<ProgramOutcome> answers;

  ProgramRunner runner() {
    return [this](const std::vector<std::string>& a, double timeout_s, std::size_t) {
      argv.push_back(a);
      timeouts.push_back(timeout_s);
      return answers[std::min(argv.size() - 1, answers.size() - 1)];
    };
  }
};

ProgramOutcome answer(int status, std::string out, std::string err = "", double seconds = 0.01) {
  ProgramOutcome o;
  o.started = true;
  o.status = status;
  o.out = std::move(out);
  o.err = std::move(err);
  o.seconds = seconds;
  return o;
}

SlurmDrainSettings settings_for(FakeScontrol& fake) {
  SlurmDrainSettings s;
  s.budget_s = 30;
  s.scontrol = "/usr/bin/scontrol";
  s.path = "/usr/bin:/bin";
  s.run = fake.runner();
  return s;
}

std::vector<SlurmCandidate> three_nodes() {
  return {{"nodeA", "nodeA", Status::healthy, ""},
          {"nodeB", "nodeB", Status::failed, "rank 1 (nodeB) did not arrive"},
          {"nodeC", "nodeC", Status::healthy, ""}};
}

constexpr const char* kThreeStates =
    "NodeName=nodeA State=IDLE+DRAIN Reason=distbench health: degraded: slow [root@2026-11-30T06:44:37]\n"
    "NodeName=nodeB State=IDLE Partitions=debug\n"
    "NodeName=nodeC State=IDLE+DRAIN Reason=maintenance [root@2026-11-30T06:40:00]\n";

// The console's Slurm section of these records.
std::vector<std::string> section_of(const std::vector<Check>& checks) {
  std::vector<Record> records;
  for (const Check& c : checks) records.push_back(check_record(c));
  for (const auto& s : health_sections(records, true)) {
    if (s.title == "Slurm (--slurm-drain)") return s.lines;
  }
  return {};
}

TEST(SlurmRun, OneQueryThenADrainAndAResumeAndTheOthersDrainLeft) {
  FakeScontrol fake;
  fake.answers = {answer(0, kThreeStates), answer(0, "")};
  const SlurmDrainOutcome out = drain_in_slurm(three_nodes(), settings_for(fake));
  ASSERT_EQ(fake.argv.size(), 3U);
  EXPECT_THAT(fake.argv[0], ElementsAre("/usr/bin/scontrol", "show", "node", "--oneliner", "nodeA,nodeB,nodeC"));
  EXPECT_THAT(fake.argv[1], ElementsAre("/usr/bin/scontrol", "update", "NodeName=nodeA", "State=RESUME"));
  EXPECT_THAT(fake.argv[2], ElementsAre("/usr/bin/scontrol", "update", "NodeName=nodeB", "State=DRAIN",
                                        "Reason=distbench health: failed: rank 1 (nodeB) did not arrive"));
  EXPECT_THAT(fake.timeouts, ::testing::Each(kScontrolCallSeconds));
  EXPECT_TRUE(out.warnings.empty());
  for (const Check& c : out.records) {
    EXPECT_EQ(c.phase, "slurm");
    EXPECT_EQ(c.status, Status::healthy) << c.metric;  // information: no verdict changes
  }
  EXPECT_THAT(section_of(out.records),
              ElementsAre("resumed nodeA: drained by distbench health before, healthy now",
                          "drained nodeB: distbench health: failed: rank 1 (nodeB) did not arrive",
                          "left nodeC drained: drained by someone else: maintenance; a human must resume it",
                          ::testing::StartsWith("1 node drained, 1 node resumed, 1 node left drained; 3 scontrol "
                                                "calls in 0.03 s (<= 30 s (-T), each call <= 10 s)")));
}

TEST(SlurmRun, AFailedUpdateIsItsRecordAndOneWarningLine) {
  FakeScontrol fake;
  fake.answers = {answer(0, kThreeStates), answer(1, "", "slurm_update error: Access/permission denied\n")};
  const SlurmDrainOutcome out = drain_in_slurm(three_nodes(), settings_for(fake));
  ASSERT_EQ(out.warnings.size(), 1U);
  EXPECT_EQ(out.warnings[0].code, "slurm_drain");
  EXPECT_THAT(out.warnings[0].message,
              HasSubstr("--slurm-drain: could not resume nodeA: scontrol: slurm_update error: Access/permission "
                        "denied (exit 1) (and 1 more); the verdict and its exit code stand"));
  const auto lines = section_of(out.records);
  EXPECT_THAT(lines, ::testing::Contains("could not drain nodeB: scontrol: slurm_update error: Access/permission "
                                         "denied (exit 1)"));
  const auto drain =
      std::find_if(out.records.begin(), out.records.end(), [](const Check& c) { return c.metric == "slurm.drain"; });
  ASSERT_NE(drain, out.records.end());
  EXPECT_EQ(drain->value, 1);  // scontrol's exit status
  EXPECT_EQ(drain->key, "nodeB");
  EXPECT_EQ(drain->limit, "IDLE");  // Slurm's state before
}

TEST(SlurmRun, NoScontrolOnPathIsOneLineAndNothingRuns) {
  FakeScontrol fake;
  fake.answers = {answer(0, "")};
  SlurmDrainSettings s = settings_for(fake);
  s.scontrol.clear();
  const SlurmDrainOutcome out = drain_in_slurm(three_nodes(), s);
  EXPECT_TRUE(fake.argv.empty());
  ASSERT_EQ(out.warnings.size(), 1U);
  EXPECT_EQ(out.warnings[0].message,
            "--slurm-drain: could not read Slurm's node states: scontrol is not on PATH (/usr/bin:/bin): no node was "
            "drained or resumed; the verdict and its exit code stand, the reports' slurm records say what was done");
  EXPECT_THAT(section_of(out.records),
              ElementsAre("could not read Slurm's node states: scontrol is not on PATH (/usr/bin:/bin)",
                          ::testing::StartsWith("no node drained or resumed; 0 scontrol calls in 0.00 s")));
}

TEST(SlurmRun, AQueryThatFailsOrLeavesANodeOutChangesNothing) {
  FakeScontrol down;
  down.answers = {answer(1, "", "slurm_load_node error: Unable to contact slurm controller (connect failure)\n")};
  const SlurmDrainOutcome out = drain_in_slurm(three_nodes(), settings_for(down));
  EXPECT_EQ(down.argv.size(), 1U);  // the query, no update
  ASSERT_EQ(out.warnings.size(), 1U);
  EXPECT_THAT(out.warnings[0].message, HasSubstr("Unable to contact slurm controller"));
  FakeScontrol partial;
  partial.answers = {answer(0, "NodeName=nodeA State=IDLE\n")};
  drain_in_slurm(three_nodes(), settings_for(partial));
  EXPECT_EQ(partial.argv.size(), 1U);
  FakeScontrol cut;
  cut.answers = {answer(0, kThreeStates)};
  cut.answers[0].cut = true;
  drain_in_slurm(three_nodes(), settings_for(cut));
  EXPECT_EQ(cut.argv.size(), 1U);
}

TEST(SlurmRun, ANodeSlurmDoesNotKnowIsSaidAndTheOthersGoOn) {
  FakeScontrol fake;
  fake.answers = {answer(1, "NodeName=nodeA State=IDLE\nNode nodeB not found\nNodeName=nodeC State=IDLE\n")};
  const SlurmDrainOutcome out = drain_in_slurm(three_nodes(), settings_for(fake));
  EXPECT_EQ(fake.argv.size(), 1U);  // nothing to update: no drain of a name Slurm refuses
  ASSERT_EQ(out.warnings.size(), 1U);
  EXPECT_THAT(out.warnings[0].message, HasSubstr("nodeB: Slurm knows no node nodeB: not drained (failed)"));
  EXPECT_THAT(section_of(out.records), ::testing::Contains("not in Slurm: nodeB: Slurm knows no node nodeB: not "
                                                           "drained (failed)"));
}

TEST(SlurmRun, EveryCallIsBoundedAndTheBudgetBoundsThemAll) {
  FakeScontrol slow;
  ProgramOutcome hung = answer(137, "", "", 5.0);
  hung.timed_out = true;
  slow.answers = {answer(0, std::string(kThreeStates) + "NodeName=nodeD State=IDLE\n", "", 25.0), hung};
  std::vector<SlurmCandidate> nodes = three_nodes();
  nodes.push_back({"nodeD", "nodeD", Status::degraded, "slow"});
  const SlurmDrainOutcome out = drain_in_slurm(nodes, settings_for(slow));
  ASSERT_EQ(slow.argv.size(), 2U);  // the query took 25 s of 30: one more call, within the 5 s left
  EXPECT_DOUBLE_EQ(slow.timeouts[1], 5.0);
  EXPECT_THAT(section_of(out.records),
              ::testing::IsSupersetOf({"could not resume nodeA: scontrol did not answer within 5 s: killed",
                                       "could not drain nodeB: not begun: --slurm-drain's 30 s (-T) were spent"}));
  const auto resume =
      std::find_if(out.records.begin(), out.records.end(), [](const Check& c) { return c.metric == "slurm.resume"; });
  ASSERT_NE(resume, out.records.end());
  EXPECT_TRUE(std::isnan(resume->value));  // killed: no exit status of its own
  ASSERT_EQ(out.warnings.size(), 1U);
  EXPECT_THAT(out.warnings[0].message, HasSubstr("(and 2 more)"));
}

TEST(SlurmRun, SlurmsNameOfANodeIsTheOneUsedAndShown) {
  FakeScontrol fake;
  fake.answers = {answer(0, "NodeName=b01 State=IDLE\n"), answer(0, "")};
  const SlurmDrainOutcome out =
      drain_in_slurm({{"nodeB.example.org", "b01", Status::degraded, "slow"}}, settings_for(fake));
  ASSERT_EQ(fake.argv.size(), 2U);
  EXPECT_EQ(fake.argv[1][2], "NodeName=b01");
  EXPECT_THAT(section_of(out.records),
              ::testing::Contains("drained nodeB.example.org (Slurm node b01): distbench health: degraded: slow"));
}

// The real thing, but for Slurm: a script named scontrol on a PATH of its own writes the arguments it was given, one
// per line; the reason reaches it as one argument, and nothing in it runs.
TEST(SlurmRun, ScontrolGetsTheReasonAsOneArgumentThroughNoShell) {
  const auto folder = std::filesystem::temp_directory_path() / ("slurm_run_" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  const auto args = folder / "args", pwn = folder / "PWN";
  {
    std::ofstream script(folder / "scontrol");
    script << "#!/bin/sh\nif [ \"$1\" = show ]; then echo 'NodeName=n1 State=IDLE'; exit 0; fi\n"
           << "for a in \"$@\"; do printf '%s\\n' \"$a\" >> '" << args.string() << "'; done\n";
  }
  std::filesystem::permissions(folder / "scontrol", std::filesystem::perms::owner_all);
  SlurmDrainSettings s;
  s.path = folder.string();
  s.scontrol = find_on_path("scontrol", s.path).value_or("");
  const std::string why = "x; touch " + pwn.string() + " $(touch " + pwn.string() + ") `id` 'q' \"d\"";
  const SlurmDrainOutcome out = drain_in_slurm({{"n1", "n1", Status::failed, why}}, s);
  EXPECT_TRUE(out.warnings.empty()) << out.warnings.front().message;
  std::ifstream in(args);
  std::vector<std::string> got;
  for (std::string line; std::getline(in, line);) got.push_back(line);
  EXPECT_THAT(got, ElementsAre("update", "NodeName=n1", "State=DRAIN", "Reason=distbench health: failed: " + why));
  EXPECT_FALSE(std::filesystem::exists(pwn));
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace distbench::health
