// The one error type: where it was thrown reads as a path inside src/, never the build machine's folders.
#include "core/error.hpp"

#include <gtest/gtest.h>

#include <string>

namespace distbench {
namespace {

TEST(Error, WhereIsAPathInsideSrc) {
  EXPECT_EQ(Error::source_path("/home/ci/checkout/src/compare/command_run.cpp"), "compare/command_run.cpp");
  EXPECT_EQ(Error::source_path("../src/core/sys/text_file.cpp"), "core/sys/text_file.cpp");
  EXPECT_EQ(Error::source_path("src/cli/main.cpp"), "cli/main.cpp");
  EXPECT_EQ(Error::source_path("/home/me/src/distbench/src/model/model.cpp"), "model/model.cpp");  // the last src/
  EXPECT_EQ(Error::source_path("/opt/build/tests/unit/test_error.cpp"), "test_error.cpp");
  EXPECT_EQ(Error::source_path("main.cpp"), "main.cpp");
  EXPECT_EQ(Error::source_path(""), "");
}

// This file lies outside src/: its name alone, and the line of the throw.
TEST(Error, WhereNamesTheThrowingLine) {
  const unsigned line = __LINE__ + 1;
  const Error e = failure("boom");
  EXPECT_EQ(e.where(), "test_error.cpp:" + std::to_string(line));
  EXPECT_EQ(e.code(), ExitCode::failure);
}

}  // namespace
}  // namespace distbench
