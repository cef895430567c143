#include "core/hostfile.hpp"

#include "core/error.hpp"
#include "core/text_file.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <cstdint>
#include <cstring>
#include <unordered_map>

namespace distbench {
namespace {

enum class Style { bare, openmpi, mpich };

std::string_view trim(std::string_view s) {
  const auto* ws = " \t\f\v\r";
  const auto first = s.find_first_not_of(ws);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(ws) - first + 1);
}

// `slots = 4` reads as `slots=4`, as OpenMPI allows.
std::string join_around_equals(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const bool space = std::isspace(static_cast<unsigned char>(s[i])) != 0;
    if (space) {
      const auto next = s.find_first_not_of(" \t\f\v", i);
      const bool before_eq = next != std::string_view::npos && s[next] == '=';
      const bool after_eq = !out.empty() && out.back() == '=';
      if (before_eq || after_eq) continue;
    }
    out.push_back(s[i]);
  }
  return out;
}

std::vector<std::string_view> split_words(std::string_view s) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (true) {
    i = s.find_first_not_of(" \t\f\v", i);
    if (i == std::string_view::npos) break;
    auto end = s.find_first_of(" \t\f\v", i);
    if (end == std::string_view::npos) end = s.size();
    words.push_back(s.substr(i, end - i));
    i = end;
  }
  return words;
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

class LineParser {
 public:
  LineParser(std::string_view origin, int line) : origin_(origin), line_(line) {}

  [[noreturn]] void fail(std::string_view what, std::string_view fix) const {
    throw usage_error(fmt::format("{}:{}: {}; {}", origin_, line_, what, fix));
  }

  // A positive int, or a usage error quoting `shown` (e.g. "slots=abc").
  int positive(std::string_view value, std::string_view shown, std::string_view example) const {
    int n = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec == std::errc::result_out_of_range)
      fail(fmt::format("{} is too large", shown), fmt::format("write e.g. '{}'", example));
    if (value.empty() || ec != std::errc() || end != value.data() + value.size() || n <= 0)
      fail(fmt::format("{} is not a positive integer", shown), fmt::format("write e.g. '{}'", example));
    return n;
  }

  void check_host(std::string_view host, std::string_view example) const {
    if (host.empty()) fail("missing host name", fmt::format("write e.g. '{}'", example));
    const auto ok = [](unsigned char c) { return std::isalnum(c) || c == '-' || c == '.' || c == '_'; };
    for (const unsigned char c : host) {
      if (!ok(c))
        fail(fmt::format("host name '{}' contains '{}'", host, static_cast<char>(c)),
             "host names use only letters, digits, '-', '.' and '_' (IPv4 addresses are fine)");
    }
    if (!std::isalnum(static_cast<unsigned char>(host.front())))
      fail(fmt::format("host name '{}' does not start with a letter or digit", host),
           "write the host name as the first word of the line, e.g. 'node1 slots=4'");
  }

  Style parse(std::string_view text, HostEntry& entry) const {
    const std::string joined = join_around_equals(text);
    const auto words = split_words(joined);
    const std::string_view first = words.front();
    entry.line = line_;

    if (const auto colon = first.find(':'); colon != std::string_view::npos) {  // MPICH: host:N
      const auto host = first.substr(0, colon);
      const auto count = first.substr(colon + 1);
      if (words.size() > 1)
        fail(fmt::format("'{}' is MPICH style, which takes nothing after it, but found '{}'", first, words[1]),
             fmt::format("write either '{}' (MPICH) or '{} slots={}' (OpenMPI)", first, host, count));
      const auto example = fmt::format("{}:4", host.empty() ? "node1" : host);
      check_host(host, example);
      entry.host = std::string(host);
      entry.slots = positive(count, fmt::format("'{}' slot count '{}'", first, count), example);
      return Style::mpich;
    }

    const auto example = fmt::format("{} slots=4", first);
    check_host(first, example);
    entry.host = std::string(first);
    bool have_slots = false;
    for (std::size_t i = 1; i < words.size(); ++i) {
      const auto word = words[i];
      const auto eq = word.find('=');
      if (eq == std::string_view::npos)
        fail(fmt::format("'{}' after host '{}' is not a key=value setting", word, first),
             fmt::format("put one host per line, with settings like '{} slots=4 max_slots=8'", first));
      const auto key = word.substr(0, eq);
      const auto value = word.substr(eq + 1);
      if (key == "slots" || key == "count") {  // OpenMPI reads `count` as `slots`
        if (have_slots) fail(fmt::format("slots given twice ('{}')", word), "give slots=N once per line");
        entry.slots = positive(value, word, example);
        have_slots = true;
      } else if (key == "max_slots" || key == "max-slots") {
        if (entry.max_slots) fail(fmt::format("max_slots given twice ('{}')", word), "give max_slots=N once per line");
        entry.max_slots = positive(value, word, fmt::format("{} slots=4 max_slots=8", first));
      } else {
        fail(fmt::format("unknown key '{}'", key),
             fmt::format("the keys are slots (or count) and max_slots, e.g. '{} slots=4 max_slots=8'", first));
      }
    }
    if (entry.max_slots && *entry.max_slots < entry.slots)
      fail(fmt::format("max_slots={} is less than slots={}", *entry.max_slots, entry.slots),
           fmt::format("raise max_slots or lower slots, e.g. '{} slots={} max_slots={}'", first, entry.slots,
                       entry.slots));
    return words.size() > 1 ? Style::openmpi : Style::bare;
  }

 private:
  std::string_view origin_;
  int line_;
};

}  // namespace

