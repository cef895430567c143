// ensure_open_files(): a soft open-file limit below what an env:// rank needs is raised (its links, rank 0's
// admissions); a hard limit below it is one error naming both numbers. Each case runs in a child process (gtest's
// death tests fork): the limits it sets stay there.
#include "connectors/open_files.hpp"

#include "connectors/admission.hpp"
#include "core/error.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdlib>
#include <string>

namespace distbench::connectors {
namespace {

void set_limits(rlim_t soft, rlim_t hard) {
  rlimit l{soft, hard};
  if (setrlimit(RLIMIT_NOFILE, &l) != 0) std::exit(90);
}

rlim_t soft_limit() {
  rlimit l{};
  getrlimit(RLIMIT_NOFILE, &l);
  return l.rlim_cur;
}

TEST(OpenFiles, ALinkAPeerAndRankZerosAdmissions) {
  EXPECT_EQ(open_files_needed(3, 1000) + kMaxPending + 1, open_files_needed(0, 1000));
  EXPECT_EQ(open_files_needed(3, 1000) - open_files_needed(3, 500), 500u);
  EXPECT_GE(open_files_needed(1, 1), 64u);  // alone: no links, the files it always has
}

TEST(OpenFiles, ASoftLimitBelowTheNeedIsRaised) {
  EXPECT_EXIT(
      {
        set_limits(100, 4096);
        const auto after = ensure_open_files(5, 2000);
        std::exit(after == open_files_needed(5, 2000) && soft_limit() == after ? 0 : 1);
      },
      testing::ExitedWithCode(0), "");
}

TEST(OpenFiles, RankZerosRoomForAdmissionsIsTakenAsFarAsTheHardLimitGoes) {
  EXPECT_EXIT(
      {
        set_limits(100, 2100);  // the links' need (2063) fits, their room for admissions does not
        std::exit(ensure_open_files(0, 2000) == 2100 && soft_limit() == 2100 ? 0 : 1);
      },
      testing::ExitedWithCode(0), "");
}

TEST(OpenFiles, AnAmpleLimitIsLeftAsItIs) {
  EXPECT_EXIT(
      {
        set_limits(3000, 4096);
        std::exit(ensure_open_files(5, 100) == 3000 && soft_limit() == 3000 ? 0 : 1);
      },
      testing::ExitedWithCode(0), "");
}

TEST(OpenFiles, AHardLimitBelowTheNeedIsOneErrorNamingIt) {
  EXPECT_EXIT(
      {
        set_limits(100, 1024);
        try {
          ensure_open_files(0, 2000);
        } catch (const Error& e) {
          const std::string m = e.what();
          std::exit(e.code() == ExitCode::unavailable &&
                            m.find("rank 0 of 2000 needs about 2063 open files") != std::string::npos &&
                            m.find("at most 1024 (hard limit, ulimit -Hn)") != std::string::npos && soft_limit() == 100
                        ? 0
                        : 2);
        }
        std::exit(1);
      },
      testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace distbench::connectors
