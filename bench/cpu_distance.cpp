// How far apart two CPUs are right now: the one-way time of a cache line bounced between two threads pinned to them
// (core/sys/cache_line_ping.hpp, the primitive behind a run's cpu_distance readings). On a shared VM the host moves
// the guest's CPUs between cores that share an L3 (tens of ns) and cores that do not (hundreds), and every tool's
// small sizes run up to 3x slower in the second placement; bench/compare_methods.py runs this before and after each
// run to tell which placement the run met, the same witness for distbench and the peers.
//
//   build/bench/distbench-cpu-distance [--cpus 0,1] [--round-trips 20000]
//
// Prints one JSON object, {"ns": <one way>, "cpus": [a, b], "round_trips": n}; on an error (a CPU this process may not
// use, the same CPU twice, a negative one) one line on stderr ("error: ...") and exit status 1. Takes a few
// milliseconds; gives up after a second.
#include "core/sys/cache_line_ping.hpp"

#include <fmt/format.h>
#include <sched.h>
#include <CLI/CLI.hpp>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

// Pins the calling thread to `cpu`; throws with the CPU and the system's reason when it may not run there.
void pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) {
    throw std::runtime_error(
        fmt::format("cannot run a thread on CPU {} (sched_setaffinity: {}); give two CPUs this "
                    "process may use with --cpus A,B",
                    cpu, std::strerror(errno)));
  }
}

double one_way_ns(int lead_cpu, int follow_cpu, int round_trips) {
  distbench::PingLine line;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  std::optional<std::runtime_error> follower_error;
  std::thread follower([&] {
    try {
      pin_to(follow_cpu);
      distbench::follow_pings(line, 0, round_trips, deadline);
    } catch (const std::runtime_error& e) {
      follower_error = e;
    }
  });
  std::optional<double> ns;
  std::optional<std::runtime_error> leader_error;
  try {
    pin_to(lead_cpu);
    ns = distbench::lead_pings(line, 0, round_trips, deadline);
  } catch (const std::runtime_error& e) {
    leader_error = e;
  }
  follower.join();
  if (leader_error) throw *leader_error;
  if (follower_error) throw *follower_error;
  if (!ns) throw std::runtime_error("the two threads did not finish their pings within a second");
  return *ns;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The one-way time of a cache line between two CPUs, now (bench/compare_methods.py's placement probe)"};
  std::vector<int> cpus{0, 1};
  int round_trips = 20000;
  app.add_option("--cpus", cpus, "the two CPUs, A,B (two different ones)")
      ->delimiter(',')
      ->expected(2)
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  app.add_option("--round-trips", round_trips, "round trips timed (the first tenth untimed)")
      ->check(CLI::Range(2, 10'000'000))
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "error: %s (see --help)\n", e.what());
    return 1;
  }
  if (cpus[0] == cpus[1]) {  // one CPU would ping itself: a time, but no distance between two CPUs
    std::fprintf(stderr,
                 "error: --cpus %d,%d names CPU %d twice; the probe times a cache line between two CPUs: give "
                 "two different ones, e.g. --cpus 0,1\n",
                 cpus[0], cpus[1], cpus[0]);
    return 1;
  }
  try {
    const double ns = one_way_ns(cpus[0], cpus[1], round_trips);
    fmt::print("{{\"ns\": {:.1f}, \"cpus\": [{}, {}], \"round_trips\": {}}}\n", ns, cpus[0], cpus[1], round_trips);
    return 0;
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
