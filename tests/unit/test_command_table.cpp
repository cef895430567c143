// The commands table: every *_cmd.cpp has one entry, each entry adds commands and what runs them, and main finds a
// command, and "did you mean" its candidates, through what the table added.
#include "cli/command_table.hpp"
#include "cli/parse_errors.hpp"
#include "core/error.hpp"

#include <gtest/gtest.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace distbench::cli {
namespace {

// Whether `app` is `command`'s app or one of the apps above it.
bool at_or_above(const CLI::App* app, const Command& command) {
  for (const CLI::App* a = command.app; a != nullptr; a = a->get_parent()) {
    if (a == app) return true;
  }
  return false;
}

TEST(CommandTable, EachEntryAddsCommandsAndWhatRunsEachOfThem) {
  for (const CommandEntry& entry : command_table()) {
    CLI::App root;
    Commands commands;
    entry.add(root, commands);
    EXPECT_FALSE(commands.empty()) << entry.file;
    const auto subs = root.get_subcommands([](const CLI::App*) { return true; });
    EXPECT_FALSE(subs.empty()) << entry.file;
    for (const CLI::App* sub : subs) {  // nothing typed that no Command runs
      EXPECT_TRUE(
          std::any_of(commands.begin(), commands.end(), [sub](const Command& c) { return at_or_above(sub, c); }))
          << entry.file << ": '" << sub->get_name() << "' has no Command";
      EXPECT_FALSE(sub->get_description().empty()) << sub->get_name();
      EXPECT_NE(sub->get_group(), "Subcommands") << sub->get_name() << ": no help section of its own";
    }
    for (const Command& c : commands) EXPECT_TRUE(static_cast<bool>(c.run)) << entry.file;
  }
}

TEST(CommandTable, EveryCommandFileHasOneEntry) {
  const char* source_root = std::getenv("DISTBENCH_SOURCE_ROOT");
  ASSERT_NE(source_root, nullptr) << "run through meson test (DISTBENCH_SOURCE_ROOT names the sources)";
  std::multiset<std::string> in_table;
  for (const CommandEntry& entry : command_table()) in_table.insert(std::string(entry.file));
  std::multiset<std::string> on_disk;
  for (const auto& f : std::filesystem::directory_iterator(std::filesystem::path(source_root) / "src" / "cli")) {
    const std::string name = f.path().filename().string();
    if (name.size() > 8 && name.ends_with("_cmd.cpp")) on_disk.insert(name);
  }
  EXPECT_EQ(in_table, on_disk);
}

TEST(CommandTable, FindsACommandByTheWordTypedFirst) {
  CLI::App root;
  const Commands commands = add_commands(root);
  std::set<std::string> words;
  for (const CLI::App* sub : root.get_subcommands([](const CLI::App*) { return true; })) {
    EXPECT_TRUE(words.insert(sub->get_name()).second) << sub->get_name() << " twice";
    const Command* found = find_command(commands, sub->get_name());
    ASSERT_NE(found, nullptr) << sub->get_name();
    EXPECT_TRUE(at_or_above(sub, *found)) << sub->get_name();
  }
  for (const char* word : {"allreduce", "latency", "health", "zero", "train", "tp", "compare", "model", "list", "info",
                           "hostfile", "report"}) {
    EXPECT_TRUE(words.count(word)) << word;
  }
  EXPECT_EQ(find_command(commands, "hostfile")->app->get_name(), "check");  // the command of a command
  EXPECT_EQ(find_command(commands, "check"), nullptr);
  EXPECT_EQ(find_command(commands, "latncy"), nullptr);
}

TEST(CommandTable, DidYouMeanOffersTheTablesCommands) {
  CLI::App root;
  const Commands commands = add_commands(root);
  std::vector<std::string> storage = {"distbench", "latncy"};
  std::vector<char*> argv;
  for (auto& s : storage) argv.push_back(s.data());
  try {
    check_command_word(root, static_cast<int>(argv.size()), argv.data());
    ADD_FAILURE() << "a mistyped command passed";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "unknown command 'latncy'; did you mean 'latency'?");
  }
}

}  // namespace
}  // namespace distbench::cli
