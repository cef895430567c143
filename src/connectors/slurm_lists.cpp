#include "connectors/slurm_lists.hpp"

#include "connectors/env_settings.hpp"
#include "core/error.hpp"

#include <fmt/format.h>

#include <cctype>
#include <limits>
#include <utility>

namespace distbench::connectors {
namespace {

constexpr std::uint64_t kSaturated = std::numeric_limits<std::uint64_t>::max();

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) { return a > kSaturated - b ? kSaturated : a + b; }
std::uint64_t saturating_multiply(std::uint64_t a, std::uint64_t b) {
  return a != 0 && b > kSaturated / a ? kSaturated : a * b;
}

bool host_character(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '.' || c == '_';
}

// The digits at `at` (advanced past them), or nullopt with `why` set.
std::optional<std::pair<std::uint64_t, std::size_t>> list_number(std::string_view text, std::size_t& at,
                                                                 std::string& why) {
  const std::size_t begin = at;
  std::uint64_t value = 0;
  while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
    if (at - begin == kMaxSlurmNumberDigits) {
      why = fmt::format("a number of more than {} digits", kMaxSlurmNumberDigits);
      return std::nullopt;
    }
    value = value * 10 + static_cast<std::uint64_t>(text[at] - '0');
    ++at;
  }
  if (at == begin) {
    why = at < text.size() ? fmt::format("'{}' where a number belongs", shown_value(text.substr(at, 1)))
                           : std::string("the list ends where a number belongs");
    return std::nullopt;
  }
  return std::pair{value, at - begin};
}

// "N" or "N(xM)" entries of a count list: (tasks, nodes) each; nullopt where malformed.
std::optional<std::vector<std::pair<std::uint64_t, std::uint64_t>>> count_entries(std::string_view counts) {
  if (counts.empty() || counts.size() > kMaxSlurmListChars) return std::nullopt;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  std::size_t at = 0;
  std::string why;
  while (true) {
    const auto tasks = list_number(counts, at, why);
    if (!tasks || tasks->first == 0) return std::nullopt;
    std::uint64_t nodes = 1;
    if (counts.substr(at).starts_with("(x")) {
      at += 2;
      const auto repeat = list_number(counts, at, why);
      if (!repeat || repeat->first == 0 || at >= counts.size() || counts[at] != ')') return std::nullopt;
      nodes = repeat->first;
      ++at;
    }
    out.emplace_back(tasks->first, nodes);
    if (at == counts.size()) return out;
    if (counts[at] != ',') return std::nullopt;
    ++at;
  }
}

}  // namespace

std::uint64_t HostList::Part::size() const {
  if (ranges.empty()) return 1;
  std::uint64_t n = 0;
  for (const auto& r : ranges) n = saturating_add(n, r.hi - r.lo + 1);
  return n;
}

// One bracket group at `at` (its '['): numbers and ranges, separated by commas, up to ']', into `part`; `at` ends
// on the ']'. What is wrong, and where, otherwise.
std::optional<HostList::Fault> HostList::parse_group(std::string_view text, std::size_t& at, Part& part) {
  const std::size_t open = at++;
  std::string why;
  while (true) {
    if (at == text.size()) return Fault{"a '[' without its ']'", open};
    if (text[at] == '[') return Fault{"a '[' inside a bracket group", at};
    if (text[at] == ',' || text[at] == ']') return Fault{"an empty entry in a bracket group", at};
    Range r;
    const std::size_t begin = at;
    const auto lo = list_number(text, at, why);
    if (!lo) return Fault{why, at};
    r.lo = r.hi = lo->first;
    r.width = lo->second;
    if (at < text.size() && text[at] == '-') {
      ++at;
      const auto hi = list_number(text, at, why);
      if (!hi) return Fault{why, at};
      if (hi->first < r.lo) {
        return Fault{fmt::format("the range {} runs down", shown_value(text.substr(begin, at - begin))), begin};
      }
      r.hi = hi->first;
    }
    part.ranges.push_back(r);
    if (at == text.size()) return Fault{"a '[' without its ']'", open};
    if (text[at] == ']') return std::nullopt;
    if (text[at] != ',') return Fault{fmt::format("'{}' in a bracket group", shown_value(text.substr(at, 1))), at};
    ++at;
  }
}

