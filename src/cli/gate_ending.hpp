// How both gates (`compare` and `history check`) end: the view on stdout or in --output (then a one-line outcome on
// stdout), the warnings on stderr, and the exit code: 1 when a case got SLOWER, 7 when the gate could not judge
// (with its `error:` line), else 0.
#pragma once

#include "compare/comparison.hpp"

#include <string>

namespace distbench::cli {

int end_gate(const compare::Comparison& c, const std::string& view, const std::string& output);

}  // namespace distbench::cli
