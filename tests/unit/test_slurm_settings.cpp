// An env:// job from Slurm's variables (connectors/slurm_settings): what srun gives each task, and torchrun's
// variables where set.
#include "connectors/launch_choice.hpp"
#include "connectors/slurm_settings.hpp"
#include "core/error.hpp"

#include "tests/support/env_lookup.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

namespace distbench::connectors {
namespace {

using test_support::lookup;
using Vars = std::map<std::string, std::string>;

// What `srun -N 3 --ntasks-per-node 2` gives its task 4 (node 2, its first task there), in job 12's step 3.
Vars srun_task4() {
  return {{"SLURM_JOB_ID", "12"},
          {"SLURM_STEP_ID", "3"},
          {"SLURM_PROCID", "4"},
          {"SLURM_STEP_NUM_TASKS", "6"},
          {"SLURM_NTASKS", "6"},
          {"SLURM_STEP_NODELIST", "node[01-03]"},
          {"SLURM_JOB_NODELIST", "node[01-04]"},
          {"SLURM_NODEID", "2"},
          {"SLURM_LOCALID", "0"},
          {"SLURM_STEP_TASKS_PER_NODE", "2(x3)"},
          {"SLURMD_NODENAME", "node03"}};
}

Vars with(Vars vars, const Vars& more) {
  for (const auto& [k, v] : more) vars[k] = v;
  return vars;
}

std::string usage_text(const Vars& vars) {
  try {
    read_slurm_settings(lookup(vars));
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    return what;
  }
  ADD_FAILURE() << "no usage error";
  return {};
}

TEST(SlurmSettings, FromSrunsVariables) {
  const auto s = read_slurm_settings(lookup(srun_task4()));
  EXPECT_EQ(s.rank, 4);
  EXPECT_EQ(s.world_size, 6);
  EXPECT_EQ(s.master_addr, "node01");  // the step's first node, not the job's
  EXPECT_EQ(s.port, 20123);            // 20000 + 10 x (12 mod 1000) + (3 mod 10)
  EXPECT_EQ(s.port_origin, "from Slurm's variables: job 12 step 3");
  EXPECT_EQ(s.ranks_origin, "Slurm's variables: job 12 step 3");
  EXPECT_EQ(launch_origin(s), "(from Slurm's variables: job 12 step 3)");
  EXPECT_EQ(s.local_rank, 0);
  EXPECT_EQ(s.local_world_size, 2);
  EXPECT_FALSE(s.secret.has_value());
}

TEST(SlurmSettings, OlderAndJobWideNamesStandIn) {
  auto vars = srun_task4();
  vars.erase("SLURM_STEP_NUM_TASKS");
  vars.erase("SLURM_STEP_NODELIST");
  vars.erase("SLURM_JOB_ID");
  vars.erase("SLURM_STEP_ID");
  vars["SLURM_JOBID"] = "7";
  vars["SLURM_STEPID"] = "0";
  const auto s = read_slurm_settings(lookup(vars));
  EXPECT_EQ(s.world_size, 6);  // SLURM_NTASKS
  EXPECT_EQ(s.master_addr, "node01");
  EXPECT_EQ(s.port, 20070);
}

TEST(SlurmSettings, TheDerivedPortTellsStepsAndJobsApart) {
  EXPECT_EQ(slurm_step_port(0, 0), kSlurmPortBase);
  EXPECT_EQ(slurm_step_port(999, 9), kSlurmPortBase + 9999);
  EXPECT_EQ(slurm_step_port(1000, 10), kSlurmPortBase);  // the formula's period: MASTER_PORT where that matters
  EXPECT_EQ(slurm_step_port(4294967295u, 4294967294u), kSlurmPortBase + 2954);
  std::set<int> ports;  // ten steps each of 100 consecutive jobs: all differ
  for (std::uint64_t job = 5000; job < 5100; ++job) {
    for (std::uint64_t step = 0; step < 10; ++step) ports.insert(slurm_step_port(job, step));
  }
  EXPECT_EQ(ports.size(), 1000u);
  EXPECT_LT(*ports.rbegin(), 32768);  // below Linux's ephemeral ports
}

TEST(SlurmSettings, TorchrunsVariablesWin) {
  const auto s = read_slurm_settings(lookup(with(srun_task4(), {{"MASTER_ADDR", "head"},
                                                                {"MASTER_PORT", "29500"},
                                                                {"LOCAL_RANK", "1"},
                                                                {"LOCAL_WORLD_SIZE", "3"},
                                                                {"TORCHELASTIC_USE_AGENT_STORE", "True"}})));
  EXPECT_EQ(s.master_addr, "head");
  EXPECT_EQ(s.port, 29501);  // torchrun's rules for its own port
  EXPECT_EQ(s.rank, 4);
  EXPECT_EQ(s.local_rank, 1);
  EXPECT_EQ(s.local_world_size, 3);
  EXPECT_EQ(launch_origin(s),
            "(MASTER_PORT + 1, as torchrun's agent store holds MASTER_PORT; ranks from Slurm's variables: job 12 step "
            "3)");
  const auto own = read_slurm_settings(lookup(with(srun_task4(), {{"DISTBENCH_MASTER_PORT", "4000"}})));
  EXPECT_EQ(own.port, 4000);
  EXPECT_EQ(launch_origin(own), "(DISTBENCH_MASTER_PORT; ranks from Slurm's variables: job 12 step 3)");
  // no agent holds a port derived from Slurm's ids
  EXPECT_EQ(read_slurm_settings(lookup(with(srun_task4(), {{"TORCHELASTIC_USE_AGENT_STORE", "True"}}))).port, 20123);
}

TEST(SlurmSettings, TheJobSecretIsReadAsForTorchrun) {
  const auto s = read_slurm_settings(lookup(with(srun_task4(), {{"DISTBENCH_JOB_SECRET", "0123456789abcdef0123"}})));
  EXPECT_EQ(s.secret, "0123456789abcdef0123");
  EXPECT_NE(usage_text(with(srun_task4(), {{"DISTBENCH_JOB_SECRET", "short"}})).find("fewer than 16"),
            std::string::npos);
}

TEST(SlurmSettings, LocalRanksThatDoNotAddUpAreLeftToTheHostsNames) {
  for (const Vars& odd : {Vars{{"SLURM_STEP_TASKS_PER_NODE", "2(x2)"}},  // 4 tasks, not the step's 6
                          Vars{{"SLURM_STEP_TASKS_PER_NODE", "2(x3"}}, Vars{{"SLURM_LOCALID", "2"}},
                          Vars{{"SLURM_NODEID", "x"}}, Vars{{"SLURM_LOCALID", "-1"}}}) {
    const auto s = read_slurm_settings(lookup(with(srun_task4(), odd)));
    EXPECT_FALSE(s.local_rank.has_value()) << odd.begin()->first << "=" << odd.begin()->second;
    EXPECT_FALSE(s.local_world_size.has_value());
  }
  auto none = srun_task4();
  none.erase("SLURM_STEP_TASKS_PER_NODE");
  EXPECT_FALSE(read_slurm_settings(lookup(none)).local_rank.has_value());
}

TEST(SlurmSettings, Rank0OffTheFirstNodeSaysSo) {
  const auto task0 = with(srun_task4(), {{"SLURM_PROCID", "0"}, {"SLURM_NODEID", "1"}, {"SLURMD_NODENAME", "node02"}});
  const auto what = usage_text(task0);
  EXPECT_NE(what.find("rank 0 (SLURM_PROCID=0) runs on node 1 of the step (node02), not on its first node node01"),
            std::string::npos)
      << what;
  EXPECT_NE(what.find("set MASTER_ADDR to task 0's host"), std::string::npos) << what;
  EXPECT_EQ(read_slurm_settings(lookup(with(task0, {{"MASTER_ADDR", "node02"}}))).master_addr, "node02");
  // the others cannot know: they look for rank 0 on the first node, and rank 0's line explains why it never came
  EXPECT_EQ(read_slurm_settings(lookup(srun_task4())).master_addr, "node01");
}

TEST(SlurmSettings, WrongOrMissingVariablesAreNamed) {
  auto no_tasks = srun_task4();
  no_tasks.erase("SLURM_STEP_NUM_TASKS");
  no_tasks.erase("SLURM_NTASKS");
  EXPECT_NE(usage_text(no_tasks).find("SLURM_STEP_NUM_TASKS (or SLURM_NTASKS) is not set"), std::string::npos);
  EXPECT_NE(usage_text(with(srun_task4(), {{"SLURM_PROCID", "6"}}))
                .find("SLURM_PROCID='6' is not a whole number from 0 to 5; it must be this task's rank, below "
                      "SLURM_STEP_NUM_TASKS=6"),
            std::string::npos);
  EXPECT_NE(usage_text(with(srun_task4(), {{"SLURM_STEP_NUM_TASKS", "0"}})).find("SLURM_STEP_NUM_TASKS='0'"),
            std::string::npos);
  const auto bad_list = usage_text(with(srun_task4(), {{"SLURM_STEP_NODELIST", "node[01-"}}));
  EXPECT_NE(bad_list.find("SLURM_STEP_NODELIST='node[01-' is not a Slurm host list"), std::string::npos) << bad_list;
  EXPECT_NE(bad_list.find("; set MASTER_ADDR to rank 0's host"), std::string::npos) << bad_list;
  auto no_list = srun_task4();
  no_list.erase("SLURM_STEP_NODELIST");
  no_list.erase("SLURM_JOB_NODELIST");
  EXPECT_NE(usage_text(no_list).find("set MASTER_ADDR"), std::string::npos);
  const auto odd_step = usage_text(with(srun_task4(), {{"SLURM_STEP_ID", "batch"}}));
  EXPECT_NE(odd_step.find("SLURM_STEP_ID='batch' is not a whole number"), std::string::npos) << odd_step;
  EXPECT_NE(odd_step.find("set MASTER_PORT"), std::string::npos) << odd_step;
  EXPECT_EQ(read_slurm_settings(lookup(with(srun_task4(), {{"SLURM_STEP_ID", "batch"}, {"MASTER_PORT", "5"}}))).port,
            5);
}

TEST(SlurmSettings, ALaunchReadsSlurmsOnlyWithoutTorchrunsRanks) {
  EXPECT_EQ(read_launch_settings(lookup(srun_task4())).ranks_origin, "Slurm's variables: job 12 step 3");
  // torchrun under srun: torchrun's variables describe the job, all of them
  const auto torchrun = read_launch_settings(
      lookup(with(srun_task4(), {{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "a"}, {"MASTER_PORT", "29500"}})));
  EXPECT_EQ(torchrun.rank, 1);
  EXPECT_EQ(torchrun.ranks_origin, "");
  EXPECT_EQ(launch_origin(torchrun), "(MASTER_PORT)");
  try {
    read_launch_settings(lookup(with(srun_task4(), {{"RANK", "1"}})));
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("WORLD_SIZE is not set"), std::string::npos) << e.what();
  }
  // no Slurm step, or mpirun's ranks inside an allocation (its daemons' Slurm variables are not theirs): torchrun's,
  // as before
  for (const auto& vars : {Vars{}, with(srun_task4(), {{"OMPI_COMM_WORLD_SIZE", "2"}, {"PMIX_RANK", "1"}}),
                           with(srun_task4(), {{"PMIX_RANK", "1"}})}) {
    try {
      read_launch_settings(lookup(vars));
      ADD_FAILURE();
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("WORLD_SIZE is not set"), std::string::npos) << e.what();
    }
  }
  // srun's own PMIx: its rank is the task's
  EXPECT_EQ(read_launch_settings(lookup(with(srun_task4(), {{"PMIX_RANK", "4"}}))).rank, 4);
}

TEST(SlurmSettings, SrunStartedThisTask) {
  EXPECT_TRUE(srun_started_this_task(lookup(srun_task4())));
  EXPECT_TRUE(srun_started_this_task(lookup(with(srun_task4(), {{"PMI_RANK", "4"}, {"PMI_SIZE", "6"}}))));
  EXPECT_FALSE(srun_started_this_task(lookup(with(srun_task4(), {{"PMI_RANK", "4"}, {"PMI_SIZE", "8"}}))));
  EXPECT_FALSE(srun_started_this_task(lookup(with(srun_task4(), {{"OMPI_COMM_WORLD_SIZE", "6"}}))));
  auto batch = srun_task4();
  batch.erase("SLURM_STEP_ID");
  EXPECT_FALSE(srun_started_this_task(lookup(batch)));
}

}  // namespace
}  // namespace distbench::connectors
