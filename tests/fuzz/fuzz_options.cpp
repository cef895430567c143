// Fuzz target: the command line of a collective (`distbench allreduce -b 8 -e 1M -d float32 ...`), parsed as main
// parses it and turned into a plan, never run (no MPI, no ranks). The input is the arguments after `distbench`,
// separated by NUL bytes or newlines; the first names the command. A command line that does not parse goes
// through parse_error_text, the one line main prints; --help is formatted as main would print it.
#include "cli/collective_options.hpp"
#include "cli/parse_errors.hpp"
#include "cli/validators.hpp"
#include "core/device/collective.hpp"

#include "fuzz_support.hpp"

#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace distbench;
using distbench::collective::SweepPlan;

// The arguments, at most 64 of them (longer command lines only slow the fuzzer down).
std::vector<std::string> arguments(std::string_view text) {
  std::vector<std::string> out = {"distbench"};
  while (!text.empty() && out.size() <= 64) {
    const auto end = text.find_first_of(std::string_view("\0\n", 2));
    out.emplace_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return out;
}

struct Tool {
  CLI::App app{"distbench (fuzz)", "distbench"};
  std::vector<std::pair<Collective, CLI::App*>> commands;
  std::vector<std::unique_ptr<cli::CollectiveOptions>> options;

  Tool() {
    app.formatter(std::make_shared<cli::RuleFormatter>());
    app.require_subcommand(1);
    app.option_defaults()->always_capture_default();
    for (Collective c : all_collectives()) {
      auto* sub = app.add_subcommand(std::string(name(c)), "a collective");
      options.push_back(std::make_unique<cli::CollectiveOptions>());
      cli::add_collective_options(*sub, *options.back());
      commands.emplace_back(c, sub);
    }
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args = arguments(fuzz::as_text(data, size));
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  // One tool for the whole run (building CLI11's tables takes 30 ms under ASan, a new one per input would fuzz 30
  // inputs a second): CLI11's results are cleared and every options struct is reset to its defaults in place (the
  // options are bound to its members), so each input is parsed as on a fresh command line.
  static Tool& tool = *new Tool;
  tool.app.clear();
  for (auto& o : tool.options) *o = cli::CollectiveOptions{};
  fuzz::expecting_errors([&] {
    cli::check_command_word(tool.app, static_cast<int>(argv.size()), argv.data());
    try {
      tool.app.parse(static_cast<int>(argv.size()), argv.data());
    } catch (const CLI::CallForHelp&) {
      (void)tool.app.help();
      return;
    } catch (const CLI::CallForAllHelp&) {
      (void)tool.app.help("", CLI::AppFormatMode::All);
      return;
    } catch (const CLI::CallForVersion&) {
      return;
    } catch (const CLI::ParseError& e) {
      FUZZ_EXPECT(!cli::parse_error_text(tool.app, e).empty());
      return;
    }
    for (std::size_t k = 0; k < tool.commands.size(); ++k) {
      if (!tool.commands[k].second->parsed()) continue;
      const auto& o = *tool.options[k];
      const SweepPlan plan = cli::make_plan(tool.commands[k].first, o);
      FUZZ_EXPECT(!plan.sizes.empty());
      (void)cli::stopping_rule(o.sampling);
      (void)cli::backend_options(o.common);
    }
  });
  return 0;
}
