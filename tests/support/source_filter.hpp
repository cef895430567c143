// Runs one test file's tests out of an executable that holds many: `--source=test_x.cpp` keeps the tests defined in
// that file (GoogleTest records each test's file), intersected with any --gtest_filter. Each file stays its own
// `meson test` entry while the files of a suite share one executable (one link instead of one per file).
#pragma once

#include <string>

namespace distbench::testing_support {

// Call after ::testing::InitGoogleTest. Removes --source=NAME[,NAME...] from argv and narrows GoogleTest's filter to
// the tests defined in files of those base names (a header of shared tests is named beside the file including it).
// Returns an error message when they hold no test, "" otherwise.
std::string narrow_to_source(int& argc, char** argv);

}  // namespace distbench::testing_support
