#include "cli/help_formatter.hpp"

#include "cli/option_groups.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>

namespace distbench::cli {
namespace {

constexpr std::size_t kDefaultWidth = 100;  // stdout is not a terminal: a log, a pipe, a test
constexpr std::size_t kIndent = 2;          // of an entry under its section's title
constexpr std::size_t kGap = 2;             // between an entry's name and its text

// One line of a section: "-b, --minbytes SIZE" and its description, or a subcommand and what it does.
struct Entry {
  std::string head;
  std::string text;
};
struct Section {
  std::string title;
  std::vector<Entry> entries;
};

// The first `count` characters (code points) of `text`, in bytes.
std::size_t bytes_of_chars(std::string_view text, std::size_t count) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      if (chars == count) return i;
      ++chars;
    }
  }
  return text.size();
}

// Words of `paragraph` (one line of text) in lines of at most `width` characters.
void wrap_paragraph(std::string_view paragraph, std::size_t width, std::vector<std::string>& out) {
  const std::size_t before = out.size();
  std::string line;
  std::size_t line_width = 0;
  std::size_t start = 0;
  while (start < paragraph.size()) {
    if (paragraph[start] == ' ') {
      ++start;
      continue;
    }
    std::size_t end = paragraph.find(' ', start);
    if (end == std::string_view::npos) end = paragraph.size();
    std::string_view word = paragraph.substr(start, end - start);
    start = end;
    while (!word.empty()) {
      const std::size_t w = display_width(word);
      if (line_width > 0 && line_width + 1 + w <= width) {
        line += ' ';
        line += word;
        line_width += 1 + w;
        word = {};
      } else if (line_width == 0 && w <= width) {
        line = word;
        line_width = w;
        word = {};
      } else if (line_width > 0) {
        out.push_back(std::move(line));
        line.clear();
        line_width = 0;
      } else {  // a word wider than a line: cut it
        const std::size_t cut = bytes_of_chars(word, width);
        out.emplace_back(word.substr(0, cut));
        word = word.substr(cut);
      }
    }
  }
  if (line_width > 0 || out.size() == before) out.push_back(std::move(line));  // an empty paragraph: an empty line
}

std::string spaces(std::size_t n) { return std::string(n, ' '); }

// A flag takes no value (--quiet), so shows neither a value's name nor a default.
bool is_flag(const CLI::Option& option) { return option.get_expected_max() == 0; }

// "Options" -> the title shown; the subcommand's own groups keep their names.
std::string section_title(const CLI::Formatter& f, const std::string& group) { return f.get_label(group); }

bool is_shared_group(const std::string& group) {
  return std::find(groups::kOrder.begin(), groups::kOrder.end(), group) != groups::kOrder.end();
}

// The groups of `names` in the order --help shows them: the subcommand's own as they first appear, then the shared
// ones in their order; the hidden groups (CLI11's "" and groups::kHidden) never.
std::vector<std::string> ordered_groups(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& g : names) {
    if (!g.empty() && g != groups::kHidden && !is_shared_group(g)) out.push_back(g);
  }
  for (std::string_view g : groups::kOrder) {
    if (std::find(names.begin(), names.end(), g) != names.end()) out.emplace_back(g);
  }
  return out;
}

}  // namespace

std::size_t help_width(const char* columns_env, std::optional<std::size_t> terminal_columns) {
  std::size_t width = terminal_columns.value_or(kDefaultWidth);
  if (columns_env != nullptr && *columns_env != '\0') {
    const std::string_view text(columns_env);
    std::size_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc() && end == text.data() + text.size() && value > 0) width = value;
  }
  return std::max(width, kMinHelpWidth);
}

std::optional<std::size_t> stdout_terminal_columns() {
  if (isatty(STDOUT_FILENO) == 0) return std::nullopt;
  winsize size{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) != 0 || size.ws_col == 0) return std::nullopt;
  return size.ws_col;
}

