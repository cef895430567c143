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
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

namespace distbench::tp {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// One row of the operations' table: an operation, a pass, and the dim it runs along.
struct OpRow {
  Op op;
  Pass pass;
  int dim;  // -1: the primitive does not depend on it
};

std::vector<OpRow> op_rows(const TpPlan& plan) {
  std::vector<OpRow> rows;
  for (Op op : plan.ops) {
    for (Pass pass : {Pass::forward, Pass::backward}) {
      if (!along_dim(primitive(op, pass))) {
        rows.push_back({op, pass, -1});
        continue;
      }
      for (int dim : plan.dims) rows.push_back({op, pass, dim});
    }
  }
  return rows;
}

std::string op_label(const OpRow& row) {
  return fmt::format("{} {}{}", name(row.op), name(row.pass),
                     row.dim < 0 ? std::string() : fmt::format(" along dim {}", row.dim));
}

// --check: one run of the operation, then its wrong elements summed over every rank.
std::int64_t check_op(OpRunner& r, Primitive prim, Connector& connector, Watchdog& watchdog, const std::string& label,
                      Seconds timeout) {
  {
    const ArmedStep step = watchdog.arm(StepKind::verification, "tp: " + label + ": the checked run");
    r.prepare(prim);
    r.run(prim, timeout);
  }
  const ArmedStep step = watchdog.arm(StepKind::check_count, "tp: " + label + ": counting the wrong elements");
  const auto mine = static_cast<std::int64_t>(r.count_wrong(prim));
  std::int64_t wrong = 0;
  for (auto w : allgather_value(connector, mine, step)) wrong += w;
  return wrong;
}

// The warm-up and the timed runs of one operation: this rank's seconds per run.
std::vector<double> time_op(OpRunner& r, Primitive prim, const TpPlan& plan, Connector& connector, Watchdog& watchdog,
                            const std::string& label, Seconds timeout) {
  std::vector<double> samples;
  const ArmedStep step = watchdog.arm(StepKind::tp_step, "tp: " + label);
  r.prepare(prim);
  for (int s = 0; s < plan.warmup + plan.iters; ++s) {
    watchdog.arm_again();
    if (prim == Primitive::allreduce) r.prepare(prim);  // in place: keep the sums from growing without bound
    connector.barrier(step);
    const auto t0 = std::chrono::steady_clock::now();
    r.run(prim, timeout);
    if (s >= plan.warmup) samples.push_back(seconds_since(t0));
  }
  return samples;
}

// Each of this rank's series, gathered on the root by rank (empty elsewhere), in the order given.
using BySample = std::vector<std::vector<double>>;  // by rank, then sample
std::vector<BySample> gather_tp_samples(Connector& connector, Watchdog& watchdog, const std::string& label,
                                        std::initializer_list<const std::vector<double>*> mine) {
  const ArmedStep step = watchdog.arm(StepKind::gather, "tp: " + label + ": gathering the samples");
  std::vector<BySample> out;
  for (const std::vector<double>* series : mine) {
    out.push_back(gather_vector<double>(connector, std::span<const double>(*series), connector.root_rank(), step));
  }
  return out;
}

// A layer's check over every rank: its wrong elements (-1: not checked), largest relative difference and largest
// difference over its bound.
struct LayerVerdict {
  std::int64_t wrong = -1;
  double max_diff = kNotMeasured, over_bound = kNotMeasured;
};

LayerVerdict check_layer(ParallelLayer& layer, int threads, Connector& connector, Watchdog& watchdog,
                         const std::string& label, Seconds timeout) {
  {
    const ArmedStep step = watchdog.arm(StepKind::verification, "tp: " + label + ": the checked step");
    layer.step(timeout);
  }
  const ArmedStep step = watchdog.arm(StepKind::check_count, "tp: " + label + ": checking against one rank");
  const LayerCheck c = layer.check(threads);
  LayerVerdict v;
  v.wrong = 0;
  for (auto w : allgather_value(connector, static_cast<std::int64_t>(c.wrong), step)) v.wrong += w;
  const auto diffs = allgather_value(connector, c.max_rel_diff, step);
  v.max_diff = *std::max_element(diffs.begin(), diffs.end());
  const auto over = allgather_value(connector, c.max_over_bound, step);
  v.over_bound = *std::max_element(over.begin(), over.end());
  return v;
}

// This rank's timed steps of a layer, seconds: the whole step (host clock) and its parts (the math's marks).
struct LayerSamples {
  std::vector<double> step_s, forward_s, backward_s, comm_s;
};

LayerSamples time_layer(ParallelLayer& layer, const TpPlan& plan, Connector& connector, Watchdog& watchdog,
                        const std::string& label, Seconds timeout) {
  LayerSamples out;
  const ArmedStep step = watchdog.arm(StepKind::tp_step, "tp: " + label);
  for (int s = 0; s < plan.warmup + plan.iters; ++s) {
    watchdog.arm_again();
    connector.barrier(step);
    const auto t0 = std::chrono::steady_clock::now();
    const LayerTimes t = layer.step(timeout);
    const double total = seconds_since(t0);
    if (s < plan.warmup) continue;
    out.step_s.push_back(total);
    out.forward_s.push_back(t.forward);
    out.backward_s.push_back(t.backward);
    out.comm_s.push_back(t.comm);
  }
  return out;
}

void add_layer_warnings(const std::string& label, const ShownStep& shown, const LayerVerdict& v,
                        BenchmarkOutcome& outcome) {
  const double step = shown.step, comm = shown.parts.comm;
  if (shown.parts.forward + shown.parts.backward > step || comm > step) {
    outcome.warnings.push_back(
        {"figure_out_of_range",
         fmt::format("tp {}: the step shown ({:.4g} ms, host clock) is shorter than its parts (forward {:.4g} + "
                     "backward {:.4g} ms on the device, comm {:.4g} ms): the two clocks disagree; compare the "
                     "parts with one another, not with the step",
                     label, step * kMilli, shown.parts.forward * kMilli, shown.parts.backward * kMilli,
                     comm * kMilli)});
  }
  if (v.wrong > 0) {
    outcome.warnings.push_back(
        {"tp_mismatch", fmt::format("tp {}: {} elements of outputs and gradients differ from the single-rank layer "
                                    "by more than float32 rounding allows (up to {:.3g} times their bound; largest "
                                    "relative difference {:.3g})",
                                    label, v.wrong, v.over_bound, v.max_diff)});
  }
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
  numerics::require_dense_math(world, "tp");
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
  d.console_preamble.push_back(fmt::format(
      "layers: in {} out {} batch {}, fp32, forward + backward; samples: {} after {} warm-up; check: {}",
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
  std::unique_ptr<numerics::HostMath> host_math;
  DenseMath& math = numerics::device_math(world, host_math);  // a GPU's own, else the CPU's
  return plan_.layers.empty() ? run_ops(world, *group, math, watchdog, reporter, progress)
                              : run_layers(world, *group, math, watchdog, reporter, progress);
}

BenchmarkOutcome TpBenchmark::run_ops(World& world, Communicator& group, DenseMath& math, Watchdog& watchdog,
                                      Reporter* reporter, const ProgressFn& progress) {
  Connector& connector = world.connector();
  const bool root = connector.is_root();
  const int n = connector.size(), g = group_size(n);
  const Seconds timeout(plan_.timeout_s);
  const std::vector<OpRow> rows = op_rows(plan_);
  BenchmarkOutcome outcome;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const OpRow& row = rows[i];
    const Primitive prim = primitive(row.op, row.pass);
    const std::string label = op_label(row);
    if (root && progress) progress(i, rows.size(), label);
    // Buffers of this row only (allocated outside the timed runs): one layout's at a time.
    OpRunner r(group, world.device(), math, shard_layout(plan_.shape, std::max(row.dim, 0), g), plan_.dtype);
    const std::int64_t wrong = plan_.check ? check_op(r, prim, connector, watchdog, label, timeout) : -1;
    if (wrong > 0) outcome.wrong += wrong;
    const std::vector<double> samples = time_op(r, prim, plan_, connector, watchdog, label, timeout);
    const auto by_rank = gather_tp_samples(connector, watchdog, label, {&samples}).front();
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
  const int threads = numerics::cpu_threads_per_rank(connector.local_size());
  BenchmarkOutcome outcome;
  for (std::size_t i = 0; i < plan_.layers.size(); ++i) {
    const LayerKind kind = plan_.layers[i];
    const std::string label = fmt::format("{} layer", name(kind));
    if (root && progress) progress(i, plan_.layers.size(), label);
    ParallelLayer layer(kind, plan_.layer, group, world.device(), math, plan_.seed);
    LayerVerdict verdict;
    if (plan_.check) verdict = check_layer(layer, threads, connector, watchdog, label, timeout);
    if (verdict.wrong > 0) outcome.wrong += verdict.wrong;
    const LayerSamples mine = time_layer(layer, plan_, connector, watchdog, label, timeout);
    const auto all =
        gather_tp_samples(connector, watchdog, label, {&mine.step_s, &mine.forward_s, &mine.backward_s, &mine.comm_s});
    if (!root || reporter == nullptr) continue;
    const ArmedStep writing = watchdog.arm(StepKind::report, "tp: " + label + ": writing the results");
    const ShownStep shown = median_step(all[0], all[1], all[2], all[3]);
    const Record rec =
        layer_record(plan_, {std::string(group.backend()), kind, g, n},
                     {shown, layer.flops(), verdict.wrong, verdict.max_diff, verdict.over_bound}, all[0], all[3]);
    reporter->add({rec});
    add_layer_warnings(label, shown, verdict, outcome);
  }
  if (root && progress) progress(plan_.layers.size(), plan_.layers.size(), "");
  return outcome;
}

}  // namespace distbench::tp
