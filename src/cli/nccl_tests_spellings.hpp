// nccl-tests' long option names where distbench spells them otherwise (--warmup_iters for --warmup-iters, ...), so
// that command lines written for nccl-tests run as they are.
#pragma once

#include "core/report/record.hpp"

#include <optional>
#include <string>
#include <vector>

namespace distbench::cli {

// The command line with each nccl-tests spelling replaced by distbench's (alone, or before '=value'); everything
// else as it was.
std::vector<std::string> with_distbench_spellings(int argc, const char* const* argv);

// A collective's -J is nccl-tests' (its JSON), where distbench's -J was --json: one note when the arguments use it.
std::optional<Warning> short_json_note(const std::vector<std::string>& args);

}  // namespace distbench::cli
