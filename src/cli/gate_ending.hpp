// How both gates (`compare` and `history check`) end: the view on stdout or in --output (then a one-line outcome on
// stdout), the warnings on stderr, and the exit code: 1 when a case got SLOWER, 7 when the gate could not judge
// (with its `error:` line), else 0; 8 when it failed to run (an error it could not run past).
#pragma once

#include "compare/comparison.hpp"
#include "core/error.hpp"

#include <string>

namespace distbench::cli {

int end_gate(const compare::Comparison& c, const std::string& view, const std::string& output);
// The gates' exit code for an error they could not run past: a runtime failure is 8, never 1 (a regression); the
// others keep their own (2 bad input, 3 wrong elements, 7 not judged).
int gate_exit_code_of_error(ExitCode error);

}  // namespace distbench::cli