std::size_t display_width(std::string_view text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::vector<std::string> wrap_text(std::string_view text, std::size_t width) {
  width = std::max<std::size_t>(width, 1);
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find('\n', start);
    wrap_paragraph(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start), width,
                   out);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  for (std::string& line : out) std::replace(line.begin(), line.end(), kNoBreakSpace, ' ');
  return out;
}

std::string hanging(std::string_view head, std::string_view text, std::size_t indent, std::size_t width) {
  const std::size_t room = width > indent ? width - indent : 1;
  const std::vector<std::string> lines = text.empty() ? std::vector<std::string>{} : wrap_text(text, room);
  std::string out(head);
  std::size_t next = 0;
  if (!lines.empty() && display_width(head) + kGap <= indent) {
    out += spaces(indent - display_width(head)) + lines[0];
    next = 1;
  }
  out += '\n';
  for (; next < lines.size(); ++next) out += lines[next].empty() ? "\n" : spaces(indent) + lines[next] + '\n';
  return out;
}

std::string wrap_footer_line(std::string_view line, std::size_t width) {
  if (display_width(line) <= width) return std::string(line) + '\n';
  const std::size_t own = std::min(line.find_first_not_of(' '), line.size());
  std::size_t indent = own;
  // A second column: after the first word, a run of two spaces or more.
  const std::size_t gap = line.find("  ", own);
  if (gap != std::string_view::npos) {
    const std::size_t second = line.find_first_not_of(' ', gap);
    if (second != std::string_view::npos && display_width(line.substr(0, second)) + 20 <= width) indent = second;
  }
  const std::string_view head = line.substr(0, indent);
  const std::size_t room = width > display_width(head) ? width - display_width(head) : 1;
  const std::vector<std::string> lines = wrap_text(line.substr(indent), room);
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    out += (i == 0 ? std::string(head) : spaces(display_width(head))) + lines[i] + '\n';
  }
  return out;
}

HelpFormatter::HelpFormatter(std::size_t width) : width_(width) {
  label("SUBCOMMAND", "COMMAND");
  label("SUBCOMMANDS", "COMMANDS");
  label("Positionals", "Arguments");
}

std::size_t HelpFormatter::width() const {
  return width_ != 0 ? width_ : help_width(std::getenv("COLUMNS"), stdout_terminal_columns());
}

