#include "compare/interleaved.hpp"

#include "core/error.hpp"
#include "core/report/report_file.hpp"
#include "core/sys/quote.hpp"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <system_error>

namespace distbench {
namespace {

namespace fs = std::filesystem;

void prepare_runs_dir(const std::string& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec)) {
      throw usage_error(fmt::format("--runs-dir {}: not a folder; name a new or empty folder", excerpt(dir)));
    }
    if (!fs::is_empty(dir, ec)) {
      throw usage_error(fmt::format("--runs-dir {}: the folder is not empty (earlier runs would mix with these); name "
                                    "a new or empty folder",
                                    excerpt(dir)));
    }
    return;
  }
  fs::create_directories(dir, ec);
  if (ec) throw usage_error(fmt::format("--runs-dir {}: cannot create it: {}", excerpt(dir), ec.message()));
}

}  // namespace

std::string command_with_report(const std::string& command, const std::string& report_path) {
  const std::string token = "{report}";
  const auto at = command.find(token);
  if (at == std::string::npos) return command + " --json " + shell_quote(report_path);
  std::string out = command;
  for (auto pos = out.find(token); pos != std::string::npos; pos = out.find(token, pos)) {
    const std::string quoted = shell_quote(report_path);
    out.replace(pos, token.size(), quoted);
    pos += quoted.size();
  }
  return out;
}

InterleavedRuns run_interleaved(const InterleavedPlan& plan, CommandRunner& runner,
                                const std::function<void(const std::string&)>& progress) {
  if (plan.rounds < 1) throw usage_error("--rounds must be 1 or more");
  if (plan.baseline_command.empty() || plan.candidate_command.empty()) {
    throw usage_error("an interleaved comparison needs both --run-baseline and --run-candidate");
  }
  prepare_runs_dir(plan.runs_dir);
  InterleavedRuns out;
  const auto start = std::chrono::steady_clock::now();
  const int total = plan.rounds * 2;
  int done = 0;
  for (int round = 1; round <= plan.rounds; ++round) {
    const bool baseline_first = round % 2 == 1;
    for (int turn = 0; turn < 2; ++turn) {
      const bool is_baseline = (turn == 0) == baseline_first;
      const std::string side = is_baseline ? "baseline" : "candidate";
      const std::string stem = (fs::path(plan.runs_dir) / fmt::format("round{:02}-{}", round, side)).string();
      const std::string report = stem + ".json", log = stem + ".log";
      const std::string command =
          command_with_report(is_baseline ? plan.baseline_command : plan.candidate_command, report);
      const CommandOutcome r = runner.run(command, log, plan.run_timeout_s);
      ++done;
      const std::string which = fmt::format("round {}'s {} run", round, side);
      if (r.timed_out) {
        throw Error(ExitCode::not_judged,
                    fmt::format("{} outlived its {:g} s deadline (--run-timeout) and was ended; its output is in {} "
                                "(last line: {})",
                                which, plan.run_timeout_s, log, last_line_of(log)));
      }
      if (r.status != 0) {
        throw Error(ExitCode::not_judged, fmt::format("{} exited with status {}; its output is in {} (last line: {})",
                                                      which, r.status, log, last_line_of(log)));
      }
      std::error_code ec;
      if (!fs::exists(report, ec)) {
        throw Error(ExitCode::not_judged,
                    fmt::format("{} wrote no report at {}: end the command with distbench's arguments (--json PATH is "
                                "appended), or put {{report}} where the report's path goes",
                                which, report));
      }
      ParsedReport parsed = read_report_file(report);
      (is_baseline ? out.baseline : out.candidate).push_back(std::move(parsed));
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      progress(fmt::format("[{}/{}] round {} {}: {:.1f} s; about {:.0f} s left", done, total, round, side, r.seconds,
                           elapsed / done * (total - done)));
    }
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace distbench
