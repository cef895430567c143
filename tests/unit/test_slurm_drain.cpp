// What --slurm-drain asks of Slurm (benchmarks/health/slurm_drain): the reason, the names scontrol may be given,
// Slurm 22.05's `scontrol show node --oneliner` read into states and reasons, each node's step by NHC's rule (drain
// the bad, resume only distbench's own drains, leave anyone else's), and argument vectors no shell reads.
#include "benchmarks/health/slurm_drain.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace distbench::health {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// What Slurm 22.05.8 printed here (tests/slurm's one-node Slurm): a node drained with a reason that holds '=',
// quotes and a bracket of its own, Slurm's stamp after it; a name it does not know.
constexpr const char* kScontrolOutput =
    "NodeName=vm Arch=x86_64 CoresPerSocket=1  CPUAlloc=0 CPUEfctv=2 CPUTot=2 CPULoad=3.57 AvailableFeatures=(null) "
    "ActiveFeatures=(null) Gres=(null) NodeAddr=vm NodeHostName=vm Version=22.05.8 OS=Linux 6.18.44-fc-v595 #1 SMP "
    "PREEMPT_DYNAMIC @0  RealMemory=4000 AllocMem=0 FreeMem=17350 Sockets=2 Boards=1 State=IDLE+DRAIN "
    "ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A Partitions=debug  BootTime=2026-11-29T07:55:29 "
    "SlurmdStartTime=2026-11-30T06:44:37 LastBusyTime=2026-11-30T06:44:37 CfgTRES=cpu=2,mem=4000M,billing=2 "
    "AllocTRES= CapWatts=n/a CurrentWatts=0 AveWatts=0 ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s "
    "Reason=distbench health: failed: x=1 y; 'q' \"d\" [a@b] [root@2026-11-30T06:44:37]\n"
    "NodeName=w2 Arch=x86_64 State=MIXED Partitions=debug CfgTRES=cpu=2\n"
    "NodeName=w3 State=DOWN+DRAIN+NOT_RESPONDING Reason=Not responding State=IDLE [slurm@2026-11-30T07:01:02]\n"
    "Node nosuch not found\n";

TEST(SlurmDrain, TheReasonIsOneBoundedLineWithDistbenchsPrefix) {
  EXPECT_EQ(drain_reason(Status::failed, "rank 1 (nodeB) did not arrive"),
            "distbench health: failed: rank 1 (nodeB) did not arrive");
  const std::string r = drain_reason(Status::degraded, std::string(500, 'x') + "\nState=RESUME");
  EXPECT_EQ(r.find('\n'), std::string::npos);
  EXPECT_EQ(r.rfind(kDrainReasonPrefix, 0), 0U);
  EXPECT_EQ(r.size(), kDrainReasonCodePoints + 3);  // cut, with "..."
  EXPECT_THAT(drain_reason(Status::failed, "a\nb"), HasSubstr("a\\nb"));
}

TEST(SlurmDrain, OnlyNamesScontrolReadsAsOneNodeArePassed) {
  for (const char* ok : {"vm", "nodeA", "gpu-001.cluster", "n_1", "a1b2"}) EXPECT_TRUE(slurm_node_name_ok(ok)) << ok;
  for (const char* bad : {"", "a,b", "n[1-3]", "x;touch PWN", "a b", "State=DOWN", "-h", "a\nb", "ü", "$(id)"}) {
    EXPECT_FALSE(slurm_node_name_ok(bad)) << bad;
  }
  EXPECT_FALSE(slurm_node_name_ok(std::string(129, 'a')));
}

TEST(SlurmDrain, DrainedIsADrainFlagWhateverElseTheStateSays) {
  for (const char* s : {"IDLE+DRAIN", "MIXED+DRAIN", "ALLOCATED+DRAIN+NOT_RESPONDING", "DOWN+DRAIN", "drained",
                        "draining", "drained*", "idle+drain"}) {
    EXPECT_TRUE(is_drained(s)) << s;
  }
  for (const char* s : {"IDLE", "MIXED", "DOWN+NOT_RESPONDING", "", "IDLE+DRAINX", "UNDRAIN"}) {
    EXPECT_FALSE(is_drained(s)) << s;
  }
}

