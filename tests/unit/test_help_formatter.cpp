// --help as a user reads it: the width it is wrapped to (COLUMNS, the terminal, 100), the wrapping with a hanging
// indent, and the formatter: groups in their order, a value's name and its default in one style, hidden options not
// shown, no line wider than the width.
#include "cli/help_formatter.hpp"
#include "cli/option_groups.hpp"

#include <gtest/gtest.h>
#include <CLI/CLI.hpp>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace distbench::cli {
namespace {

std::vector<std::string> help_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::size_t widest_line(const std::string& text) {
  std::size_t w = 0;
  for (const std::string& line : help_lines(text)) w = std::max(w, display_width(line));
  return w;
}

TEST(HelpWidth, ColumnsWinsThenTheTerminalThenOneHundred) {
  EXPECT_EQ(help_width(nullptr, std::nullopt), 100u);  // not a terminal: a log, a pipe
  EXPECT_EQ(help_width(nullptr, 132), 132u);
  EXPECT_EQ(help_width("80", 132), 80u);
  EXPECT_EQ(help_width("80", std::nullopt), 80u);
  EXPECT_EQ(help_width("", 132), 132u);      // set but empty: as if unset
  EXPECT_EQ(help_width("wide", 132), 132u);  // not a number
  EXPECT_EQ(help_width("80x", std::nullopt), 100u);
  EXPECT_EQ(help_width("0", std::nullopt), 100u);
  EXPECT_EQ(help_width("10", std::nullopt), kMinHelpWidth);  // never narrower than this
  EXPECT_EQ(help_width(nullptr, 20), kMinHelpWidth);
}

TEST(WrapText, BreaksAtSpacesWithinTheWidth) {
  EXPECT_EQ(wrap_text("the quick brown fox jumps", 10), (std::vector<std::string>{"the quick", "brown fox", "jumps"}));
  EXPECT_EQ(wrap_text("exactly ten", 11), (std::vector<std::string>{"exactly ten"}));
  EXPECT_EQ(wrap_text("a  b   c", 80), (std::vector<std::string>{"a b c"}));  // spaces between words collapse
  EXPECT_EQ(wrap_text("", 10), (std::vector<std::string>{""}));
}

TEST(WrapText, KeepsLineBreaksAndCutsWordsWiderThanALine) {
  EXPECT_EQ(wrap_text("one\n\ntwo", 10), (std::vector<std::string>{"one", "", "two"}));
  EXPECT_EQ(wrap_text("abcdefghij klm", 4), (std::vector<std::string>{"abcd", "efgh", "ij", "klm"}));
}

TEST(WrapText, CountsCharactersNotBytesAndKeepsNoBreakSpacesTogether) {
  EXPECT_EQ(display_width("Ψ, the parameters"), 17u);
  EXPECT_EQ(wrap_text("ΨΨΨ ΨΨ", 5), (std::vector<std::string>{"ΨΨΨ", "ΨΨ"}));
  const std::string text = std::string("a description (default:") + kNoBreakSpace + "64M)";
  EXPECT_EQ(wrap_text(text, 20), (std::vector<std::string>{"a description", "(default: 64M)"}));
}

TEST(Hanging, IndentsContinuationLinesUnderTheText) {
  EXPECT_EQ(hanging("  -n N", "timed samples per case", 10, 24), "  -n N    timed samples\n          per case\n");
  EXPECT_EQ(hanging("  --flag", "", 10, 24), "  --flag\n");
  // A head that leaves less than two spaces: the text starts on the next line.
  EXPECT_EQ(hanging("  --very-long-name", "text", 10, 24), "  --very-long-name\n          text\n");
}

TEST(WrapFooterLine, ContinuesUnderTheSecondColumn) {
  EXPECT_EQ(wrap_footer_line("  0  short", 40), "  0  short\n");
  EXPECT_EQ(wrap_footer_line("  130, 143  interrupted by a signal; the report keeps every case", 40),
            "  130, 143  interrupted by a signal; the\n"
            "            report keeps every case\n");
  EXPECT_EQ(wrap_footer_line("A hostfile lists one host per line, in one of two formats", 40),
            "A hostfile lists one host per line, in\none of two formats\n");
}

// A subcommand much like distbench's: its own group, shared groups added out of order, a hidden option.
struct HelpedTool {
  CLI::App root{"tool", "tool"};
  CLI::App* run = nullptr;
  int iters = 20;
  std::string json, stage = "all";
  bool quiet = false;
  int threads = 1;

