#include "model/transport.hpp"

#include "core/sys/split.hpp"

#include <fmt/format.h>

#include <charconv>
#include <set>
#include <string_view>

namespace distbench::model {
namespace {

// Open MPI 4.1's and 5.0's defaults (ompi_info --param btl <name> --level 9).
constexpr double kTcpEagerDefault = 65536;
constexpr double kSharedMemoryEagerDefault = 4096;

std::string variable(const RunInfo& info, std::string_view name) {
  for (const auto& [k, v] : info.environment) {
    if (k == name) return v;
  }
  return {};
}

// Whether mpirun's btl list (empty: Open MPI's choice) lets `btl` carry the messages: "tcp,self" names it, "^tcp"
// excludes it, an empty list leaves every transport in.
bool btl_allowed(const std::string& list, std::string_view btl) {
  if (list.empty()) return true;
  if (list.front() == '^') {
    for (const std::string& b : split_list(list.substr(1), ',')) {
      if (b == btl) return false;
    }
    return true;
  }
  for (const std::string& b : split_list(list, ',')) {
    if (b == btl) return true;
  }
  return false;
}

}  // namespace

std::optional<EagerLimit> eager_limit(const RunInfo& info) {
  const std::string library = info.version("mpi.library");
  if (library.rfind("Open MPI", 0) != 0 || info.backend != "mpi") return std::nullopt;
  const std::string pml = variable(info, "OMPI_MCA_pml");
  if (!pml.empty() && pml != "ob1") return std::nullopt;  // ucx and the others have their own thresholds
  if (info.ranks.empty()) return std::nullopt;            // an older report without its ranks' hosts
  std::set<std::string> hosts;
  for (const RankInfo& r : info.ranks) hosts.insert(r.host);
  const std::string btls = variable(info, "OMPI_MCA_btl");
  EagerLimit out;
  std::string btl;
  if (hosts.size() > 1) {
    btl = "tcp";
    out.transport = "tcp between hosts";
    out.bytes = kTcpEagerDefault;
  } else {
    btl = library.rfind("Open MPI v4", 0) == 0 || library.rfind("Open MPI v3", 0) == 0 ? "vader" : "sm";
    out.transport = fmt::format("{} (shared memory)", btl);
    out.bytes = kSharedMemoryEagerDefault;
    if (!btl_allowed(btls, btl) && btl_allowed(btls, "tcp") && !btls.empty()) {
      btl = "tcp";  // e.g. --mca btl tcp,self on one host
      out.transport = "tcp on one host";
      out.bytes = kTcpEagerDefault;
    }
  }
  if (!btl_allowed(btls, btl)) return std::nullopt;
  // with the list left to Open MPI, a faster network (InfiniBand, ...) may carry the messages instead of tcp
  if (btl == "tcp" && btls.empty()) out.transport += " (assumed: no btl list recorded)";
  out.parameter = fmt::format("btl_{}_eager_limit", btl);
  out.source = "Open MPI's default";
  const std::string name = "OMPI_MCA_" + out.parameter;
  if (const std::string set = variable(info, name); !set.empty()) {
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(set.data(), set.data() + set.size(), value);
    if (ec != std::errc() || end != set.data() + set.size() || value == 0) return std::nullopt;
    out.bytes = static_cast<double>(value);
    out.source = fmt::format("{}={}", name, set);
  }
  return out;
}

bool same_limit(const EagerLimit& a, const EagerLimit& b) { return a.bytes == b.bytes && a.parameter == b.parameter; }

}  // namespace distbench::model