std::string HelpFormatter::make_option_name(const CLI::Option* option, bool is_positional) const {
  if (is_positional) return option->get_name(true, false);
  std::vector<std::string> names;
  for (const std::string& s : option->get_snames()) names.push_back("-" + s);
  for (const std::string& l : option->get_lnames()) names.push_back("--" + l);
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string HelpFormatter::make_option_opts(const CLI::Option* option) const {
  if (is_flag(*option)) return {};
  return " " + (option->get_option_text().empty() ? std::string("VALUE") : option->get_option_text());
}

std::string HelpFormatter::make_option_desc(const CLI::Option* option) const {
  std::string text = option->get_description();
  if (is_flag(*option)) return text;
  std::string shown = option->get_default_str();
  if (shown.size() >= 2 && shown.front() == '[' && shown.back() == ']') shown = shown.substr(1, shown.size() - 2);
  if (shown.empty()) return text;
  return text + (text.empty() ? "" : " ") + fmt::format("(default:{}{})", kNoBreakSpace, shown);
}

namespace {

// The arguments, if the command takes any.
void add_positionals(const HelpFormatter& f, const CLI::App* app, std::vector<Section>& sections) {
  const auto positionals = app->get_options([](const CLI::Option* o) { return o->get_positional(); });
  if (positionals.empty()) return;
  Section s{f.get_label("Positionals"), {}};
  for (const CLI::Option* o : positionals) s.entries.push_back({f.make_option_name(o, true), f.make_option_desc(o)});
  sections.push_back(std::move(s));
}

// The options, a section per group.
void add_option_groups(const HelpFormatter& f, const CLI::App* app, std::vector<Section>& sections) {
  const bool is_root = app->get_parent() == nullptr;
  const auto shown = [&](const CLI::Option* opt) {  // a subcommand's --help need not list --help
    return !opt->get_group().empty() && opt->get_group() != groups::kHidden && opt->nonpositional() &&
           (is_root || opt != app->get_help_ptr());
  };
  // Long names line up under the long names of options with a short one ("-J, --json" over "    --csv"), where
  // the page has any.
  const auto options = app->get_options(shown);
  const bool short_names =
      std::any_of(options.begin(), options.end(), [](const CLI::Option* o) { return !o->get_snames().empty(); });
  for (const std::string& group : ordered_groups(app->get_groups())) {
    Section s{section_title(f, group), {}};
    for (const CLI::Option* o : options) {
      if (o->get_group() != group) continue;
      const std::string pad = short_names && o->get_snames().empty() ? spaces(4) : "";
      s.entries.push_back({pad + f.make_option_name(o, false) + f.make_option_opts(o), f.make_option_desc(o)});
    }
    if (!s.entries.empty()) sections.push_back(std::move(s));
  }
}

// The commands, by group, in the order the groups first appear.
void add_command_groups(const CLI::App* app, std::vector<Section>& sections) {
  std::vector<std::string> command_groups;
  for (const CLI::App* sub : app->get_subcommands({})) {
    if (!sub->get_name().empty() &&
        std::find(command_groups.begin(), command_groups.end(), sub->get_group()) == command_groups.end()) {
      command_groups.push_back(sub->get_group());
    }
  }
  for (const std::string& group : command_groups) {
    Section s{group == "Subcommands" ? std::string("Commands") : group, {}};
    for (const CLI::App* sub : app->get_subcommands({})) {
      if (!sub->get_name().empty() && sub->get_group() == group) {
        s.entries.push_back({sub->get_name(), sub->get_description()});
      }
    }
    sections.push_back(std::move(s));
  }
}

// One column for the whole page, as wide as its widest name, within two fifths of the width.
std::size_t text_column(const std::vector<Section>& sections, std::size_t w) {
  std::size_t widest = 0;
  for (const Section& s : sections) {
    for (const Entry& e : s.entries) widest = std::max(widest, display_width(e.head));
  }
  return std::min(kIndent + widest + kGap, std::max<std::size_t>(w * 2 / 5, 16));
}

// The non-empty lines of `text` wrapped to `w`.
std::string wrapped_lines(std::string_view text, std::size_t w) {
  std::string out;
  for (const std::string& line : wrap_text(text, w)) {
    if (!line.empty()) out += line + '\n';
  }
  return out;
}

// The footer after a blank line, each of its lines wrapped alone.
std::string footer_text(const std::string& footer, std::size_t w) {
  if (footer.empty()) return {};
  std::string out = "\n";
  std::size_t start = 0;
  while (start <= footer.size()) {
    std::size_t end = footer.find('\n', start);
    if (end == std::string::npos) end = footer.size();
    out += wrap_footer_line(std::string_view(footer).substr(start, end - start), w);
    start = end + 1;
  }
  return out;
}

}  // namespace

std::string HelpFormatter::make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const {
  if (mode == CLI::AppFormatMode::Sub) return make_expanded(app);
  const std::size_t w = width();
  // Arguments, then options by group, then commands.
  std::vector<Section> sections;
  add_positionals(*this, app, sections);
  add_option_groups(*this, app, sections);
  add_command_groups(app, sections);
  const std::size_t column = text_column(sections, w);

  std::string out = wrapped_lines(app->get_description(), w) + wrapped_lines(make_usage(app, name), w);
  for (const Section& s : sections) {
    out += "\n" + s.title + ":\n";
    for (const Entry& e : s.entries) out += hanging(spaces(kIndent) + e.head, e.text, column, w);
  }
  return out + footer_text(app->get_footer(), w);
}

}  // namespace distbench::cli
