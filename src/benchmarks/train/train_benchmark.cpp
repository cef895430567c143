#include "benchmarks/train/train_benchmark.hpp"

#include "benchmarks/train/bucket_check.hpp"
#include "benchmarks/train/data_parallel.hpp"
#include "benchmarks/train/replica_check.hpp"
#include "benchmarks/train/trace.hpp"
#include "benchmarks/train/train_record.hpp"
#include "benchmarks/train/train_run.hpp"
#include "core/comm/groups.hpp"
#include "core/error.hpp"
#include "core/measure/phase_stats.hpp"
#include "core/measure/sizes.hpp"
#include "core/measure/stats.hpp"
#include "core/measure/units.hpp"
#include "core/report/atomic_file.hpp"
#include "core/report/json_model.hpp"
#include "core/report/text.hpp"
#include "numerics/host_math.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

namespace distbench::train {
namespace {

std::string zero_text(int stage) {
  switch (stage) {
    case 1: return "ZeRO-1: allreduce, each rank updates its shard, allgather of the parameters";
    case 2: return "ZeRO-2: reduce-scatter, each rank updates its shard, allgather of the parameters";
    case 3: return "ZeRO-3: parameters gathered before the forward and the backward, reduce-scatter, shard update";
    default: return "ZeRO-0 (DDP): allreduce, every rank updates everything";
  }
}

}  // namespace

double relative_difference(float a, float b) {
  const double scale = std::max({std::abs(static_cast<double>(a)), std::abs(static_cast<double>(b)), 1e-2});
  return std::abs(static_cast<double>(a) - b) / scale;
}

double largest_relative_difference(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) worst = std::max(worst, relative_difference(a[i], b[i]));
  return worst;
}

void TrainBenchmark::check(World& world) const {
  Connector& connector = world.connector();
  if (connector.is_root()) per_rank_file_->claim();
  numerics::require_dense_math(world, "train");
  const auto ranks = static_cast<std::size_t>(connector.size());
  const auto tp = static_cast<std::size_t>(plan_.tp_size);
  if (tp < 1 || ranks % tp != 0) {
    throw usage_error(
        fmt::format("--tp-size {} does not divide the world of {} ranks: tensor-parallel groups are "
                    "consecutive ranks, all of one size",
                    plan_.tp_size, ranks));
  }
  if (tp > 1 && plan_.shape.layers < 3) {
    throw usage_error(
        fmt::format("--tp-size {} with --layers {}: tensor parallelism splits pairs of hidden layers; "
                    "use at least 3 layers",
                    plan_.tp_size, plan_.shape.layers));
  }
  if (tp > 1 && plan_.shape.hidden % tp != 0) {
    throw usage_error(fmt::format("--hidden {} does not split over --tp-size {}: use a multiple of {}",
                                  plan_.shape.hidden, plan_.tp_size, plan_.tp_size));
  }
  const std::size_t replicas = ranks / tp;
  if (plan_.batch % replicas != 0) {
    throw usage_error(
        fmt::format("--batch {} does not split over {} {}: every replica trains on an equal share of "
                    "the global batch; use a multiple of {}",
                    plan_.batch, replicas, tp > 1 ? "data-parallel replicas" : "ranks", replicas));
  }
  // Parameters, gradients, Adam's m and v, and each layer's activations and their gradients for the local batch.
  const std::uint64_t params = parameter_count(plan_.shape);
  const std::uint64_t local = plan_.batch / replicas;
  const std::uint64_t widest = std::max({plan_.shape.inputs, plan_.shape.hidden, plan_.shape.classes});
  const std::uint64_t need = 4 * (4 * params + (plan_.shape.layers + 3) * local * widest);
  const std::uint64_t have = world.device().memory_available(connector.local_size());
  if (have != 0 && need > have) {
    throw usage_error(
        fmt::format("the model needs {} per rank ({} parameters with gradients and Adam's state, and "
                    "the activations of {} samples) and {} has {} for each of its ranks; lower --hidden, "
                    "--layers or --batch",
                    format_bytes(need), params, local, connector.hostname(), format_bytes(have)));
  }
}

