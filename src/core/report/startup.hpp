// How long the job took to form, as every rank saw it: each phase from the process's start to the first collective
// over the world, and how much later than the first rank each rank began. The first thing that breaks at scale
// (launchers, MPI_Init, the rendezvous, NCCL's communicators and its connections at the first call), named by rank
// and host.
#pragma once

#include "core/measure/rank_summary.hpp"
#include "core/report/record.hpp"

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace distbench {

// The phases in order; each rank's phases add up to its "total".
struct StartupPhaseName {
  std::string_view key;   // the JSON key ("connect_s" ...)
  std::string_view what;  // in words, for the header and docs
};
inline constexpr std::array<StartupPhaseName, 7> kStartupPhases{{
    {"launch_s", "process start to main(): exec, the dynamic loader, the libraries' initialisers"},
    {"options_s", "main() to the connector: the command line and its checks"},
    {"connect_s", "the connector: MPI_Init, or the env:// rendezvous"},
    {"backend_s", "choosing the backend on every rank"},
    {"communicator_s", "the world's communicator (NCCL: ncclCommInitRank)"},
    {"first_collective_s",
     "the first collective over the world, one element and its buffers (NCCL makes its connections here)"},
    {"total_s", "process start to the end of the first collective"},
}};
inline constexpr std::size_t kStartupTotal = kStartupPhases.size() - 1;

// Up to this many ranks, a report lists every rank's start-up; above it, the distributions alone (their size does
// not grow with the ranks).
inline constexpr int kStartupRanksListed = 64;

struct StartupRank {
  int rank = 0;
  std::string host;
  std::array<double, kStartupPhases.size()> seconds{};  // kStartupPhases' order; NaN: not measured
  double late_s = 0;                                    // how long after the first rank this rank entered main()
};

struct StartupRecord {
  std::vector<RankDistribution> phases;  // one per kStartupPhases entry; empty: not measured
  RankDistribution late;                 // late_s over ranks
  std::vector<StartupRank> ranks;        // every rank, up to kStartupRanksListed ranks; empty above
  bool measured() const { return !phases.empty(); }
};

// The record from every rank's figures (`ranks[r]` is rank r's), with `list_up_to` as kStartupRanksListed.
StartupRecord startup_record(std::vector<StartupRank> ranks, int list_up_to = kStartupRanksListed);

// A rank that began this long after the first is named in a warning (late_start).
inline constexpr double kLateStartWarnSeconds = 5.0;

// The warning "late_start" naming the rank that began last, when it began kLateStartWarnSeconds or more after the
// first.
std::optional<Warning> late_start_warning(const StartupRecord& s);

// The header's lines ("start-up: ..."; a second, "started late: ...", when a rank began 0.5 s or more after the first).
std::vector<std::string> startup_lines(const StartupRecord& s);

}  // namespace distbench
