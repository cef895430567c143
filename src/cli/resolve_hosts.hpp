// Whether host names resolve, within a time bound: a plain getaddrinfo has no timeout of its own (an unreachable DNS
// server holds it for the resolver's whole retry period), so each name is looked up on a thread of its own and the
// answers are waited for until a deadline.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace distbench {

struct HostLookup {
  std::string host;
  bool resolved = false;
  std::string why;  // when not resolved: the resolver's reason, or that it did not answer in time
};

// One result per name, in order; returns by `within` whatever the resolver does (a lookup still running then is
// left to finish on its own, detached).
std::vector<HostLookup> resolve_hosts(const std::vector<std::string>& hosts, std::chrono::milliseconds within);

}  // namespace distbench
