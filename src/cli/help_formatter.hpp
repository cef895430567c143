// distbench's --help, through CLI11's Formatter hooks: the options in their groups (cli/option_groups.hpp: the
// subcommand's own first, then Sweep, Sampling, Verification, Reports, Output, Backend, Launch; never groups::kHidden),
// each written "-b, --minbytes SIZE" with its description ending in its default, "(default: 8)"; everything wrapped to
// the width of the terminal with a hanging indent; the footer (where to read more, the exit codes) last. An option's
// value is named by CLI11's Option::option_text ("SIZE", "N", "PATH"), its default by Option::default_str (captured
// from the variable, or set where it depends on other options); neither CLI11's type names (TEXT, FLOAT) nor its "=8"
// show.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace distbench::cli {

// The narrowest width help is wrapped to.
inline constexpr std::size_t kMinHelpWidth = 40;
// A space wrap_text never breaks a line at (it writes a plain space): "(default:" stays with its value.
inline constexpr char kNoBreakSpace = '\x1f';

// The width help is wrapped to: `columns_env` (the COLUMNS variable) when it is a whole number, else the terminal's
// columns when stdout is a terminal (`terminal_columns`), else 100; never below kMinHelpWidth.
std::size_t help_width(const char* columns_env, std::optional<std::size_t> terminal_columns);
// The columns of the terminal stdout writes to; nullopt when it is not a terminal.
std::optional<std::size_t> stdout_terminal_columns();

// Characters `text` takes on a terminal: UTF-8 code points ("Ψ" is one).
std::size_t display_width(std::string_view text);
// `text` as lines of at most `width` characters, broken at spaces (a word longer than `width` is cut); its own line
// breaks are kept, and kNoBreakSpace is written as a space where no line breaks.
std::vector<std::string> wrap_text(std::string_view text, std::size_t width);
// `head`, then `text` from column `indent`, wrapped to `width`, every further line indented to `indent` (a hanging
// indent). When `head` leaves `text` less than two spaces, `text` starts on the next line. Ends with a newline.
std::string hanging(std::string_view head, std::string_view text, std::size_t indent, std::size_t width);
// A footer's line wrapped to `width`, its continuation lines indented to where its second column starts ("  0    ok"
// goes on under "ok"), or to its own indentation. Ends with a newline.
std::string wrap_footer_line(std::string_view line, std::size_t width);

class HelpFormatter : public CLI::Formatter {
 public:
  // `width` 0: help_width() of the environment each time help is made.
  explicit HelpFormatter(std::size_t width = 0);

  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override;
  // "-b, --minbytes"; "--csv"; "FILE" (a positional). make_help indents a long name alone under the long names.
  std::string make_option_name(const CLI::Option* option, bool is_positional) const override;
  // " SIZE": the option's value name; nothing for a flag.
  std::string make_option_opts(const CLI::Option* option) const override;
  // The description, then "(default: 64M)" when the option has a value and a default.
  std::string make_option_desc(const CLI::Option* option) const override;

 private:
  std::size_t width() const;
  std::size_t width_;
};

}  // namespace distbench::cli
