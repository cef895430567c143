#include "benchmarks/tp/tp_benchmark.hpp"

#include "benchmarks/tp/tp_record.hpp"
#include "core/comm/groups.hpp"
#include "core/error.hpp"
#include "core/measure/sizes.hpp"
#include "core/measure/stats.hpp"
#include "core/measure/units.hpp"
#include "numerics/host_math.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

namespace distbench::tp {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

void TpBenchmark::check(World& world) const {
  const int n = world.connector().size(), g = group_size(n);
  if (g < 1 || n % g != 0) {
    throw usage_error(
        fmt::format("--group-size {} does not divide the world of {} ranks: model-parallel groups are "
                    "consecutive ranks, all of one size",
                    g, n));
  }
  require_dense_math(world, "tp");
  std::uint64_t need = 0;
  if (plan_.layers.empty()) {
    for (int dim : plan_.dims) {
      const ShardLayout l = shard_layout(plan_.shape, dim, g);  // throws when G does not divide the dim
      need = std::max<std::uint64_t>(need, (2 * l.full.elements() + l.shard.elements()) * size_of(plan_.dtype));
    }
  } else {
    for (LayerKind k : plan_.layers) {
      check_divisible(k, plan_.layer, g);
      need = std::max(need, layer_bytes(k, plan_.layer, g));
    }
  }
  const std::uint64_t have = world.device().memory_available(world.connector().local_size());
  if (have != 0 && need > have) {
    throw usage_error(fmt::format("tp needs {} per rank and {} has {} for each of its ranks; lower {}",
                                  format_bytes(need), world.connector().hostname(), format_bytes(have),
                                  plan_.layers.empty() ? "--shape" : "--in, --out or --batch"));
  }
}

RunDescription TpBenchmark::describe(const RunInfo& info) const {
  RunDescription d;
  d.benchmark = "tp";
  const int g = group_size(info.world_size);
  const std::string groups = fmt::format("{} group{} of {} consecutive ranks", info.world_size / std::max(1, g),
                                         info.world_size / std::max(1, g) == 1 ? "" : "s", g);
  d.console_preamble = {
      fmt::format("backend: {}   world size: {}   model-parallel: {}", info.backend, info.world_size, groups)};
  d.summarize = tp_summary;
  if (plan_.layers.empty()) {
    d.title = "tp operations";
    nlohmann::ordered_json ops = nlohmann::ordered_json::array(), dims = nlohmann::ordered_json::array();
    for (Op op : plan_.ops) ops.push_back(std::string(name(op)));
    for (int dim : plan_.dims) dims.push_back(dim);
    d.config = {{"group_size", g},
                {"shape", shape_text(plan_.shape)},
                {"dims", dims},
                {"ops", ops},
                {"dtype", std::string(distbench::name(plan_.dtype))},
                {"iters", plan_.iters},
                {"warmup_iters", plan_.warmup},
                {"check", plan_.check},
                {"timeout_s", plan_.timeout_s}};
    d.records = ops_layout();
    d.table = ops_table();
    d.console_preamble.push_back(fmt::format(
        "tensor {} {} ({}); forward and backward of each operation; samples: {} after {} warm-up; check: {}",
        shape_text(plan_.shape), distbench::name(plan_.dtype),
        format_bytes(plan_.shape.elements() * size_of(plan_.dtype)), plan_.iters, plan_.warmup,
        plan_.check ? "exact" : "off"));
    d.facts = {fmt::format("backend {}", info.backend), fmt::format("{} ranks", info.world_size), groups,
               fmt::format("tensor {} {}", shape_text(plan_.shape), distbench::name(plan_.dtype))};
    return d;
  }
  d.title = "tp layers";
  nlohmann::ordered_json layers = nlohmann::ordered_json::array();
  for (LayerKind k : plan_.layers) layers.push_back(std::string(name(k)));
  d.config = {{"group_size", g},
              {"layers", layers},
              {"in", plan_.layer.in},
              {"out", plan_.layer.out},
              {"batch", plan_.layer.batch},
              {"iters", plan_.iters},
              {"warmup_iters", plan_.warmup},
              {"check", plan_.check},
              {"timeout_s", plan_.timeout_s}};
  d.records = layers_layout();
  d.table = layers_table();
  d.console_preamble.push_back(
      fmt::format("layers: in {} out {} batch {}, fp32, forward + backward; samples: {} after {} warm-up; check: {}",
                  plan_.layer.in, plan_.layer.out, plan_.layer.batch, plan_.iters, plan_.warmup,
                  plan_.check ? "against one rank, each element within the float32 rounding bound of its sums" : "off"));
  d.facts = {fmt::format("backend {}", info.backend), fmt::format("{} ranks", info.world_size), groups,
             fmt::format("in {} out {} batch {}", plan_.layer.in, plan_.layer.out, plan_.layer.batch)};
  return d;
}

BenchmarkOutcome TpBenchmark::run(World& world, Watchdog& watchdog, Reporter* reporter, const ProgressFn& progress) {
  Connector& connector = world.connector();
  Communicator* group = nullptr;
  {
    const ArmedStep step = watchdog.arm(StepKind::setup, "tp: creating the model-parallel groups' communicators");
    group = &world.communicator(consecutive_partition(connector.size(), group_size(connector.size())), step);
  }
  if (group->local_parts() != 1) throw usage_error("tp runs one rank per process: run with -g 1");
  std::unique_ptr<HostMath> host_math;
  DenseMath& math = device_math(world, host_math);  // a GPU's own, else the CPU's
  return plan_.layers.empty() ? run_ops(world, *group, math, watchdog, reporter, progress)
                              : run_layers(world, *group, math, watchdog, reporter, progress);
}

BenchmarkOutcome TpBenchmark::run_ops(World& world, Communicator& group, DenseMath& math, Watchdog& watchdog,
                                      Reporter* reporter, const ProgressFn& progress) {
  Connector& connector = world.connector();
  const bool root = connector.is_root();
  const int n = connector.size(), g = group_size(n);
  const Seconds timeout(plan_.timeout_s);
  struct Row {
    Op op;
    Pass pass;
    int dim;  // -1: the primitive does not depend on it
  };
  std::vector<Row> rows;
  for (Op op : plan_.ops) {
    for (Pass pass : {Pass::forward, Pass::backward}) {
      if (!along_dim(primitive(op, pass))) {
        rows.push_back({op, pass, -1});
        continue;
      }
      for (int dim : plan_.dims) rows.push_back({op, pass, dim});
    }
  }
  BenchmarkOutcome outcome;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& row = rows[i];
    const Primitive prim = primitive(row.op, row.pass);
    const std::string label = fmt::format("{} {}{}", name(row.op), name(row.pass),
                                          row.dim < 0 ? std::string() : fmt::format(" along dim {}", row.dim));
    if (root && progress) progress(i, rows.size(), label);
    // Buffers of this row only (allocated outside the timed runs): one layout's at a time.
    OpRunner r(group, world.device(), math, shard_layout(plan_.shape, std::max(row.dim, 0), g), plan_.dtype);
    std::int64_t wrong = -1;
    if (plan_.check) {
      {
        const ArmedStep step = watchdog.arm(StepKind::verification, "tp: " + label + ": the checked run");
        r.prepare(prim);
        r.run(prim, timeout);
      }
      const ArmedStep step = watchdog.arm(StepKind::check_count, "tp: " + label + ": counting the wrong elements");
      const auto mine = static_cast<std::int64_t>(r.count_wrong(prim));
      wrong = 0;
      for (auto w : allgather_value(connector, mine, step)) wrong += w;
      outcome.wrong += wrong;
    }
    std::vector<double> samples;
    {
      const ArmedStep step = watchdog.arm(StepKind::tp_step, "tp: " + label);
      r.prepare(prim);
      for (int s = 0; s < plan_.warmup + plan_.iters; ++s) {
        watchdog.arm_again();
        if (prim == Primitive::allreduce) r.prepare(prim);  // in place: keep the sums from growing without bound
        connector.barrier(step);
        const auto t0 = std::chrono::steady_clock::now();
        r.run(prim, timeout);
        if (s >= plan_.warmup) samples.push_back(seconds_since(t0));
      }
    }
    std::vector<std::vector<double>> by_rank;
    {
      const ArmedStep step = watchdog.arm(StepKind::gather, "tp: " + label + ": gathering the samples");
      by_rank = gather_vector<double>(connector, std::span<const double>(samples), connector.root_rank(), step);
    }
    if (!root || reporter == nullptr) continue;
    const ArmedStep writing = watchdog.arm(StepKind::report, "tp: " + label + ": writing the results");
    const Record rec =
        op_record(plan_, {std::string(group.backend()), row.op, row.pass, row.dim, g, n}, by_rank, wrong);
    reporter->add({rec});
    if (wrong > 0) {
      outcome.warnings.push_back(
          {"tp_mismatch", fmt::format("tp {}: {} elements differ from the non-parallel result", label, wrong)});
    }
  }
  if (root && progress) progress(rows.size(), rows.size(), "");
  return outcome;
}

