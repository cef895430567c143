#include "cli/parse_errors.hpp"

#include "cli/did_you_mean.hpp"
#include "core/error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <initializer_list>
#include <string_view>
#include <vector>

namespace distbench::cli {
namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    names.push_back(sub->get_name());
  }
  return names;
}

// Every spelling of the options of `app` and of the commands above it (--help is the root's): "-T", "--timeout".
std::vector<std::string> option_spellings(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* a = &app; a != nullptr; a = a->get_parent()) {
    for (const CLI::Option* opt : a->get_options()) {
      for (const auto& s : opt->get_snames()) names.push_back("-" + s);
      for (const auto& l : opt->get_lnames()) names.push_back("--" + l);
    }
  }
  return names;
}

// The command the parse reached: the last subcommand named on the command line.
const CLI::App& deepest(const CLI::App& root) {
  const CLI::App* app = &root;
  while (!app->get_subcommands().empty()) app = app->get_subcommands().front();
  return *app;
}

// "distbench hostfile check".
std::string command_path(const CLI::App& app) {
  std::string path = app.get_name();
  for (const CLI::App* a = app.get_parent(); a != nullptr; a = a->get_parent()) path = a->get_name() + " " + path;
  return path;
}

// The option CLI11 calls `name` ("--timeout", "FILE"), looked for in `app` and the commands above it.
const CLI::Option* find_option(const CLI::App& app, const std::string& name) {
  for (const CLI::App* a = &app; a != nullptr; a = a->get_parent()) {
    if (const CLI::Option* opt = a->get_option_no_throw(name)) return opt;
  }
  return nullptr;
}

// CLI11's messages start with the option's name and a colon ("--timeout: ..."); returns the name and the rest.
std::pair<std::string, std::string> split_name(const std::string& what) {
  const auto colon = what.find(": ");
  if (colon == std::string::npos) return {"", what};
  return {what.substr(0, colon), what.substr(colon + 2)};
}

// What a value of the option's type is, for a value that did not convert.
std::string kind_of_value(const CLI::Option& opt) {
  if (opt.get_expected_max() == 0) return "true or false (the flag alone means true)";
  const std::string type = opt.get_type_name().substr(0, opt.get_type_name().find(':'));
  if (type == "INT") return "a whole number";
  if (type == "UINT") return "a whole number of 0 or more";
  if (type == "FLOAT") return "a number";
  return "a value this option takes";
}

// Options a user brings from elsewhere that a command does not take, and what to write instead: the nccl-tests flags
// that distbench does not support (their table is in docs/collectives.md), other commands' spellings.
struct KnownMiss {
  const char* command;  // the command's name, or "collectives" for each of them
  std::initializer_list<const char*> spellings;
  const char* text;
};
const KnownMiss kKnownMisses[] = {
    // "{}": the flag as typed
    {"collectives", {"-y", "--stream_null"}, "not supported: nccl-tests' {} (use the default stream)"},
    {"collectives", {"-u", "--unalign"}, "not supported: nccl-tests' {} (misalign the buffers)"},
    {"collectives", {"-x", "--cta_policy"}, "not supported: nccl-tests' {} (NCCL's CTA policy)"},
    {"collectives",
     {"-D", "--device_implementation", "--device_cta_count"},
     "not supported: nccl-tests' {} (device-side implementations)"},
    {"collectives",
     {"-M", "--memory"},
     "not supported: nccl-tests' {} (report memory); a sweep whose buffers do not fit is refused"},
    {"train", {"-n", "--iters"}, "unknown option '{}' for train: it times --steps N steps after --warmup N"},
    {"train", {"-w", "--warmup-iters"}, "unknown option '{}' for train: it times --steps N steps after --warmup N"},
    {"health",
     {"-q", "--quiet", "--progress"},
     "unknown option '{}' for health: its table is its verdict (bad input exits 3, Nagios' unknown)"},
};

// What `flag` means elsewhere, for `app`, or "".
std::string known_miss(const CLI::App& app, const std::string& flag) {
  for (const KnownMiss& miss : kKnownMisses) {
    const bool command = miss.command == app.get_name() ||
                         (std::string_view(miss.command) == "collectives" && app.get_group() == "Collectives");
    if (!command) continue;
    for (const char* spelling : miss.spellings) {
      if (flag != spelling) continue;
      const std::string see = std::string_view(miss.command) == "collectives"
                                  ? std::string("docs/collectives.md, \"nccl-tests' flags\"")
                                  : fmt::format("'distbench {} --help'", app.get_name());
      return fmt::format("{}; see {}", fmt::format(fmt::runtime(miss.text), flag), see);
    }
  }
  return {};
}

