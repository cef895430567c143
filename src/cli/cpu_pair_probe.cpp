#include "cli/cpu_pair_probe.hpp"

#include "core/comm/groups.hpp"
#include "core/error.hpp"
#include "core/sys/cache_line_ping.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

namespace distbench::cli {
namespace {

constexpr int kRounds = 2000;  // round trips per pair: about 1 ms at 200 ns one way
constexpr const char* kOk = "ok:";
// Lines in the shared page (a page is 4 KiB or more): line 0 unused, follower j takes line j.
constexpr int kLines = static_cast<int>(4096 / sizeof(PingLine));

PingLine* line_of(const SharedPage& page, int follower) { return static_cast<PingLine*>(page.data()) + follower; }

}  // namespace

CpuPairProbe::CpuPairProbe(Connector& connector, const ArmedStep& step) : connector_(connector) {
  const Partition hosts = node_partition(connector.node_of_ranks());
  host_ranks_ = hosts.members_of(connector.rank());
  index_ = hosts.rank_in_group(connector.rank());
  // The host's first rank creates the page; every rank learns each host's name (or why there is none).
  std::string mine;
  if (index_ == 0 && host_ranks_.size() > 1) {
    try {
      page_ = SharedPage::create();
      mine = kOk + page_->name();
    } catch (const Error& e) {
      mine = e.what();
    }
  }
  const std::vector<std::string> names = allgather_string(connector, mine, step);
  const std::string& host = names[static_cast<std::size_t>(host_ranks_.front())];
  std::string opened;
  if (host_ranks_.size() < 2) {
    why_not_ = "no two ranks share a host";
  } else if (host.rfind(kOk, 0) != 0) {
    why_not_ = host;
  } else if (index_ >= kLines) {
    why_not_ = fmt::format("only the first {} ranks of a host are pinged", kLines);
  } else if (index_ > 0) {
    try {
      page_ = SharedPage::open(host.substr(std::string(kOk).size()));
    } catch (const Error& e) {
      why_not_ = e.what();
      opened = why_not_;
    }
  }
  // Once every rank has tried to open its host's page, its name can go: nothing is left behind after the run.
  const std::vector<std::string> opens = allgather_string(connector, opened, step);
  if (page_) page_->unlink();
  for (int r : host_ranks_) {
    if (!opens[static_cast<std::size_t>(r)].empty()) {
      why_not_ = fmt::format("rank {} could not map its host's shared page: {}", r, opens[static_cast<std::size_t>(r)]);
      page_.reset();
    }
  }
}

CpuDistance CpuPairProbe::measure(std::chrono::milliseconds budget) {
  const auto deadline = std::chrono::steady_clock::now() + budget;
  const std::uint64_t base = 2 * static_cast<std::uint64_t>(kRounds) * readings_++;
  // The host's first rank sends its farthest pair that answered: "first second ns pairs".
  std::string result;
  if (page_ && index_ == 0) {
    CpuDistance host;
    for (int j = 1; j < static_cast<int>(host_ranks_.size()) && j < kLines; ++j) {
      const auto ns = lead_pings(*line_of(*page_, j), base, kRounds, deadline);
      if (!ns) continue;  // no answer in time
      ++host.pairs;
      if (!host.ns || *ns > *host.ns) {
        host.ns = ns;
        host.second_rank = host_ranks_[static_cast<std::size_t>(j)];
      }
    }
    if (host.ns) result = fmt::format("{} {} {} {}", connector_.rank(), host.second_rank, *host.ns, host.pairs);
  } else if (page_) {
    follow_pings(*line_of(*page_, index_), base, kRounds, deadline);
  }
  const auto parts = gather_strings_until(connector_, result, connector_.root_rank(), deadline + budget);
  CpuDistance out;
  if (!connector_.is_root()) return out;
  for (const auto& part : parts) {
    if (!part || part->empty()) continue;
    std::istringstream in(*part);
    int first = 0, second = 0, pairs = 0;
    double ns = 0;
    if (!(in >> first >> second >> ns >> pairs)) continue;
    out.pairs += pairs;
    if (!out.ns || ns > *out.ns) {
      out.ns = ns;
      out.first_rank = first;
      out.second_rank = second;
    }
  }
  if (!out.ns) out.why_not = why_not_.empty() ? "no pair answered in time" : why_not_;
  return out;
}

std::string cpu_distance_text(const CpuDistance& d) {
  if (!d.ns) return "unknown: " + d.why_not;
  return fmt::format("{:.0f} ns one way between ranks {} and {} (a cache line's trip; the farthest of {} {})", *d.ns,
                     d.first_rank, d.second_rank, d.pairs, d.pairs == 1 ? "pair" : "pairs");
}

void note_cpu_distance(RunInfo& info, std::vector<Warning>& warnings, const CpuDistance& start,
                       const CpuDistance& end) {
  info.versions.emplace_back("cpu_distance.end", cpu_distance_text(end));
  if (!start.ns || !end.ns || !(*start.ns > 0) || !(*end.ns > 0)) return;
  if (std::max(*start.ns, *end.ns) >= kCpuDistanceSharedNs) return;
  const double ratio = std::max(*start.ns, *end.ns) / std::min(*start.ns, *end.ns);
  if (ratio < kCpuDistanceWarnRatio) return;
  warnings.push_back(
      {"cpu_distance",
       fmt::format("the host moved the ranks' CPUs: {:.0f} ns apart at the start, {:.0f} at the end; rerun to compare",
                   *start.ns, *end.ns),
       fmt::format("the ranks' CPUs were {:.0f} ns apart at the start of the run and {:.0f} ns at its end (a cache "
                   "line's one-way trip, ranks {} and {}): the host moved this job's CPUs during the run, and sizes "
                   "that fit in the caches can take twice as long in one placement as in the other; compare only runs "
                   "whose cpu_distance readings agree, or rerun",
                   *start.ns, *end.ns, end.first_rank, end.second_rank)});
}

}  // namespace distbench::cli
