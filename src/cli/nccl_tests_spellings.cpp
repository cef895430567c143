#include "cli/nccl_tests_spellings.hpp"

#include <array>
#include <string_view>
#include <utility>

namespace distbench::cli {
namespace {

// nccl-tests 2.x's long names (its getopt table) that differ from distbench's; the others are spelt alike.
constexpr std::array<std::pair<std::string_view, std::string_view>, 9> kSpellings{{
    {"--warmup_iters", "--warmup-iters"},
    {"--agg_iters", "--agg-iters"},
    {"--run_cycles", "--run-cycles"},
    {"--report_timestamps", "--report-timestamps"},
    {"--report_cputime", "--report-cputime"},
    {"--local_register", "--register"},
    {"--output_file", "--output-file"},
    {"--per_iter_timing", "--per-iter-timing"},
    {"--per_iter_skip", "--per-iter-skip"},
}};

std::string respelt(std::string_view arg) {
  for (const auto& [theirs, ours] : kSpellings) {
    if (arg == theirs) return std::string(ours);
    if (arg.starts_with(theirs) && arg.size() > theirs.size() && arg[theirs.size()] == '=') {
      return std::string(ours) + std::string(arg.substr(theirs.size()));
    }
  }
  return std::string(arg);
}

}  // namespace

std::vector<std::string> with_distbench_spellings(int argc, const char* const* argv) {
  std::vector<std::string> out;
  for (int i = 0; i < argc; ++i) {
    const std::string_view arg = argv[i];
    out.push_back(respelt(arg));
    if (arg == "--") {  // after it, nothing is an option
      for (++i; i < argc; ++i) out.emplace_back(argv[i]);
    }
  }
  return out;
}

std::optional<Warning> short_json_note(const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    if (arg == "--") break;
    if (arg.starts_with("-J")) {
      return Warning{"json_short_flag", "-J writes nccl-tests' JSON now, as nccl-tests' -J does; distbench's: --json"};
    }
  }
  return std::nullopt;
}

}  // namespace distbench::cli