std::string unexpected_argument(const CLI::App& root, const CLI::App& app) {
  const auto extras = root.remaining(true);
  const auto dashed =
      std::find_if(extras.begin(), extras.end(), [](const std::string& s) { return starts_with(s, "-"); });
  if (dashed != extras.end()) {
    const std::string flag = dashed->substr(0, dashed->find('='));
    if (std::string miss = known_miss(app, flag); !miss.empty()) return miss;
    const std::string where = app.get_parent() != nullptr ? fmt::format(" for {}", app.get_name()) : "";
    const std::string hint = did_you_mean(flag, option_spellings(app));
    return fmt::format("unknown option '{}'{}{}", flag, where, hint);
  }
  if (extras.empty()) return "unexpected arguments";
  return fmt::format("unexpected argument '{}'{}", extras.front(), did_you_mean(extras.front(), command_names(app)));
}

// A command that needs one of its own (hostfile check) was given none, or one it does not have.
std::string missing_command(const CLI::App& root, const CLI::App& app) {
  const auto names = command_names(app);
  const auto extras = root.remaining(true);
  const auto word =
      std::find_if(extras.begin(), extras.end(), [](const std::string& s) { return !starts_with(s, "-"); });
  if (word != extras.end()) {
    return fmt::format("unknown {} command '{}'{}", app.get_name(), *word, did_you_mean(*word, names));
  }
  return fmt::format("{} needs a command: {}", command_path(app), fmt::join(names, ", "));
}

std::string describe(const CLI::App& root, const CLI::App& app, const CLI::ParseError& e) {
  const std::string what = e.what();
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) return unexpected_argument(root, app);
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr) {
    if (what == "A subcommand is required" || app.get_require_subcommand_min() > 0) return missing_command(root, app);
    const auto is = what.rfind(" is required");
    const CLI::Option* opt = is == std::string::npos ? nullptr : find_option(app, what.substr(0, is));
    if (opt == nullptr) return what;
    return fmt::format("{} is missing: {}", shown_names(*opt), opt->get_description());
  }
  if (dynamic_cast<const CLI::ConversionError*>(&e) != nullptr && starts_with(what, "Could not convert: ")) {
    const std::string rest = what.substr(std::string("Could not convert: ").size());
    const auto eq = rest.find(" = ");
    const CLI::Option* opt = eq == std::string::npos ? nullptr : find_option(app, rest.substr(0, eq));
    if (opt != nullptr) {
      return fmt::format("{}: '{}' is not {}", shown_names(*opt), rest.substr(eq + 3), kind_of_value(*opt));
    }
  }
  const auto [name, message] = split_name(what);
  const CLI::Option* opt = name.empty() ? nullptr : find_option(app, name);
  if (opt == nullptr) return what;
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr && message.find(" missing") != std::string::npos) {
    return fmt::format("{} needs a value", shown_names(*opt));
  }
  return fmt::format("{}: {}", shown_names(*opt), message);
}

}  // namespace

// The option's names as the user may type them: "-T/--timeout", "--json", "FILE".
std::string shown_names(const CLI::Option& opt) {
  std::vector<std::string> names;
  for (const auto& s : opt.get_snames()) names.push_back("-" + s);
  for (const auto& l : opt.get_lnames()) names.push_back("--" + l);
  if (names.empty()) return opt.get_name();
  return fmt::format("{}", fmt::join(names, "/"));
}

void check_command_word(const CLI::App& root, int argc, char** argv) {
  if (argc < 2) {
    throw usage_error(
        "a command is needed, e.g. 'distbench allreduce'; 'distbench list' shows the collectives, "
        "'distbench --help' every command");
  }
  const std::string word = argv[1];
  if (starts_with(word, "-")) {
    const auto own = option_spellings(root);
    if (std::find(own.begin(), own.end(), word.substr(0, word.find('='))) != own.end()) return;
    throw usage_error(
        fmt::format("unknown option '{}'; distbench takes a command first ('distbench --help' lists them), and "
                    "'distbench --version' shows the version",
                    word));
  }
  const auto names = command_names(root);
  if (std::find(names.begin(), names.end(), word) != names.end()) return;
  const std::string hint = did_you_mean(word, names);
  if (!hint.empty()) throw usage_error(fmt::format("unknown command '{}'{}", word, hint));
  throw usage_error(fmt::format(
      "unknown command '{}'; 'distbench list' shows the collectives, 'distbench --help' every command", word));
}

std::string parse_error_text(const CLI::App& root, const CLI::ParseError& e) {
  const CLI::App& app = deepest(root);
  const std::string text = describe(root, app, e);
  if (!text.empty() && text.back() == '?') return text;       // a "did you mean" says enough
  if (text.find("; see ") != std::string::npos) return text;  // it says where to look
  return fmt::format("{}; see '{} --help'", text, command_path(app));
}

}  // namespace distbench::cli