int Hostfile::total_slots() const {
  std::int64_t total = 0;  // each entry is at most INT_MAX, so no int64 overflow for any realistic count of hosts
  for (const auto& h : hosts) total += h.slots;
  if (total > INT_MAX) throw usage_error(fmt::format("{}: the slots add up to {}, more than the {} ranks MPI can count; "
                                                     "lower the slot counts",
                                                     origin, total, INT_MAX));
  return static_cast<int>(total);
}

Hostfile parse_hostfile(std::string_view text, std::string_view origin) {
  Hostfile result;
  result.origin = std::string(origin);

  Style style = Style::bare;
  int style_line = 0;              // first line that fixed the style
  std::string style_text;          // and what it said
  std::unordered_map<std::string, int> first_line;  // lower-cased host -> line

  std::int64_t total_slots = 0;  // MPI counts ranks in an int: the file's total must fit one
  int line = 0;
  while (!text.empty()) {
    ++line;
    const auto nl = text.find('\n');
    std::string_view raw = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);

    const auto body = trim(raw.substr(0, raw.find('#')));
    if (body.empty()) continue;

    LineParser parser(origin, line);
    HostEntry entry;
    const Style this_style = parser.parse(body, entry);

    if (this_style != Style::bare) {
      if (style == Style::bare) {
        style = this_style;
        style_line = line;
        style_text = std::string(body);
      } else if (style != this_style) {
        const bool mpich = this_style == Style::mpich;
        parser.fail(fmt::format("'{}' is {} style but line {} is {} style ('{}')", body, mpich ? "MPICH" : "OpenMPI",
                                style_line, mpich ? "OpenMPI" : "MPICH", style_text),
                    fmt::format("use one style per file, e.g. '{}'",
                                mpich ? fmt::format("{} slots={}", entry.host, entry.slots)
                                      : fmt::format("{}:{}", entry.host, entry.slots)));
      }
    }

    const auto [it, inserted] = first_line.emplace(lowercase(entry.host), line);
    if (!inserted)
      parser.fail(fmt::format("host '{}' is already listed on line {}", entry.host, it->second),
                  "list each host once, with all its slots on that line");
    total_slots += entry.slots;
    if (total_slots > INT_MAX)
      parser.fail(fmt::format("the slots add up to {} by this line, more than the {} ranks MPI can count", total_slots,
                              INT_MAX),
                  "lower the slot counts");
    result.hosts.push_back(std::move(entry));
  }

  if (result.hosts.empty())
    throw usage_error(fmt::format("{}: no hosts found (only blank lines and comments); "
                                  "list one host per line, e.g. 'node1 slots=4' or 'node1:4'",
                                  origin));
  result.plain = style == Style::bare;
  result.format = style == Style::mpich ? "mpich" : "openmpi";
  return result;
}

Hostfile read_hostfile(const std::string& path) { return parse_hostfile(read_text_file(path, "hostfile", kHostfileMaxBytes), path); }

std::string format_hostfile_summary(const Hostfile& hostfile) {
  std::size_t width = 4;  // "host"
  bool any_max = false;
  for (const auto& h : hostfile.hosts) {
    width = std::max(width, h.host.size());
    any_max = any_max || h.max_slots.has_value();
  }

  std::string out = fmt::format("hostfile: {}\n", hostfile.origin);
  out += fmt::format("format:   {}{}\n", hostfile.format,
                     hostfile.plain ? " (bare host names: also valid for MPICH)" : "");
  out += fmt::format("{:<{}}  {:>5}{}\n", "host", width, "slots", any_max ? "  max_slots" : "");
  for (const auto& h : hostfile.hosts) {
    std::string max;
    if (any_max) max = fmt::format("  {:>9}", h.max_slots ? std::to_string(*h.max_slots) : "-");
    out += fmt::format("{:<{}}  {:>5}{}\n", h.host, width, h.slots, max);
  }
  out += fmt::format("total:    {} slots on {} host{}\n", hostfile.total_slots(), hostfile.hosts.size(),
                     hostfile.hosts.size() == 1 ? "" : "s");
  return out;
}

}  // namespace distbench