TEST(SlurmDrain, ScontrolsLinesGiveStatesReasonsAndUnknownNames) {
  const SlurmNodeStates s = parse_node_states(kScontrolOutput);
  ASSERT_EQ(s.known.size(), 3U);
  EXPECT_EQ(s.known.at("vm").state, "IDLE+DRAIN");
  EXPECT_EQ(s.known.at("vm").reason, "distbench health: failed: x=1 y; 'q' \"d\" [a@b]");  // the stamp left out
  EXPECT_TRUE(drained_by_distbench(s.known.at("vm")));
  EXPECT_EQ(s.known.at("w2").state, "MIXED");
  EXPECT_EQ(s.known.at("w2").reason, "");
  EXPECT_EQ(s.known.at("w3").state, "DOWN+DRAIN+NOT_RESPONDING");  // not the "State=" inside its reason
  EXPECT_EQ(s.known.at("w3").reason, "Not responding State=IDLE");
  EXPECT_FALSE(drained_by_distbench(s.known.at("w3")));
  EXPECT_THAT(s.not_found, ElementsAre("nosuch"));
  EXPECT_TRUE(parse_node_states("slurm_load_node error: Unable to contact slurm controller\n").known.empty());
}

TEST(SlurmDrain, OnlySlurmsOwnStampIsTakenOffAReason) {
  EXPECT_EQ(without_reason_stamp("maintenance [root@2026-11-30T06:44:37]"), "maintenance");
  EXPECT_EQ(without_reason_stamp("maintenance"), "maintenance");
  EXPECT_EQ(without_reason_stamp("see [a@b]"), "see [a@b]");
  EXPECT_EQ(without_reason_stamp("x [a@b] [slurm@2026-11-30T06:44:37] Comment=y"), "x [a@b]");
}

SlurmCandidate node(const std::string& host, Status status, const std::string& why = "") {
  return {host, host, status, why};
}

SlurmNodeStates states(std::initializer_list<std::pair<const std::string, SlurmNodeState>> known) {
  SlurmNodeStates s;
  s.known = known;
  return s;
}

TEST(SlurmDrain, TheBadAreDrainedUnlessSomeoneElseDrainedThem) {
  const auto plan =
      plan_slurm_steps({node("a", Status::failed, "rank 1 (a) did not arrive"), node("b", Status::degraded, "slow"),
                        node("c", Status::failed, "x"), node("d", Status::degraded, "y")},
                       states({{"a", {"IDLE", ""}},
                               {"b", {"MIXED+DRAIN", "distbench health: failed: old"}},
                               {"c", {"IDLE+DRAIN", "maintenance"}},
                               {"d", {"DOWN+NOT_RESPONDING", "Not responding"}}}));
  ASSERT_EQ(plan.size(), 4U);
  EXPECT_EQ(plan[0].step, SlurmStep::drain);
  EXPECT_EQ(plan[0].text, "distbench health: failed: rank 1 (a) did not arrive");
  EXPECT_EQ(plan[1].step, SlurmStep::drain);  // distbench's own drain: its reason renewed
  EXPECT_EQ(plan[1].text, "distbench health: degraded: slow");
  EXPECT_EQ(plan[2].step, SlurmStep::leave);  // a human's reason is kept
  EXPECT_EQ(plan[2].text, "drained by someone else: maintenance");
  EXPECT_EQ(plan[3].step, SlurmStep::drain);  // down, not drained: drained
  EXPECT_EQ(plan[3].state, "DOWN+NOT_RESPONDING");
}

