// The one line for a command line that does not parse: what is wrong in words, the option named as it may be typed
// (-T/--timeout), a "did you mean" for a typo, and where to look; never CLI11's own phrasing.
#pragma once

#include <string>

namespace CLI {
class App;
class Option;
class ParseError;
}  // namespace CLI

namespace distbench::cli {

// Throws usage_error, before CLI11 parses, for what it would answer with "A subcommand is required": no command at
// all, an unknown command, an option other than --help or --version before the command.
void check_command_word(const CLI::App& root, int argc, char** argv);

// An option's names as the user may type them: "-T/--timeout", "--json" (a positional: its name, "FILE").
std::string shown_names(const CLI::Option& opt);

// The message for `e`, thrown while `root` parsed the command line (without the "error: " main adds).
std::string parse_error_text(const CLI::App& root, const CLI::ParseError& e);

}  // namespace distbench::cli
