// Slurm's compressed lists in a step's environment: host lists (SLURM_STEP_NODELIST="node[01-04,07],gpu-a5") and
// task counts per node (SLURM_STEP_TASKS_PER_NODE="2(x3),1").
//
// A host list is hosts separated by commas; a host is name characters with any number of bracket groups, each a
// comma-separated list of numbers and ranges lo-hi (lo <= hi), zero-padded to lo's width: "n[1-3]" is n1,n2,n3,
// "n[08-10]" is n08,n09,n10, "r[1-2]n[1-2]" is r1n1,r1n2,r2n1,r2n2. Slurm writes nothing else; anything else
// (nesting, an unclosed or empty group, a range that runs down, a number of more than 9 digits, characters a host
// name cannot have, a list longer than an environment variable can be) is refused whole, in one line that names
// what and where. The whole list is checked, but only the hosts asked for are ever written out: a range of a
// billion hosts costs nothing until expanded, and expanding more than the caller's bound is refused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace distbench::connectors {

// The longest list read: Linux's limit on one environment string (MAX_ARG_STRLEN).
inline constexpr std::size_t kMaxSlurmListChars = 128 * 1024;
// Digits in one number of a list: 9 keeps every sum and product below 2^63.
inline constexpr std::size_t kMaxSlurmNumberDigits = 9;

class HostList {
 public:
  // The list, checked; throws usage_error "NAME='...' is not a Slurm host list: why (at character N)", with
  // "; <advice>" after it where advice is given.
  static HostList parse(std::string_view name, std::string_view text, std::string_view advice = {});

  // How many hosts it names (saturating at UINT64_MAX; hosts named twice count twice, as Slurm's own expansion).
  std::uint64_t count() const { return count_; }
  std::string first() const;
  // Every host in order; throws usage_error when there are more than `max_hosts`.
  std::vector<std::string> expand(std::size_t max_hosts) const;

 private:
  struct Range {
    std::uint64_t lo = 0, hi = 0;
    std::size_t width = 0;  // digits of lo as written: the zero padding of every number of the range
  };
  struct Part {
    std::string text;           // the name characters before the group (or after the last group)
    std::vector<Range> ranges;  // empty: no group follows
    std::uint64_t size() const;
  };
  using Host = std::vector<Part>;
  struct Fault {
    std::string why;
    std::size_t at;
  };
  static std::optional<Fault> parse_group(std::string_view text, std::size_t& at, Part& part);

  static std::string name_of(const Host& host, std::uint64_t index);

  std::string name_;
  std::vector<Host> hosts_;
  std::uint64_t count_ = 0;
};

// The tasks on node `node` (0-based) of a count list "2(x3),1" (2 tasks on each of 3 nodes, then 1): nullopt where
// the list is malformed (over kMaxSlurmListChars, a number of more than 9 digits, a count of 0, anything but
// digits, "(x", ")" and commas) or names fewer nodes.
std::optional<int> tasks_on_node(std::string_view counts, int node);

// The sum of the counts of a well-formed count list, for checks (nullopt where malformed, as above).
std::optional<std::uint64_t> total_tasks(std::string_view counts);

}  // namespace distbench::connectors
