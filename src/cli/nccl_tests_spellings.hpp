// nccl-tests' long option names where distbench spells them otherwise (--warmup_iters for --warmup-iters, ...), so
// that command lines written for nccl-tests run as they are.
#pragma once

#include <string>
#include <vector>

namespace distbench::cli {

// The command line with each nccl-tests spelling replaced by distbench's (alone, or before '=value'); everything
// else as it was.
std::vector<std::string> with_distbench_spellings(int argc, const char* const* argv);

}  // namespace distbench::cli
