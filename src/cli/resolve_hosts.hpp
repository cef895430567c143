// Whether host names resolve, within a time bound: a plain getaddrinfo has no timeout of its own (an unreachable DNS
// server holds it for the resolver's whole retry period), so the names are looked up by a fixed pool of threads
// pulling from one queue, and the answers are waited for until a deadline.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace distbench {

struct HostLookup {
  std::string host;
  bool resolved = false;
  std::string why;  // when not resolved: the resolver's reason, or that it did not answer (or start) in time
};

// The most lookups under way at once: a hostfile of 45,000 names costs 32 threads, not 45,000.
inline constexpr std::size_t kResolverThreads = 32;

// How one name is looked up: getaddrinfo's result code for it (0: it resolves). The system's resolver by default.
using LookupFunction = std::function<int(const std::string&)>;
int system_lookup(const std::string& host);

// One result per name, in order; returns by `within` whatever the resolver does. A name not answered by then reads
// as not resolved, saying why; the lookups still in the resolver then (at most `threads`) are left to finish on their
// own, detached, and start no other.
std::vector<HostLookup> resolve_hosts(const std::vector<std::string>& hosts, std::chrono::milliseconds within,
                                      std::size_t threads = kResolverThreads,
                                      const LookupFunction& lookup = system_lookup);

}  // namespace distbench
