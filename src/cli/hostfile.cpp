#include "cli/hostfile.hpp"

#include "core/error.hpp"
#include "core/sys/quote.hpp"
#include "core/sys/text_file.hpp"

#include <arpa/inet.h>

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

constexpr std::size_t kMaxHostName = 253;  // the longest DNS name (RFC 1035, without the final dot)

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

// Untrusted text as a message shows it: escaped, at most kExcerptCodePoints code points.
std::string q(std::string_view s) { return excerpt(s); }

// The one character (code point) at the start of `s`, escaped as in messages.
std::string first_character(std::string_view s) {
  std::string one = excerpt(s, 1);
  if (one.size() > 3 && one.compare(one.size() - 3, 3, "...") == 0) one.resize(one.size() - 3);
  return one;
}

// An IPv6 address (with an optional %zone, as in fe80::1%eth0): it has two or more ':', so the MPICH `host:N` form
// cannot apply to it.
bool is_ipv6(std::string_view host) {
  if (std::count(host.begin(), host.end(), ':') < 2) return false;
  const std::string address(host.substr(0, host.find('%')));
  in6_addr parsed{};
  return ::inet_pton(AF_INET6, address.c_str(), &parsed) == 1;
}

// Splits off the first line: it ends at "\n", "\r\n" or a bare "\r" (old Mac files).
std::string_view next_line(std::string_view& text) {
  const auto end = text.find_first_of("\r\n");
  const std::string_view line = text.substr(0, end);
  if (end == std::string_view::npos) {
    text = {};
  } else {
    const bool crlf = text[end] == '\r' && end + 1 < text.size() && text[end + 1] == '\n';
    text.remove_prefix(end + (crlf ? 2 : 1));
  }
  return line;
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
      fail(fmt::format("{} is too large", shown), fmt::format("write e.g. '{}'", q(example)));
    if (value.empty() || ec != std::errc() || end != value.data() + value.size() || n <= 0)
      fail(fmt::format("{} is not a positive integer", shown), fmt::format("write e.g. '{}'", q(example)));
    return n;
  }

  void check_host(std::string_view host, std::string_view example) const {
    if (host.empty()) fail("missing host name", fmt::format("write e.g. '{}'", q(example)));
    if (is_ipv6(host)) return;
    if (host.size() > kMaxHostName)
      fail(fmt::format("host name '{}' is {} bytes long, longer than the {} a DNS name can be", q(host), host.size(),
                       kMaxHostName),
           "check that the first word of the line is the host name");
    const auto ok = [](unsigned char c) { return std::isalnum(c) || c == '-' || c == '.' || c == '_'; };
    for (std::size_t i = 0; i < host.size(); ++i) {
      if (!ok(static_cast<unsigned char>(host[i])))
        fail(fmt::format("host name '{}' contains '{}'", q(host), first_character(host.substr(i))),
             "host names use only letters, digits, '-', '.' and '_' (IPv4 and IPv6 addresses are fine)");
    }
    if (!std::isalnum(static_cast<unsigned char>(host.front())))
      fail(fmt::format("host name '{}' does not start with a letter or digit", q(host)),
           "write the host name as the first word of the line, e.g. 'node1 slots=4'");
  }

  Style parse(std::string_view text, HostEntry& entry) const {
    const std::string joined = join_around_equals(text);
    const auto words = split_words(joined);
    const std::string_view first = words.front();
    entry.line = line_;

    if (first.front() == '[')
      fail(fmt::format("'{}' puts the host in brackets", q(first)),
           "write an IPv6 address bare, OpenMPI style, e.g. '::1 slots=4'");
    const auto colon = first.find(':');
    if (colon != std::string_view::npos && !is_ipv6(first)) {  // MPICH: host:N (an IPv6 address is a host name)
      const auto host = first.substr(0, colon);
      const auto count = first.substr(colon + 1);
      if (words.size() > 1)
        fail(fmt::format("'{}' is MPICH style, which takes nothing after it, but found '{}'", q(first), q(words[1])),
             fmt::format("write either '{}' (MPICH) or '{} slots={}' (OpenMPI)", q(first), q(host), q(count)));
      const auto example = fmt::format("{}:4", host.empty() ? "node1" : host);
      check_host(host, example);
      entry.host = std::string(host);
      entry.slots = positive(count, fmt::format("'{}' slot count '{}'", q(first), q(count)), example);
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
        fail(fmt::format("'{}' after host '{}' is not a key=value setting", q(word), q(first)),
             fmt::format("put one host per line, with settings like '{} slots=4 max_slots=8'", q(first)));
      const auto key = word.substr(0, eq);
      const auto value = word.substr(eq + 1);
      if (key == "slots" || key == "count") {  // OpenMPI reads `count` as `slots`
        if (have_slots) fail(fmt::format("slots given twice ('{}')", q(word)), "give slots=N once per line");
        entry.slots = positive(value, q(word), example);
        have_slots = true;
      } else if (key == "max_slots" || key == "max-slots") {
        if (entry.max_slots)
          fail(fmt::format("max_slots given twice ('{}')", q(word)), "give max_slots=N once per line");
        entry.max_slots = positive(value, q(word), fmt::format("{} slots=4 max_slots=8", first));
      } else {
        fail(fmt::format("unknown key '{}'", q(key)),
             fmt::format("the keys are slots (or count) and max_slots, e.g. '{} slots=4 max_slots=8'", q(first)));
      }
    }
    if (entry.max_slots && *entry.max_slots < entry.slots)
      fail(fmt::format("max_slots={} is less than slots={}", *entry.max_slots, entry.slots),
           fmt::format("raise max_slots or lower slots, e.g. '{} slots={} max_slots={}'", q(first), entry.slots,
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
  if (total > INT_MAX)
    throw usage_error(
        fmt::format("{}: the slots add up to {}, more than the {} ranks MPI can count; "
                    "lower the slot counts",
                    escape_text(origin), total, INT_MAX));
  return static_cast<int>(total);
}

Hostfile parse_hostfile(std::string_view text, std::string_view origin) {
  Hostfile result;
  result.origin = std::string(origin);
  const std::string shown_origin = escape_text(origin);  // a path may hold any byte but '/' and NUL

  Style style = Style::bare;
  int style_line = 0;                               // first line that fixed the style
  std::string style_text;                           // and what it said
  std::unordered_map<std::string, int> first_line;  // lower-cased host -> line

  std::int64_t total_slots = 0;  // MPI counts ranks in an int: the file's total must fit one
  int line = 0;
  while (!text.empty()) {
    ++line;
    const std::string_view raw = next_line(text);

    const auto body = trim(raw.substr(0, raw.find('#')));
    if (body.empty()) continue;

    LineParser parser(shown_origin, line);
    HostEntry entry;
    const Style this_style = parser.parse(body, entry);

    if (this_style != Style::bare) {
      if (style == Style::bare) {
        style = this_style;
        style_line = line;
        style_text = std::string(body);
      } else if (style != this_style) {
        const bool mpich = this_style == Style::mpich;
        parser.fail(fmt::format("'{}' is {} style but line {} is {} style ('{}')", q(body), mpich ? "MPICH" : "OpenMPI",
                                style_line, mpich ? "OpenMPI" : "MPICH", q(style_text)),
                    fmt::format("use one style per file, e.g. '{}'",
                                mpich ? fmt::format("{} slots={}", q(entry.host), entry.slots)
                                      : fmt::format("{}:{}", q(entry.host), entry.slots)));
      }
    }

    const auto [it, inserted] = first_line.emplace(lowercase(entry.host), line);
    if (!inserted)
      parser.fail(fmt::format("host '{}' is already listed on line {}", q(entry.host), it->second),
                  "list each host once, with all its slots on that line");
    total_slots += entry.slots;
    if (total_slots > INT_MAX)
      parser.fail(fmt::format("the slots add up to {} by this line, more than the {} ranks MPI can count", total_slots,
                              INT_MAX),
                  "lower the slot counts");
    result.hosts.push_back(std::move(entry));
  }

  if (result.hosts.empty())
    throw usage_error(
        fmt::format("{}: no hosts found (only blank lines and comments); "
                    "list one host per line, e.g. 'node1 slots=4' or 'node1:4'",
                    shown_origin));
  result.plain = style == Style::bare;
  result.format = style == Style::mpich ? "mpich" : "openmpi";
  return result;
}

Hostfile read_hostfile(const std::string& path) {
  return parse_hostfile(read_text_file(path, "hostfile", kHostfileMaxBytes), path);
}

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