HostList HostList::parse(std::string_view name, std::string_view text, std::string_view advice) {
  const std::string then = advice.empty() ? std::string() : fmt::format("; {}", advice);
  if (text.size() > kMaxSlurmListChars) {
    throw usage_error(fmt::format("{} is {} characters long, more than a Slurm host list can be ({}){}", name,
                                  text.size(), kMaxSlurmListChars, then));
  }
  const auto refuse = [&](const std::string& why, std::size_t at) {
    return usage_error(fmt::format("{}='{}' is not a Slurm host list: {} (at character {}){}", name, shown_value(text),
                                   why, at + 1, then));
  };
  HostList out;
  out.name_ = std::string(name);
  Host host;
  Part part;
  for (std::size_t at = 0; at <= text.size();) {
    if (at == text.size() || text[at] == ',') {
      if (host.empty() && part.text.empty()) throw refuse("an empty host name", at);
      if (!part.text.empty()) host.push_back(std::move(part));
      part = Part{};
      std::uint64_t n = 1;
      for (const auto& p : host) n = saturating_multiply(n, p.size());
      out.count_ = saturating_add(out.count_, n);
      out.hosts_.push_back(std::move(host));
      host.clear();
      ++at;
      continue;
    }
    const char c = text[at];
    if (c == ']') throw refuse("a ']' without its '['", at);
    if (c != '[') {
      if (!host_character(c)) {
        throw refuse(fmt::format("'{}', which no host name has", shown_value(text.substr(at, 1))), at);
      }
      part.text += c;
      ++at;
      continue;
    }
    if (auto fault = parse_group(text, at, part)) throw refuse(fault->why, fault->at);
    ++at;  // past ']'
    host.push_back(std::move(part));
    part = Part{};
  }
  return out;
}

std::string HostList::name_of(const Host& host, std::uint64_t index) {
  std::vector<std::uint64_t> digit(host.size());
  for (std::size_t i = host.size(); i-- > 0;) {  // the last group varies fastest, as Slurm writes them out
    const std::uint64_t n = host[i].size();
    digit[i] = index % n;
    index /= n;
  }
  std::string out;
  for (std::size_t i = 0; i < host.size(); ++i) {
    out += host[i].text;
    std::uint64_t left = digit[i];
    for (const auto& r : host[i].ranges) {
      if (left <= r.hi - r.lo) {
        out += fmt::format("{:0{}}", r.lo + left, r.width);
        break;
      }
      left -= r.hi - r.lo + 1;
    }
  }
  return out;
}

std::string HostList::first() const { return name_of(hosts_.front(), 0); }

std::vector<std::string> HostList::expand(std::size_t max_hosts) const {
  if (count_ > max_hosts) {
    throw usage_error(fmt::format("{} names {} hosts, more than the {} this job can have", name_, count_, max_hosts));
  }
  std::vector<std::string> out;
  out.reserve(static_cast<std::size_t>(count_));
  for (const auto& host : hosts_) {
    std::uint64_t n = 1;
    for (const auto& p : host) n *= p.size();  // no overflow: the product is at most count_
    for (std::uint64_t i = 0; i < n; ++i) out.push_back(name_of(host, i));
  }
  return out;
}

std::optional<int> tasks_on_node(std::string_view counts, int node) {
  const auto entries = count_entries(counts);
  if (!entries || node < 0) return std::nullopt;
  std::uint64_t left = static_cast<std::uint64_t>(node);
  for (const auto& [tasks, nodes] : *entries) {
    if (left < nodes) {
      if (tasks > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) return std::nullopt;
      return static_cast<int>(tasks);
    }
    left -= nodes;
  }
  return std::nullopt;
}

std::optional<std::uint64_t> total_tasks(std::string_view counts) {
  const auto entries = count_entries(counts);
  if (!entries) return std::nullopt;
  std::uint64_t sum = 0;
  for (const auto& [tasks, nodes] : *entries) sum = saturating_add(sum, saturating_multiply(tasks, nodes));
  return sum;
}

}  // namespace distbench::connectors
