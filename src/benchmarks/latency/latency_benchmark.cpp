#include "benchmarks/latency/latency_benchmark.hpp"

#include "benchmarks/latency/latency_record.hpp"
#include "benchmarks/latency/osu_counts.hpp"
#include "benchmarks/latency/ping_pong.hpp"
#include "core/comm/buffer_pages.hpp"
#include "core/comm/checker_everywhere.hpp"
#include "core/comm/groups.hpp"
#include "core/comm/phase_over_ranks.hpp"
#include "core/comm/sampler.hpp"
#include "core/device/memory_budget.hpp"
#include "core/error.hpp"
#include "core/measure/sizes.hpp"
#include "core/measure/units.hpp"
#include "core/report/json_model.hpp"
#include "core/report/text.hpp"
#include "core/sys/deadline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <string>

namespace distbench::latency {
namespace {

// How many round trips a case makes, for the header and the report: osu_latency's counts where they apply.
std::string round_trips_text(const LatencyPlan& plan) {
  const RoundTrips small = osu_latency_round_trips(1);
  const RoundTrips large = osu_latency_round_trips(kOsuLargeMessageFrom + 1);
  const std::string limit = format_bytes(kOsuLargeMessageFrom);
  if (plan.osu_warmup && plan.osu_timed) {
    return fmt::format(
        "osu_latency's, {} untimed then {} timed up to {}, {} and {} above (timed for at most {:g} s "
        "per size)",
        small.warmup, small.timed, limit, large.warmup, large.timed, plan.osu_max_time_s);
  }
  const std::string warmup =
      plan.osu_warmup ? fmt::format("{} untimed up to {}, {} above (osu_latency's)", small.warmup, limit, large.warmup)
                      : fmt::format("{} untimed", plan.warmup_iters);
  const std::string timed =
      plan.osu_timed ? fmt::format("at least {} timed up to {}, {} above (osu_latency's; for at most {:g} s per size)",
                                   small.timed, limit, large.timed, plan.osu_max_time_s)
                     : fmt::format("samples {}", samples_text(plan.stopping));
  return warmup + ", then " + timed;
}

}  // namespace

void check_pairs(int world_size) {
  if (world_size < 2 || world_size % 2 != 0) {
    throw usage_error(
        fmt::format("latency pairs ranks 0-1, 2-3, ...: {} ranks do not pair up; run an even number "
                    "of ranks (mpirun -np 2, 4, ...)",
                    world_size));
  }
}

void LatencyBenchmark::check(World& world) const {
  check_pairs(world.connector().size());
  if (world.connector().is_root()) per_rank_file_->claim();
  const std::uint64_t largest = plan_.sizes.empty() ? 0 : *std::max_element(plan_.sizes.begin(), plan_.sizes.end());
  const std::uint64_t need = add_saturating(largest, largest);  // a send and a receive buffer
  const std::uint64_t have = world.device().memory_available(world.connector().local_size());
  if (have != 0 && need > have) {
    throw usage_error(
        fmt::format("a {} B message needs {} B (a send and a receive buffer), over the {} B available to each "
                    "rank on {}; lower -e/--maxbytes",
                    largest, need, have, world.connector().hostname()));
  }
}

RunDescription LatencyBenchmark::describe(const RunInfo& info) const {
  RunDescription d;
  d.benchmark = "latency";
  d.title = "latency";
  d.config = {{"sizes", plan_.sizes},
              {"pairs", info.world_size / 2},
              {"method", "blocking send/receive ping-pong, one-way time = half a round trip"},
              {"warmup_iters", plan_.osu_warmup ? nlohmann::json() : nlohmann::json(plan_.warmup_iters)},
              {"round_trips", round_trips_text(plan_)},
              {"stopping", stopping_json(plan_.stopping)},
              {"check", plan_.check},
              {"timeout_s", plan_.timeout_s}};
  d.records = latency_record_layout();
  d.table = latency_table();
  d.plots = {{metrics::latency.key, "one_way"}};
  const std::string sweep = plan_.sizes.empty() ? "no sizes"
                                                : fmt::format("{} .. {} B, {}", plan_.sizes.front(), plan_.sizes.back(),
                                                              plural(plan_.sizes.size(), "size", "sizes"));
  d.console_preamble = {
      fmt::format("latency: blocking send/receive ping-pong (as osu_latency) in pairs 0-1, 2-3, ... ({} at once); "
                  "one-way time = half a round trip",
                  plural(static_cast<std::size_t>(info.world_size / 2), "pair", "pairs")),
      fmt::format("backend: {}   world size: {}   ranks per host: {}{}", info.backend, info.world_size,
                  ranks_per_host_text(info.ranks), mpi_threads_text(info)),
      fmt::format("sweep: {}", sweep),
      fmt::format("round trips: {}   check: {}", round_trips_text(plan_), plan_.check ? "on" : "off")};
  const std::uint64_t largest = plan_.sizes.empty() ? 0 : *std::max_element(plan_.sizes.begin(), plan_.sizes.end());
  if (std::string memory = host_memory_text(info, largest); !memory.empty()) {
    d.console_preamble.push_back(std::move(memory));
  }
  d.facts = {fmt::format("backend {}", info.backend),
             fmt::format("{} ranks, per host: {}", info.world_size, ranks_per_host_text(info.ranks)),
             plural(static_cast<std::size_t>(info.world_size / 2), "pair", "pairs"), sweep,
             fmt::format("round trips: {}", round_trips_text(plan_))};
  d.summarize = latency_summary;
  d.per_rank = plan_.per_rank.policy();
  return d;
}

namespace {

// The communicator of this rank's pair: ranks 0-1, 2-3, ...
Communicator& pair_communicator(World& world, Watchdog& watchdog) {
  const Partition pairs = consecutive_partition(world.connector().size(), 2);
  const ArmedStep step = watchdog.arm(StepKind::setup, "creating the pairs' communicators");
  return world.communicator(pairs, step);
}

std::vector<std::string> gather_hosts(Connector& connector, Watchdog& watchdog) {
  const ArmedStep step = watchdog.arm(StepKind::setup, "gathering the ranks' hosts");
  return allgather_string(connector, connector.hostname(), step);
}

// A size's warm-up and samples: osu_latency's round trips where the plan follows it, else the plan's own.
SamplingRules round_trip_rules(const LatencyPlan& plan, std::uint64_t bytes, Seconds timeout) {
  const RoundTrips osu = osu_latency_round_trips(bytes);
  SamplingRules rules{plan.osu_warmup ? osu.warmup : plan.warmup_iters, plan.stopping, timeout};
  if (plan.osu_timed) {
    rules.min_timed_ops = osu.timed;
    rules.min_ops_max_time_s = plan.osu_max_time_s;
  }
  return rules;
}

// The pair's round trips sampled, each sample halved: a round trip is two one-way messages.
Sampling sample_one_way(Connector& connector, const PingPong& pp, const std::string& label, const SamplingRules& rules,
                        Watchdog& watchdog) {
  Communicator* comm = pp.comm;
  const TimedOperation op{label,
                          [&pp](int times, const ArmedStep& step) {
                            for (int t = 0; t < times; ++t) pp.round_trip(step);
                          },
                          [comm](Seconds t) { comm->synchronize(t); },
                          [comm] { return comm->make_timer(); },
                          {}};
  Sampling sampling = sample_operation(connector, op, rules, watchdog);
  for (double& s : sampling.samples) s /= 2;
  return sampling;
}

// Each rank's mean gathered, the samples reduced along a tree: no rank's samples whole.
ReducedPhase gather_one_way(Connector& connector, const std::vector<double>& samples, Watchdog& watchdog,
                            const std::string& label) {
  const ArmedStep step = watchdog.arm(StepKind::gather, label + ": gathering samples");
  return reduce_phase_over_ranks(connector, "one_way", samples, RankAverage::avg, connector.root_rank(), step,
                                 deadline_after(2 * watchdog.timeout_s()));
}

}  // namespace

BenchmarkOutcome LatencyBenchmark::run(World& world, Watchdog& watchdog, Reporter* reporter,
                                       const ProgressFn& progress) {
  Connector& connector = world.connector();
  const bool root = connector.is_root();
  Communicator* comm = &pair_communicator(world, watchdog);
  const std::vector<std::string> hosts = gather_hosts(connector, watchdog);
  if (root) per_rank_file_->begin("latency", hosts);
  const std::uint64_t largest = plan_.sizes.empty() ? 1 : *std::max_element(plan_.sizes.begin(), plan_.sizes.end());
  // Separate send and receive buffers starting at a page boundary, as osu_latency's.
  auto send_buffer = world.device().allocate_placed(std::max<std::uint64_t>(largest, 1), HostPlacement::page_start);
  auto recv_buffer = world.device().allocate_placed(std::max<std::uint64_t>(largest, 1), HostPlacement::page_start);
  const Seconds timeout(plan_.timeout_s);

  if (plan_.check) {  // the checker of verify_ping_pong, checked once
    const CheckerCase checked{Collective::broadcast, DType::uint8, ReduceOp::sum, 2, comm->rank()};
    check_checker_everywhere(world, watchdog, std::span(&checked, 1));
  }
  BenchmarkOutcome outcome;
  outcome.facts = buffer_huge_pages_fact(world, {send_buffer.get(), recv_buffer.get()}, watchdog);
  for (std::size_t i = 0; i < plan_.sizes.size(); ++i) {
    const std::uint64_t bytes = plan_.sizes[i];
    const std::string label = fmt::format("latency {}", format_bytes(bytes));
    if (root && progress) progress(i, plan_.sizes.size(), label);
    const PingPong pp{comm, send_buffer.get(), recv_buffer.get(), bytes, timeout};
    const Sampling sampling = sample_one_way(connector, pp, label, round_trip_rules(plan_, bytes, timeout), watchdog);
    std::int64_t wrong = -1;
    if (plan_.check) wrong = verify_ping_pong(world, pp, watchdog, label);
    outcome.wrong += std::max<std::int64_t>(wrong, 0);
    ReducedPhase one_way = gather_one_way(connector, sampling.samples, watchdog, label);
    if (root) {
      const ArmedStep step = watchdog.arm(StepKind::report, label + ": writing the results");
      const std::vector<Record> row = {latency_record(bytes, std::string(comm->backend()), std::move(one_way),
                                                      sampling.ops_per_sample, sampling.noise_target_met, wrong,
                                                      hosts)};
      per_rank_file_->add(row);
      if (reporter != nullptr) reporter->add(row);
    }
  }
  if (root && progress) progress(plan_.sizes.size(), plan_.sizes.size(), "");
  if (root) per_rank_file_->finish();
  return outcome;
}

}  // namespace distbench::latency
