// The one line for a command line that does not parse: CLI11's exceptions turned into words that name the option as
// it may be typed, with "did you mean" for typos, and the words before the command checked first.
#include "cli/parse_errors.hpp"
#include "cli/validators.hpp"

#include "core/error.hpp"

#include <gtest/gtest.h>
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace distbench::cli {
namespace {

// A small distbench: "bench run [-T SECONDS] [-n N] [--maxbytes S] [--quiet]" and "bench files check FILE".
struct Tool {
  CLI::App app{"test", "bench"};
  double timeout = 300;
  int iters = 20;
  std::string maxbytes = "64M";
  bool quiet = false;
  std::string file;

  Tool() {
    auto* run = app.add_subcommand("run", "Run");
    run->add_option("-T,--timeout", timeout, "Seconds")->check(positive_number("seconds"));
    run->add_option("-n,--iters", iters, "Samples");
    run->add_option("--maxbytes", maxbytes, "Largest size");
    run->add_flag("--quiet", quiet, "Say less");
    auto* files = app.add_subcommand("files", "Files");
    files->require_subcommand(1);
    files->add_subcommand("check", "Check one")->add_option("FILE", file, "the file to check")->required();
    app.require_subcommand(1);
  }

  // The message for `args`, or "parsed" when they parse.
  std::string error(std::vector<std::string> args) {
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes the arguments in reverse
    try {
      app.parse(reversed);
    } catch (const CLI::ParseError& e) {
      return parse_error_text(app, e);
    }
    return "parsed";
  }
};

TEST(ParseErrors, AValueARuleRefusesNamesTheOption) {
  EXPECT_EQ(Tool().error({"run", "-T", "-1"}),
            "-T/--timeout: -1 is not a positive number of seconds; see 'bench run --help'");
  EXPECT_EQ(Tool().error({"run", "-n", "many"}), "-n/--iters: 'many' is not a whole number; see 'bench run --help'");
  EXPECT_EQ(Tool().error({"run", "--quiet=maybe"}),
            "--quiet: 'maybe' is not true or false (the flag alone means true); see 'bench run --help'");
  EXPECT_EQ(Tool().error({"run", "-T"}), "-T/--timeout needs a value; see 'bench run --help'");
  EXPECT_EQ(Tool().error({"run", "-T", "5"}), "parsed");
}

TEST(ParseErrors, AnUnknownOptionGetsADidYouMean) {
  EXPECT_EQ(Tool().error({"run", "--maxbyte", "1M"}), "unknown option '--maxbyte' for run; did you mean '--maxbytes'?");
  EXPECT_EQ(Tool().error({"run", "--maxbyte=1M"}), "unknown option '--maxbyte' for run; did you mean '--maxbytes'?");
  EXPECT_EQ(Tool().error({"run", "--colour"}), "unknown option '--colour' for run; see 'bench run --help'");
  EXPECT_EQ(Tool().error({"run", "extra"}), "unexpected argument 'extra'; see 'bench run --help'");
}

TEST(ParseErrors, ACommandOfACommand) {
  EXPECT_EQ(Tool().error({"files", "chek", "x"}), "unknown files command 'chek'; did you mean 'check'?");
  EXPECT_EQ(Tool().error({"files"}), "bench files needs a command: check; see 'bench files --help'");
  EXPECT_EQ(Tool().error({"files", "check"}), "FILE is missing: the file to check; see 'bench files check --help'");
}

// The message check_command_word throws for `args` (after the program's name), or "ok".
std::string command_word(std::vector<std::string> args) {
  Tool tool;
  std::vector<std::string> storage = {"bench"};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : storage) argv.push_back(s.data());
  try {
    check_command_word(tool.app, static_cast<int>(argv.size()), argv.data());
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    return e.what();
  }
  return "ok";
}

TEST(ParseErrors, TheWordBeforeTheCommand) {
  EXPECT_EQ(command_word({"run"}), "ok");
  EXPECT_EQ(command_word({"--help"}), "ok");
  EXPECT_EQ(command_word({"rnu"}), "unknown command 'rnu'; did you mean 'run'?");
  EXPECT_NE(command_word({"frobnicate"}).find("unknown command 'frobnicate'; 'distbench list'"), std::string::npos);
  EXPECT_NE(command_word({}).find("a command is needed"), std::string::npos);
  const std::string dash = command_word({"-v"});
  EXPECT_NE(dash.find("unknown option '-v'"), std::string::npos) << dash;
  EXPECT_NE(dash.find("--version"), std::string::npos) << dash;
  EXPECT_NE(dash.find("--help"), std::string::npos) << dash;
}

}  // namespace
}  // namespace distbench::cli
