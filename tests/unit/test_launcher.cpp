// Which process prints an error found before the job forms (cli/launcher): rank 0 of a real launcher, and any
// process that stray variables would otherwise silence.
#include "cli/launcher.hpp"

#include "tests/support/env_lookup.hpp"

#include <gtest/gtest.h>

#include <map>

namespace distbench::cli {
namespace {

using test_support::lookup;

TEST(Launcher, EachLaunchersRank) {
  EXPECT_EQ(launcher_rank(lookup({{"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_SIZE", "4"}})), 3);
  EXPECT_EQ(launcher_rank(lookup({{"PMIX_RANK", "2"}, {"PMIX_NAMESPACE", "slurm.pmix.12.0"}})), 2);
  EXPECT_EQ(launcher_rank(lookup({{"PMI_RANK", "1"}, {"PMI_SIZE", "2"}})), 1);
  EXPECT_EQ(launcher_rank(lookup({{"RANK", "5"}, {"WORLD_SIZE", "8"}})), 5);
  EXPECT_EQ(launcher_rank(lookup({{"SLURM_PROCID", "1"}, {"SLURM_STEP_NUM_TASKS", "2"}})), 1);  // srun --mpi=none
  EXPECT_EQ(launcher_rank(lookup({})), std::nullopt);
}

TEST(Launcher, StrayVariablesDoNotSilenceAProcess) {
  // issue 16: OMPI_COMM_WORLD_RANK=1 or PMIX_RANK=3 exported by hand silenced every bad-input error
  for (const auto& vars : std::vector<std::map<std::string, std::string>>{
           {{"OMPI_COMM_WORLD_RANK", "1"}},
           {{"PMIX_RANK", "3"}},
           {{"OMPI_COMM_WORLD_RANK", "4"}, {"OMPI_COMM_WORLD_SIZE", "4"}},
           {{"PMI_RANK", "x"}, {"PMI_SIZE", "2"}},
           {{"RANK", "1"}},
       }) {
    EXPECT_EQ(launcher_rank(lookup(vars)), std::nullopt);
    EXPECT_TRUE(prints_early_errors(lookup(vars)));
  }
  EXPECT_FALSE(prints_early_errors(lookup({{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "2"}})));
  EXPECT_TRUE(prints_early_errors(lookup({{"OMPI_COMM_WORLD_RANK", "0"}, {"OMPI_COMM_WORLD_SIZE", "2"}})));
}

}  // namespace
}  // namespace distbench::cli
