#include "compare/interleaved.hpp"

#include "compare/case_pool.hpp"
#include "core/error.hpp"
#include "core/report/report_file.hpp"
#include "core/report/text.hpp"
#include "core/sys/quote.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string_view>
#include <system_error>

namespace distbench::compare {
namespace {

namespace fs = std::filesystem;

void prepare_runs_dir(const std::string& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec)) {
      throw usage_error(fmt::format("--runs-dir {}: not a folder; name a new or empty folder", excerpt(dir)));
    }
    if (!fs::is_empty(dir, ec)) {
      throw usage_error(
          fmt::format("--runs-dir {}: the folder is not empty (earlier runs would mix with these); name "
                      "a new or empty folder",
                      excerpt(dir)));
    }
    return;
  }
  fs::create_directories(dir, ec);
  if (ec) throw usage_error(fmt::format("--runs-dir {}: cannot create it: {}", excerpt(dir), ec.message()));
}

// What the progress line adds about a run: processes it left behind (ended by its keeper), output the log left out.
std::string run_notes(const CommandOutcome& r) {
  std::string notes;
  if (r.left_behind > 0) {
    notes += fmt::format("; {} it left running ended", plural(r.left_behind, "process", "processes"));
  }
  if (r.output_dropped > 0) {
    notes += fmt::format("; {} of its {} bytes of output left out of its log", r.output_dropped, r.output_bytes);
  }
  return notes;
}

// The run's report, when the run can be judged: it ended in time with status 0 and wrote a readable report (throws
// Error(not_judged) naming the run otherwise, or Error(wrong_results) when a run that failed counted wrong elements).
ParsedReport judged_report(const CommandOutcome& r, const std::string& which, const std::string& report,
                           const std::string& log, double timeout_s) {
  if (r.timed_out) {
    throw Error(ExitCode::not_judged,
                fmt::format("{} outlived its {:g} s deadline (--run-timeout) and was ended with everything it started; "
                            "its output is in {} (last line: {})",
                            which, timeout_s, log, last_line_of(log)));
  }
  std::error_code ec;
  if (r.status != 0) {
    // A benchmark that finds wrong elements exits 3 with a complete report: that, not the status, is the news.
    if (fs::exists(report, ec)) {
      try {
        const ParsedReport parsed = read_report_file(report);
        if (const std::string wrong = detail::wrong_cases(parsed, {}); !wrong.empty()) {
          throw Error(ExitCode::wrong_results,
                      fmt::format("{} exited with status {} and its report counts wrong elements: {}; fix the results "
                                  "before judging the speed",
                                  which, r.status, wrong));
        }
      } catch (const Error& e) {
        if (e.code() == ExitCode::wrong_results) throw;
      }
    }
    throw Error(ExitCode::not_judged, fmt::format("{} exited with status {}; its output is in {} (last line: {})",
                                                  which, r.status, log, last_line_of(log)));
  }
  if (!fs::exists(report, ec)) {
    throw Error(ExitCode::not_judged,
                fmt::format("{} wrote no report at {}: end the command with distbench's arguments (--json PATH is "
                            "appended), or put {{report}} where the report's path goes",
                            which, report));
  }
  try {
    return read_report_file(report);
  } catch (const Error& e) {
    throw Error(ExitCode::not_judged,
                fmt::format("{} wrote a report the gate cannot read: {}; its output is in {}", which, e.what(), log));
  }
}

}  // namespace

std::string command_with_report(const std::string& command) {
  const std::string token = "{report}";
  const std::string reference = fmt::format("${{{}}}", kReportVariable);
  if (command.find(token) == std::string::npos) return fmt::format("{} --json \"{}\"", command, reference);
  std::string out = command;
  for (auto pos = out.find(token); pos != std::string::npos; pos = out.find(token, pos + reference.size())) {
    out.replace(pos, token.size(), reference);
  }
  return out;
}

void check_runs_dir_name(const std::string& dir, const std::string& what) {
  constexpr std::string_view kPlain = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-";
  const bool plain = !dir.empty() && std::all_of(dir.begin(), dir.end(), [&](char c) {
    return static_cast<unsigned char>(c) >= 0x80 || kPlain.find(c) != std::string_view::npos;  // UTF-8 is plain
  });
  if (plain) return;
  throw usage_error(
      fmt::format("{} {}: a runs' folder may hold letters, digits and _ @ % + = : , . / - only (the "
                  "report's path reaches each command as $DISTBENCH_REPORT, and a shell inside a shell "
                  "could read other characters as code); name another with --runs-dir",
                  what, excerpt(dir)));
}

InterleavedRuns run_interleaved(const InterleavedPlan& plan, CommandRunner& runner,
                                const std::function<void(const std::string&)>& progress) {
  if (plan.rounds < 1) throw usage_error("--rounds must be 1 or more");
  if (plan.baseline_command.empty() || plan.candidate_command.empty()) {
    throw usage_error("an interleaved comparison needs both --run-baseline and --run-candidate");
  }
  check_runs_dir_name(plan.runs_dir, "--runs-dir");
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
      const std::string command = command_with_report(is_baseline ? plan.baseline_command : plan.candidate_command);
      const CommandOutcome r =
          runner.run(command, log, plan.run_timeout_s, {fmt::format("{}={}", kReportVariable, report)});
      ++done;
      const std::string which = fmt::format("round {}'s {} run", round, side);
      ParsedReport parsed = judged_report(r, which, report, log, plan.run_timeout_s);
      (is_baseline ? out.baseline : out.candidate).push_back(std::move(parsed));
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      progress(fmt::format("[{}/{}] round {} {}: {:.1f} s; about {:.0f} s left{}", done, total, round, side, r.seconds,
                           elapsed / done * (total - done), run_notes(r)));
    }
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace distbench::compare
