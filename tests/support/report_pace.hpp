// Reporters rewrite their file after an add only once the pace allows (core/report/report_output.hpp: at most every
// 20 times what the last rewrite took); a test that reads the file right after an add first lets well over that
// pass for a file this small.
#pragma once

#include <chrono>
#include <thread>

namespace distbench::test_support {

inline void let_the_pace_pass() { std::this_thread::sleep_for(std::chrono::milliseconds(200)); }

}  // namespace distbench::test_support