std::vector<NamedPath> TrainBenchmark::output_files() const {
  std::vector<NamedPath> files = per_rank_file_->named();
  if (!plan_.trace_path.empty()) files.push_back({"--trace", plan_.trace_path});
  return files;
}

RunDescription TrainBenchmark::describe(const RunInfo& info) const {
  RunDescription d;
  d.benchmark = "train";
  d.title = "train";
  nlohmann::ordered_json overlaps = nlohmann::ordered_json::array();
  for (bool o : plan_.overlaps) overlaps.push_back(o ? "on" : "off");
  d.config = {{"model", "mlp"},
              {"inputs", plan_.shape.inputs},
              {"hidden", plan_.shape.hidden},
              {"layers", plan_.shape.layers},
              {"classes", plan_.shape.classes},
              {"batch", plan_.batch},
              {"steps", plan_.steps},
              {"warmup_steps", plan_.warmup_steps},
              {"bucket_mb", plan_.bucket_mb},
              {"overlaps", overlaps},
              {"zero_stage", plan_.zero_stage},
              {"gradient_dtype", name(plan_.wire)},
              {"tp_size", plan_.tp_size},
              {"optimizer",
               {{"name", plan_.optimizer.kind == Optimizer::Kind::adam ? "adam" : "sgd"},
                {"lr", plan_.optimizer.lr},
                {"momentum", plan_.optimizer.momentum}}},
              {"check", plan_.check},
              {"scaling", plan_.scaling},
              {"timeout_s", plan_.timeout_s}};
  d.records = train_layout();
  d.table = train_table();
  d.per_rank = plan_.per_rank.policy();
  const std::string model =
      fmt::format("MLP of {} layers, {} wide ({} inputs, {} classes), {} parameters", plan_.shape.layers,
                  plan_.shape.hidden, plan_.shape.inputs, plan_.shape.classes, parameter_count(plan_.shape));
  d.console_preamble = {
      plan_.tp_size > 1
          ? fmt::format("train: data parallel over {} replicas of {} tensor-parallel ranks, {}; global batch {} ({} "
                        "per replica)",
                        info.world_size / plan_.tp_size, plan_.tp_size, model, plan_.batch,
                        plan_.batch / static_cast<std::size_t>(std::max(1, info.world_size / plan_.tp_size)))
          : fmt::format("train: data parallel, {}; global batch {} ({} per rank)", model, plan_.batch,
                        plan_.batch / static_cast<std::size_t>(std::max(1, info.world_size))),
      fmt::format("backend: {}   world size: {}   ranks per host: {}", info.backend, info.world_size,
                  ranks_per_host_text(info.ranks)),
      fmt::format("buckets: {}; {}; steps: {} timed after {} warm-up; {} lr {:g}; check: {}",
                  plan_.bucket_mb > 0
                      ? fmt::format("{:g} MiB (DDP's rule: last layer first, a 1 MiB first bucket)", plan_.bucket_mb)
                      : std::string("one reduction per tensor"),
                  zero_text(plan_.zero_stage) + (plan_.wire == DType::bfloat16 ? "; gradients travel as bfloat16" : ""),
                  plan_.steps, plan_.warmup_steps,
                  plan_.optimizer.kind == Optimizer::Kind::adam ? "Adam" : "SGD with momentum 0.9", plan_.optimizer.lr,
                  plan_.check ? fmt::format("every bucket's reduced gradients at the warm-up steps; against one "
                                            "rank, relative tolerance {:g}",
                                            check_tolerance(plan_.wire))
                              : std::string("off"))};
  d.facts = {fmt::format("backend {}", info.backend),
             fmt::format("{} ranks, per host: {}", info.world_size, ranks_per_host_text(info.ranks)), model,
             fmt::format("global batch {}", plan_.batch)};
  d.summarize = train_summary;
  return d;
}

BenchmarkOutcome TrainBenchmark::run(World& world, Watchdog& watchdog, Reporter* reporter, const ProgressFn& progress) {
  return TrainRun(world, watchdog, reporter, progress, plan_, per_rank_file_.get()).run();
}

}  // namespace distbench::train
