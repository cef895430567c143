// The torchrun variables of an env:// launch (connectors/env_settings).
#include "connectors/env_settings.hpp"
#include "core/error.hpp"

#include "tests/support/env_lookup.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

namespace distbench::connectors {
namespace {

using test_support::lookup;

std::map<std::string, std::string> torchrun(std::string rank = "1", std::string world = "4") {
  return {{"MASTER_ADDR", "node0"}, {"MASTER_PORT", "29500"}, {"RANK", rank},
          {"WORLD_SIZE", world},    {"LOCAL_RANK", "1"},      {"LOCAL_WORLD_SIZE", "2"}};
}

std::string usage_text(const std::map<std::string, std::string>& vars) {
  try {
    read_env_settings(lookup(vars));
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    return e.what();
  }
  ADD_FAILURE() << "no usage error";
  return {};
}

TEST(EnvSettings, TorchrunsVariables) {
  const auto s = read_env_settings(lookup(torchrun()));
  EXPECT_EQ(s.master_addr, "node0");
  EXPECT_EQ(s.port, 29500);
  EXPECT_EQ(s.port_origin, "MASTER_PORT");
  EXPECT_EQ(s.rank, 1);
  EXPECT_EQ(s.world_size, 4);
  EXPECT_EQ(s.local_rank, 1);
  EXPECT_EQ(s.local_world_size, 2);
  EXPECT_EQ(s.run_id, "");
}

TEST(EnvSettings, RequestedOnlyWithRankAndWorldSize) {
  EXPECT_TRUE(env_launch_requested(lookup(torchrun())));
  EXPECT_FALSE(env_launch_requested(lookup({{"MASTER_ADDR", "x"}, {"MASTER_PORT", "1"}, {"RANK", "0"}})));
  EXPECT_FALSE(env_launch_requested(lookup({{"WORLD_SIZE", "2"}})));
}

TEST(EnvSettings, TheAgentsStoreHoldsMasterPort) {
  auto vars = torchrun();
  vars["TORCHELASTIC_USE_AGENT_STORE"] = "True";
  const auto s = read_env_settings(lookup(vars));
  EXPECT_EQ(s.port, 29501);
  EXPECT_NE(s.port_origin.find("agent"), std::string::npos);
  vars["DISTBENCH_MASTER_PORT"] = "4000";  // overrides both
  EXPECT_EQ(read_env_settings(lookup(vars)).port, 4000);
  vars.erase("DISTBENCH_MASTER_PORT");
  vars["MASTER_PORT"] = "65535";
  EXPECT_NE(usage_text(vars).find("DISTBENCH_MASTER_PORT"), std::string::npos);
  vars["TORCHELASTIC_USE_AGENT_STORE"] = "False";
  EXPECT_EQ(read_env_settings(lookup(vars)).port, 65535);
}

TEST(EnvSettings, EachBadValueNamesItsVariable) {
  auto vars = torchrun("4", "4");
  EXPECT_NE(usage_text(vars).find("RANK='4' is not a whole number from 0 to 3"), std::string::npos);
  vars = torchrun("-1");
  EXPECT_NE(usage_text(vars).find("RANK='-1'"), std::string::npos);
  vars = torchrun("1", "0");
  EXPECT_NE(usage_text(vars).find("WORLD_SIZE='0'"), std::string::npos);
  vars = torchrun("1", "4x");
  EXPECT_NE(usage_text(vars).find("WORLD_SIZE='4x'"), std::string::npos);
  vars = torchrun();
  vars["MASTER_PORT"] = "70000";
  EXPECT_NE(usage_text(vars).find("MASTER_PORT='70000' is not a whole number from 1 to 65535"), std::string::npos);
  vars = torchrun();
  vars.erase("MASTER_ADDR");
  EXPECT_NE(usage_text(vars).find("MASTER_ADDR is not set"), std::string::npos);
  vars = torchrun();
  vars["MASTER_PORT"] = "";
  EXPECT_NE(usage_text(vars).find("MASTER_PORT is not set"), std::string::npos);
  vars = torchrun();
  vars["LOCAL_RANK"] = "2";
  EXPECT_NE(usage_text(vars).find("LOCAL_RANK='2'"), std::string::npos);
  vars = torchrun();
  vars.erase("LOCAL_WORLD_SIZE");
  EXPECT_NE(usage_text(vars).find("LOCAL_RANK is set but LOCAL_WORLD_SIZE is not"), std::string::npos);
  vars = torchrun();
  vars.erase("LOCAL_RANK");
  EXPECT_NE(usage_text(vars).find("LOCAL_WORLD_SIZE is set but LOCAL_RANK is not"), std::string::npos);
}

TEST(EnvSettings, ValuesInMessagesAreShortAndPrintable) {
  auto vars = torchrun();
  vars["RANK"] = std::string(1000, '7') + "\x01";
  const std::string text = usage_text(vars);
  EXPECT_LT(text.size(), 200U) << text;
  EXPECT_EQ(text.find('\x01'), std::string::npos);
}

TEST(EnvSettings, LocalRanksAreOptional) {
  auto vars = torchrun();
  vars.erase("LOCAL_RANK");
  vars.erase("LOCAL_WORLD_SIZE");
  const auto s = read_env_settings(lookup(vars));
  EXPECT_FALSE(s.local_rank.has_value());
  EXPECT_FALSE(s.local_world_size.has_value());
}

TEST(EnvSettings, NoSecretByDefault) {
  const auto s = read_env_settings(lookup(torchrun()));
  EXPECT_FALSE(s.secret.has_value());
}

TEST(EnvSettings, TheSecretFromTheEnvironment) {
  auto vars = torchrun();
  vars["DISTBENCH_JOB_SECRET"] = "0123456789abcdef-and-more";
  const auto s = read_env_settings(lookup(vars));
  ASSERT_TRUE(s.secret.has_value());
  EXPECT_EQ(*s.secret, "0123456789abcdef-and-more");
  EXPECT_EQ(s.secret_origin, "DISTBENCH_JOB_SECRET");
  vars["DISTBENCH_JOB_SECRET"] = "";  // set but empty: none
  EXPECT_FALSE(read_env_settings(lookup(vars)).secret.has_value());
}

TEST(EnvSettings, TheSecretFromAFileWithoutItsLineBreak) {
  const auto path = std::filesystem::temp_directory_path() / ("distbench_secret_" + std::to_string(::getpid()));
  std::ofstream(path) << "0123456789abcdef-from-a-file  \r\n";
  auto vars = torchrun();
  vars["DISTBENCH_JOB_SECRET_FILE"] = path.string();
  const auto s = read_env_settings(lookup(vars));
  ASSERT_TRUE(s.secret.has_value());
  EXPECT_EQ(*s.secret, "0123456789abcdef-from-a-file");
  EXPECT_NE(s.secret_origin.find("DISTBENCH_JOB_SECRET_FILE"), std::string::npos);
  vars["DISTBENCH_JOB_SECRET"] = "0123456789abcdef-from-a-variable";
  EXPECT_NE(usage_text(vars).find("DISTBENCH_JOB_SECRET_FILE and DISTBENCH_JOB_SECRET are both set: set one"),
            std::string::npos);
  std::filesystem::remove(path);
  vars.erase("DISTBENCH_JOB_SECRET");
  EXPECT_NE(usage_text(vars).find("cannot read the job secret file (DISTBENCH_JOB_SECRET_FILE)"), std::string::npos)
      << usage_text(vars);
}

TEST(EnvSettings, AShortSecretIsRefused) {
  auto vars = torchrun();
  vars["DISTBENCH_JOB_SECRET"] = "hunter2";
  const std::string text = usage_text(vars);
  EXPECT_NE(text.find("the job secret from DISTBENCH_JOB_SECRET is 7 bytes, fewer than 16"), std::string::npos) << text;
  EXPECT_EQ(text.find("hunter2"), std::string::npos) << "a secret is never shown";
}

}  // namespace
}  // namespace distbench::connectors
