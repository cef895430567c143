#include "benchmarks/latency/latency_benchmark.hpp"

#include "benchmarks/latency/ping_pong.hpp"

#include "core/buffer_pages.hpp"
#include "core/error.hpp"
#include "core/memory_budget.hpp"
#include "core/report/json_model.hpp"
#include "core/report/summary_items.hpp"
#include "core/groups.hpp"
#include "core/phase_stats.hpp"
#include "core/report/text.hpp"
#include "core/sampler.hpp"
#include "core/sizes.hpp"
#include "core/units.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace distbench {
namespace {


// A latency record with its parameters and nothing measured yet.
Record latency_case(std::uint64_t bytes, const std::string& backend, std::size_t pairs) {
  Record r;
  r.kind = "latency";
  r.set("backend", backend)
      .set("bytes", static_cast<std::int64_t>(bytes))
      .set("pairs", static_cast<std::int64_t>(pairs));
  return r;
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

RecordLayout latency_record_layout() {
  RecordLayout l;
  l.params = {"backend", "bytes", "pairs"};
  l.phases = {"one_way"};
  l.metrics = {{"latency_us", "us", "one-way time, mean over ranks of each rank's mean (OSU's latency)"},
               {"latency_median_us", "us", "median over samples of the mean over ranks"},
               {"latency_p99_us", "us", "99th percentile over samples of the mean over ranks"},
               {"slowest_rank_us", "us", "the slowest rank's mean: its pair's one-way time"},
               {"bandwidth_gbps", "GB/s", "bytes / latency (1e9 B/s), as the collectives' algbw"},
               {"wrong", "1", "wrong elements (bytes: it moves uint8) over both directions and all ranks; null when not checked"}};
  l.rank_figures = {{"latency_us", "us", "this rank's mean one-way time"},
                    {"peer", "rank", "the other rank of its pair"}};
  return l;
}

TableLayout latency_table() {
  TableLayout t;
  t.key_columns = {{"bytes", "size", "(B)", 12, CellFormat::integer, "size (B)"},
                   {"pairs", "pairs", "", 5, CellFormat::integer, "pairs"}};
  t.value_columns = {{"latency_us", "latency", "(us)", 10, CellFormat::time_us, "latency (us)"},
                     {"latency_median_us", "median", "(us)", 10, CellFormat::time_us, "median (us)"},
                     {"latency_p99_us", "p99", "(us)", 10, CellFormat::time_us, "p99 (us)"},
                     {"slowest_rank_us", "slowest", "(us)", 10, CellFormat::time_us, "slowest rank (us)"},
                     {"bandwidth_gbps", "bw", "(GB/s)", 10, CellFormat::bandwidth, "bw (GB/s)"},
                     {"wrong", "#wrong", "", 6, CellFormat::checked, "#wrong"}};
  return t;
}

std::vector<SummaryItem> latency_summary(const std::vector<Record>& records) {
  const Record* smallest = nullptr;
  for (const Record& r : records) {
    if (r.ok() && smallest == nullptr) smallest = &r;
  }
  std::vector<SummaryItem> items;
  if (smallest != nullptr) {
    const double us = smallest->metric("latency_us");
    items.push_back({"smallest_latency_us", "Latency of the smallest message", us,
                     fmt::format("{} us ({} B)", time_text(us), smallest->param_text("bytes"))});
  } else {
    items.push_back({"smallest_latency_us", "Latency of the smallest message", kNotMeasured, "N/A (nothing measured)"});
  }
  items.push_back(wrong_item(records, "Wrong elements"));  // the collectives' word (its elements are bytes)
  return items;
}

Record latency_record(std::uint64_t bytes, const std::string& backend, const std::vector<std::vector<double>>& by_rank,
                      int ops_per_sample, bool noise_target_met, std::int64_t wrong,
                      const std::vector<std::string>& hosts) {
  Record r = latency_case(bytes, backend, by_rank.size() / 2);
  r.ops_per_sample = ops_per_sample;
  r.noise_target_met = noise_target_met;
  ReducedPhase phase = reduce_phase("one_way", by_rank, RankAverage::avg);
  const PhaseStats& p = phase.stats;
  const double latency = p.rank_spread.avg;
  r.set_metric("latency_us", latency * kMicro)
      .set_metric("latency_median_us", p.summary.median * kMicro)
      .set_metric("latency_p99_us", p.summary.p99 * kMicro)
      .set_metric("slowest_rank_us", p.rank_spread.max * kMicro)
      .set_metric("bandwidth_gbps", latency > 0 ? static_cast<double>(bytes) / latency / 1e9 : kNotMeasured)
      .set_metric("wrong", wrong < 0 ? kNotMeasured : static_cast<double>(wrong));
  for (std::size_t i = 0; i < phase.rank_means.size(); ++i) {
    RankFigures f;
    f.rank = static_cast<int>(i);
    if (i < hosts.size()) f.host = hosts[i];
    f.figures = {{"latency_us", phase.rank_means[i] * kMicro}, {"peer", static_cast<double>(i ^ 1U)}};
    r.ranks.push_back(std::move(f));
  }
  r.phases.push_back(std::move(phase.stats));
  return r;
}

void LatencyBenchmark::check(World& world) const {
  check_pairs(world.connector().size());
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
              {"warmup_iters", plan_.warmup_iters},
              {"stopping", stopping_json(plan_.stopping)},
              {"check", plan_.check},
              {"timeout_s", plan_.timeout_s}};
  d.records = latency_record_layout();
  d.table = latency_table();
  d.plots = {{"latency_us", "one_way"}};
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
      fmt::format("samples: {}   warm-up: {} round trips   check: {}", samples_text(plan_.stopping), plan_.warmup_iters,
                  plan_.check ? "on" : "off")};
  const std::uint64_t largest = plan_.sizes.empty() ? 0 : *std::max_element(plan_.sizes.begin(), plan_.sizes.end());
  if (std::string memory = host_memory_text(info, largest); !memory.empty()) {
    d.console_preamble.push_back(std::move(memory));
  }
  d.facts = {fmt::format("backend {}", info.backend),
             fmt::format("{} ranks, per host: {}", info.world_size, ranks_per_host_text(info.ranks)),
             plural(static_cast<std::size_t>(info.world_size / 2), "pair", "pairs"), sweep,
             fmt::format("samples: {}", samples_text(plan_.stopping))};
  d.summarize = latency_summary;
  return d;
}