  explicit HelpedTool(std::size_t width) {
    root.formatter(std::make_shared<HelpFormatter>(width));
    root.option_defaults()->always_capture_default();
    run = root.add_subcommand("run", "Runs the thing, measuring how fast it goes");
    run->footer("Exit codes:\n  0  success\n  2  bad input (options, sizes, files); nothing was run");
    run->add_option("-J,--json", json, "Write a JSON report here")->option_text("PATH")->group(groups::kReports);
    run->add_option("-n,--iters", iters, "Timed samples per case, taken after the warm-up operations")
        ->option_text("N")
        ->group(groups::kSampling);
    run->add_flag("-q,--quiet", quiet, "No table")->group(groups::kReports);
    run->add_option("--stage", stage, "Which stage runs")->option_text("STAGE")->group("Step");
    run->add_option("-t,--nthreads", threads, "nccl-tests' threads")->group(groups::kHidden);
  }
  std::string help() const { return run->help(); }
};

TEST(HelpFormatter, ShowsTheOwnGroupFirstThenTheSharedOnesInTheirOrder) {
  const std::string help = HelpedTool(100).help();
  const auto step = help.find("\nStep:\n");
  const auto sampling = help.find("\nSampling:\n");
  const auto reports = help.find("\nReports:\n");
  const auto codes = help.find("\nExit codes:\n");
  ASSERT_NE(step, std::string::npos) << help;
  EXPECT_LT(step, sampling) << help;
  EXPECT_LT(sampling, reports) << help;
  EXPECT_LT(reports, codes) << help;
  EXPECT_EQ(help.find("--nthreads"), std::string::npos) << help;  // hidden
  EXPECT_EQ(help.find("--help"), std::string::npos) << help;      // a subcommand's help need not list itself
  EXPECT_EQ(help_lines(help).back(), "  2  bad input (options, sizes, files); nothing was run");
}

TEST(HelpFormatter, NamesTheValueAndEndsTheDescriptionWithTheDefault) {
  const std::string help = HelpedTool(100).help();
  EXPECT_NE(help.find("  -n, --iters N "), std::string::npos) << help;
  EXPECT_NE(help.find("Timed samples per case, taken after the warm-up operations (default: 20)\n"), std::string::npos)
      << help;
  EXPECT_NE(help.find("      --stage STAGE "), std::string::npos) << help;  // under the long names
  EXPECT_NE(help.find("Which stage runs (default: all)"), std::string::npos) << help;
  EXPECT_NE(help.find("  -q, --quiet "), std::string::npos) << help;
  EXPECT_NE(help.find("No table\n"), std::string::npos) << help;                  // a flag: no value, no default
  EXPECT_NE(help.find("Write a JSON report here\n"), std::string::npos) << help;  // no default: none shown
  for (const char* placeholder : {"TEXT", "INT", "FLOAT", "=20", "=["}) {
    EXPECT_EQ(help.find(placeholder), std::string::npos) << placeholder << "\n" << help;
  }
}

TEST(HelpFormatter, WrapsEveryLineToTheWidth) {
  for (std::size_t width : {40u, 60u, 100u}) {
    const std::string help = HelpedTool(width).help();
    EXPECT_LE(widest_line(help), width) << help;
  }
  const std::string narrow = HelpedTool(40).help();
  EXPECT_NE(narrow.find("Timed samples per case,\n"), std::string::npos) << narrow;
}

}  // namespace
}  // namespace distbench::cli