TEST(SlurmDrain, OnlyDistbenchsOwnDrainIsResumedAndOnlyOnAHealthyNode) {
  const auto plan = plan_slurm_steps(
      {node("a", Status::healthy), node("b", Status::healthy), node("c", Status::healthy), node("d", Status::healthy),
       node("e", Status::unknown, "not checked to the end"), node("f", Status::unknown)},
      states({{"a", {"IDLE+DRAIN", "distbench health: degraded: slow"}},
              {"b", {"IDLE+DRAIN", "Prolog error"}},
              {"c", {"DOWN+DRAIN", "Not responding"}},
              {"d", {"IDLE", ""}},
              {"e", {"IDLE+DRAIN", "distbench health: failed: gone"}},
              {"f", {"IDLE+DRAIN", "maintenance"}}}));
  ASSERT_EQ(plan.size(), 4U);  // d needs nothing; f is unknown and someone else's
  EXPECT_EQ(plan[0].step, SlurmStep::resume);
  EXPECT_EQ(plan[0].node.host, "a");
  EXPECT_EQ(plan[0].text, "drained by distbench health before, healthy now");
  EXPECT_EQ(plan[1].step, SlurmStep::leave);
  EXPECT_EQ(plan[1].text, "drained by someone else: Prolog error; a human must resume it");
  EXPECT_EQ(plan[2].step, SlurmStep::leave);
  EXPECT_EQ(plan[2].text, "drained by someone else: Not responding; a human must resume it");
  EXPECT_EQ(plan[3].step, SlurmStep::leave);  // never resumed while unknown
  EXPECT_THAT(plan[3].text, HasSubstr("unknown now, not healthy: not checked to the end"));
}

TEST(SlurmDrain, NamesSlurmDoesNotKnowOrThatAreRefusedAreSaidNeverPassed) {
  std::vector<SlurmCandidate> nodes = {node("vm", Status::healthy), node("gone", Status::failed, "x"),
                                       node("x;touch PWN", Status::failed, "y"), node("a,b", Status::healthy)};
  nodes.push_back({"hostC", "slurmC", Status::degraded, "z"});
  EXPECT_THAT(names_to_query(nodes), ElementsAre("vm", "gone", "slurmC"));
  SlurmNodeStates s = states({{"vm", {"IDLE", ""}}});
  s.not_found = {"gone", "slurmC"};
  const auto plan = plan_slurm_steps(nodes, s);
  ASSERT_EQ(plan.size(), 4U);
  for (const auto& p : plan) EXPECT_EQ(p.step, SlurmStep::not_in_slurm) << p.node.host;
  EXPECT_EQ(plan[0].text, "Slurm knows no node gone: not drained (failed)");
  EXPECT_THAT(plan[1].text, HasSubstr("is not a name scontrol takes for one node"));
  EXPECT_THAT(plan[1].text, HasSubstr("not drained (failed)"));
  EXPECT_EQ(plan[2].text, "'a,b' is not a name scontrol takes for one node (letters, digits, '.', '-', '_')");
  EXPECT_EQ(plan[3].node.slurm_name, "slurmC");  // Slurm's name, not the host's, is asked for
}

TEST(SlurmDrain, EachValueIsOneArgumentAsGiven) {
  SlurmPlanned drain{SlurmStep::drain, node("n1", Status::failed), "IDLE",
                     "distbench health: failed: x; touch PWN $(id) `id` 'q' \"d\" State=RESUME"};
  EXPECT_THAT(update_argv("/usr/bin/scontrol", drain),
              ElementsAre("/usr/bin/scontrol", "update", "NodeName=n1", "State=DRAIN",
                          "Reason=distbench health: failed: x; touch PWN $(id) `id` 'q' \"d\" State=RESUME"));
  SlurmPlanned resume{SlurmStep::resume, node("n2", Status::healthy), "IDLE+DRAIN", "why"};
  EXPECT_THAT(update_argv("scontrol", resume), ElementsAre("scontrol", "update", "NodeName=n2", "State=RESUME"));
  EXPECT_THAT(query_argv("scontrol", {"a", "b", "c"}), ElementsAre("scontrol", "show", "node", "--oneliner", "a,b,c"));
  EXPECT_EQ(name(SlurmStep::leave), "left_drained");
}

}  // namespace
}  // namespace distbench::health