BenchmarkOutcome LatencyBenchmark::run(World& world, Watchdog& watchdog, Reporter* reporter,
                                       const ProgressFn& progress) {
  Connector& connector = world.connector();
  const bool root = connector.is_root();
  const Partition pairs = consecutive_partition(connector.size(), 2);
  Communicator* comm = nullptr;
  {
    auto guard = watchdog.arm("creating the pairs' communicators");
    comm = &world.communicator(pairs);
  }
  const std::vector<std::string> hosts = allgather_string(connector, connector.hostname());
  const std::uint64_t largest = plan_.sizes.empty() ? 1 : *std::max_element(plan_.sizes.begin(), plan_.sizes.end());
  // Separate send and receive buffers starting at a page boundary, as osu_latency's.
  auto send_buffer = world.device().allocate_placed(std::max<std::uint64_t>(largest, 1), HostPlacement::page_start);
  auto recv_buffer = world.device().allocate_placed(std::max<std::uint64_t>(largest, 1), HostPlacement::page_start);
  const Seconds timeout(plan_.timeout_s);

  BenchmarkOutcome outcome;
  outcome.facts = buffer_huge_pages_fact(world, {send_buffer.get(), recv_buffer.get()}, watchdog);
  for (std::size_t i = 0; i < plan_.sizes.size(); ++i) {
    const std::uint64_t bytes = plan_.sizes[i];
    const std::string label = fmt::format("latency {}", format_bytes(bytes));
    if (root && progress) progress(i, plan_.sizes.size(), label);
    const PingPong pp{comm, send_buffer.get(), recv_buffer.get(), bytes, timeout};
    const TimedOperation op{label,
                            [&pp](int times) {
                              for (int t = 0; t < times; ++t) pp.round_trip();
                            },
                            [comm](Seconds t) { comm->synchronize(t); },
                            [comm] { return comm->make_timer(); },
                            {}};
    Sampling sampling = sample_operation(connector, op, {plan_.warmup_iters, plan_.stopping, timeout}, watchdog);
    for (double& s : sampling.samples) s /= 2;  // a round trip is two one-way messages
    std::int64_t wrong = -1;
    if (plan_.check) {
      auto guard = watchdog.arm(label + ": verification");
      wrong = verify_ping_pong(world, pp);
    }
    outcome.wrong += std::max<std::int64_t>(wrong, 0);
    std::vector<std::vector<double>> by_rank;
    {
      auto guard = watchdog.arm(label + ": gathering samples");
      by_rank = gather_vector<double>(connector, sampling.samples, connector.root_rank());
    }
    if (root && reporter != nullptr) {
      reporter->add({latency_record(bytes, std::string(comm->backend()), by_rank, sampling.ops_per_sample,
                                    sampling.noise_target_met, wrong, hosts)});
    }
  }
  if (root && progress) progress(plan_.sizes.size(), plan_.sizes.size(), "");
  return outcome;
}

}  // namespace distbench
