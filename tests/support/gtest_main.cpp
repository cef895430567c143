// main() of the executables that hold a whole suite's test files: GoogleTest's, plus --source=test_x.cpp to run one
// file's tests (tests/support/source_filter.hpp); meson declares one test per file that way.
#include "tests/support/source_filter.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const std::string problem = distbench::testing_support::narrow_to_source(argc, argv);
  if (!problem.empty()) {
    std::fprintf(stderr, "error: %s\n", problem.c_str());
    return 2;
  }
  return RUN_ALL_TESTS();
}
