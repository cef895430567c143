// Which connector forms the job (connectors/launch_choice): --launcher and what auto finds in the environment.
#include "connectors/launch_choice.hpp"
#include "core/error.hpp"

#include "tests/support/env_lookup.hpp"

#include <gtest/gtest.h>

#include <map>

namespace distbench::connectors {
namespace {

using test_support::lookup;

const std::map<std::string, std::string> kNothing;
const std::map<std::string, std::string> kMpirun{{"OMPI_COMM_WORLD_SIZE", "4"}, {"OMPI_COMM_WORLD_RANK", "1"}};
const std::map<std::string, std::string> kSrunPmix{{"PMIX_RANK", "3"}, {"SLURM_PROCID", "3"}};
const std::map<std::string, std::string> kTorchrun{
    {"RANK", "1"}, {"WORLD_SIZE", "4"}, {"MASTER_ADDR", "a"}, {"MASTER_PORT", "1"}};

TEST(LaunchChoice, AutoFollowsTheLauncher) {
  EXPECT_EQ(resolve_launcher("auto", lookup(kMpirun), true), "mpi");
  EXPECT_EQ(resolve_launcher("auto", lookup(kSrunPmix), true), "mpi");
  EXPECT_EQ(resolve_launcher("auto", lookup(kTorchrun), true), "env");
  EXPECT_EQ(resolve_launcher("auto", lookup(kTorchrun), false), "env");
  auto both = kTorchrun;
  both.insert(kMpirun.begin(), kMpirun.end());  // an MPI launcher that also exports torch's names: MPI decides
  EXPECT_EQ(resolve_launcher("auto", lookup(both), true), "mpi");
  EXPECT_EQ(resolve_launcher("auto", lookup(kNothing), true), "mpi");  // MPI's singleton
  EXPECT_EQ(resolve_launcher("auto", lookup(kNothing), false), "none");
}

TEST(LaunchChoice, NamedOnesWin) {
  EXPECT_EQ(resolve_launcher("env", lookup(kMpirun), true), "env");
  EXPECT_EQ(resolve_launcher("none", lookup(kTorchrun), true), "none");
  EXPECT_EQ(resolve_launcher("mpi", lookup(kTorchrun), true), "mpi");
}

TEST(LaunchChoice, MpiWithoutMpiIsUnavailable) {
  for (const auto& [requested, vars] : {std::pair{"mpi", kNothing}, std::pair{"auto", kMpirun}}) {
    try {
      resolve_launcher(requested, lookup(vars), false);
      ADD_FAILURE() << requested;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::unavailable);
      EXPECT_NE(std::string(e.what()).find("built without MPI"), std::string::npos) << e.what();
    }
  }
}

TEST(LaunchChoice, ASlurmStepWithoutPmixIsToldHowToStart) {
  const auto srun_none = lookup({{"SLURM_STEP_ID", "0"}, {"SLURM_STEP_NUM_TASKS", "2"}, {"SLURM_PROCID", "1"}});
  try {
    resolve_launcher("auto", srun_none, true);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    EXPECT_NE(std::string(e.what()).find("srun --mpi=pmix"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("or form the job over TCP from Slurm's variables with '--launcher env'"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(resolve_launcher("auto", lookup(kSrunPmix), true), "mpi");
  EXPECT_EQ(resolve_launcher("env", srun_none, true), "env");  // Slurm's variables (read_launch_settings)
  const std::map<std::string, std::string> srun_env{
      {"SLURM_STEP_ID", "0"}, {"RANK", "1"}, {"WORLD_SIZE", "4"}, {"MASTER_ADDR", "a"}, {"MASTER_PORT", "1"}};
  EXPECT_EQ(resolve_launcher("auto", lookup(srun_env), true), "env");  // torchrun's variables exported through srun
}

TEST(LaunchChoice, WithoutMpiSrunsTasksFormAJobFromSlurmsVariables) {
  const std::map<std::string, std::string> srun_none{
      {"SLURM_STEP_ID", "0"}, {"SLURM_STEP_NUM_TASKS", "2"}, {"SLURM_PROCID", "1"}};
  EXPECT_EQ(resolve_launcher("auto", lookup(srun_none), false), "env");
  auto srun_pmix = srun_none;  // srun --mpi=pmix (MpiDefault=pmix): its own PMIx rank is the task's
  srun_pmix["PMIX_RANK"] = "1";
  EXPECT_EQ(resolve_launcher("auto", lookup(srun_pmix), false), "env");
  auto srun_pmi2 = srun_none;
  srun_pmi2["PMI_RANK"] = "1";
  srun_pmi2["PMI_SIZE"] = "2";
  EXPECT_EQ(resolve_launcher("auto", lookup(srun_pmi2), false), "env");
  EXPECT_EQ(resolve_launcher("none", lookup(srun_none), false), "none");
  // an MPI launcher inside the allocation: its ranks inherit its daemons' Slurm variables, which are not theirs
  auto mpirun_in_slurm = srun_none;
  mpirun_in_slurm.insert(kMpirun.begin(), kMpirun.end());
  auto other_rank = srun_pmix;
  other_rank["PMIX_RANK"] = "3";
  auto other_size = srun_pmi2;
  other_size["PMI_SIZE"] = "4";
  for (const auto& vars : {mpirun_in_slurm, other_rank, other_size}) {
    try {
      resolve_launcher("auto", lookup(vars), false);
      ADD_FAILURE();
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::unavailable);
      EXPECT_NE(std::string(e.what()).find("built without MPI"), std::string::npos) << e.what();
    }
  }
}

TEST(LaunchChoice, AnUnknownChoiceIsAUsageError) {
  try {
    resolve_launcher("torchrun", lookup(kNothing), true);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
  }
}

}  // namespace
}  // namespace distbench::connectors