BenchmarkOutcome TpBenchmark::run_layers(World& world, Communicator& group, DenseMath& math, Watchdog& watchdog,
                                         Reporter* reporter, const ProgressFn& progress) {
  Connector& connector = world.connector();
  const bool root = connector.is_root();
  const int n = connector.size(), g = group_size(n);
  const Seconds timeout(plan_.timeout_s);
  const int threads = cpu_threads_per_rank(connector.local_size());
  BenchmarkOutcome outcome;
  for (std::size_t i = 0; i < plan_.layers.size(); ++i) {
    const LayerKind kind = plan_.layers[i];
    const std::string label = fmt::format("{} layer", name(kind));
    if (root && progress) progress(i, plan_.layers.size(), label);
    ParallelLayer layer(kind, plan_.layer, group, world.device(), math, plan_.seed);
    std::int64_t wrong = -1;
    double max_diff = kNotMeasured, over_bound = kNotMeasured;
    if (plan_.check) {
      {
        const ArmedStep step = watchdog.arm(StepKind::verification, "tp: " + label + ": the checked step");
        layer.step(timeout);
      }
      const ArmedStep step = watchdog.arm(StepKind::check_count, "tp: " + label + ": checking against one rank");
      const LayerCheck c = layer.check(threads);
      wrong = 0;
      for (auto w : allgather_value(connector, static_cast<std::int64_t>(c.wrong), step)) wrong += w;
      const auto diffs = allgather_value(connector, c.max_rel_diff, step);
      max_diff = *std::max_element(diffs.begin(), diffs.end());
      const auto over = allgather_value(connector, c.max_over_bound, step);
      over_bound = *std::max_element(over.begin(), over.end());
      outcome.wrong += wrong;
    }
    std::vector<double> step_s, forward_s, backward_s, comm_s;
    {
      const ArmedStep step = watchdog.arm(StepKind::tp_step, "tp: " + label);
      for (int s = 0; s < plan_.warmup + plan_.iters; ++s) {
        watchdog.arm_again();
        connector.barrier(step);
        const auto t0 = std::chrono::steady_clock::now();
        const LayerTimes t = layer.step(timeout);
        const double total = seconds_since(t0);
        if (s < plan_.warmup) continue;
        step_s.push_back(total);
        forward_s.push_back(t.forward);
        backward_s.push_back(t.backward);
        comm_s.push_back(t.comm);
      }
    }
    std::vector<std::vector<double>> steps, forwards, backwards, comms;
    {
      const ArmedStep step = watchdog.arm(StepKind::gather, "tp: " + label + ": gathering the samples");
      const int to = connector.root_rank();
      steps = gather_vector<double>(connector, std::span<const double>(step_s), to, step);
      forwards = gather_vector<double>(connector, std::span<const double>(forward_s), to, step);
      backwards = gather_vector<double>(connector, std::span<const double>(backward_s), to, step);
      comms = gather_vector<double>(connector, std::span<const double>(comm_s), to, step);
    }
    if (!root || reporter == nullptr) continue;
    const ArmedStep writing = watchdog.arm(StepKind::report, "tp: " + label + ": writing the results");
    const ShownStep shown = median_step(steps, forwards, backwards, comms);
    const double step = shown.step, comm = shown.parts.comm;
    const Record rec = layer_record(plan_, {std::string(group.backend()), kind, g, n},
                                    {shown, layer.flops(), wrong, max_diff, over_bound}, steps, comms);
    reporter->add({rec});
    if (shown.parts.forward + shown.parts.backward > step || comm > step) {
      outcome.warnings.push_back(
          {"figure_out_of_range",
           fmt::format("tp {}: the step shown ({:.4g} ms, host clock) is shorter than its parts (forward {:.4g} + "
                       "backward {:.4g} ms on the device, comm {:.4g} ms): the two clocks disagree; compare the "
                       "parts with one another, not with the step",
                       label, step * kMilli, shown.parts.forward * kMilli, shown.parts.backward * kMilli,
                       comm * kMilli)});
    }
    if (wrong > 0) {
      outcome.warnings.push_back(
          {"tp_mismatch", fmt::format("tp {}: {} elements of outputs and gradients differ from the single-rank layer "
                                      "by more than float32 rounding allows (up to {:.3g} times their bound; largest "
                                      "relative difference {:.3g})",
                                      label, wrong, over_bound, max_diff)});
    }
  }
  if (root && progress) progress(plan_.layers.size(), plan_.layers.size(), "");
  return outcome;
}

}  // namespace distbench::tp
