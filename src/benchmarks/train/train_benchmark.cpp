#include "benchmarks/train/train_benchmark.hpp"

#include "benchmarks/train/data_parallel.hpp"
#include "benchmarks/train/replica_check.hpp"
#include "benchmarks/train/trace.hpp"
#include "benchmarks/math/host_math.hpp"
#include "core/error.hpp"
#include "core/groups.hpp"
#include "core/phase_stats.hpp"
#include "core/report/atomic_file.hpp"
#include "core/report/json_model.hpp"
#include "core/report/summary_items.hpp"
#include "core/report/text.hpp"
#include "core/sizes.hpp"
#include "core/stats.hpp"
#include "core/units.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

namespace distbench::train {
namespace {


std::string zero_text(int stage) {
  switch (stage) {
    case 1:
      return "ZeRO-1: allreduce, each rank updates its shard, allgather of the parameters";
    case 2:
      return "ZeRO-2: reduce-scatter, each rank updates its shard, allgather of the parameters";
    case 3:
      return "ZeRO-3: parameters gathered before the forward and the backward, reduce-scatter, shard update";
    default:
      return "ZeRO-0 (DDP): allreduce, every rank updates everything";
  }
}

RecordLayout train_layout() {
  RecordLayout l;
  l.params = {"backend", "model",     "layers",  "hidden",  "inputs", "classes", "parameters", "batch",
              "ranks",   "bucket_mb", "buckets", "overlap", "zero",   "dtype",   "tp_size"};
  l.phases = {"step", "compute", "comm"};
  l.metrics = {
      {"step_ms", "ms", "median step (forward, backward, gradient allreduces, update), slowest rank per step"},
      {"step_p90_ms", "ms", "90th percentile of the step"},
      {"compute_ms", "ms", "median of forward + backward alone (no communication) + the step's update"},
      {"comm_ms", "ms", "median of every bucket's allreduce alone (no compute)"},
      {"exposed_ms", "ms",
       "the communication the step did not hide: what it waited for its reductions after the backward (median of the "
       "slowest rank per step)"},
      {"overlap_efficiency", "1",
       "1 - exposed / comm (1: all communication hidden; 0: none); null with one replica (nothing to communicate) or "
       "when exposed exceeds comm (a figure_out_of_range warning says so)"},
      {"samples_per_s", "1/s", "global batch / median step"},
      {"loss_first", "1", "mean loss over ranks at the first timed step"},
      {"loss_last", "1", "mean loss over ranks at the last step"},
      {"samples_per_s_1rank", "1/s", "--scaling: one rank alone training a rank's share of each batch"},
      {"scaling_efficiency", "1", "--scaling: samples_per_s / (ranks x samples_per_s_1rank)"},
      {"max_rel_diff", "1", "--check: largest relative difference from one rank trained on the global batches"},
      {"wrong", "parameters", "--check: parameters beyond the tolerance, plus the ranks whose parameters differ bit for bit from their first replica's; null when not checked"}};
  l.rank_figures = {{"step_ms", "ms", "this rank's median step"}, {"compute_ms", "ms", "this rank's median compute"}};
  return l;
}

TableLayout train_table() {
  TableLayout t;
  t.key_columns = {{"overlap", "overlap", "", 7, CellFormat::text, "overlap"},
                   {"buckets", "buckets", "", 7, CellFormat::integer, "buckets"}};
  t.value_columns = {{"step_ms", "step", "(ms)", 9, CellFormat::number, "step (ms)"},
                     {"step_p90_ms", "p90", "(ms)", 9, CellFormat::number, "p90 (ms)"},
                     {"compute_ms", "compute", "(ms)", 9, CellFormat::number, "compute (ms)"},
                     {"comm_ms", "comm", "(ms)", 9, CellFormat::number, "comm (ms)"},
                     {"exposed_ms", "exposed", "(ms)", 9, CellFormat::number, "exposed (ms)"},
                     {"overlap_efficiency", "hidden", "", 7, CellFormat::number, "overlap efficiency"},
                     {"samples_per_s", "samples", "(/s)", 9, CellFormat::number, "samples/s"},
                     {"loss_last", "loss", "", 7, CellFormat::number, "loss"},
                     {"scaling_efficiency", "scaling", "", 7, CellFormat::number, "scaling efficiency"},
                     {"max_rel_diff", "vs 1 rk", "", 9, CellFormat::number, "max rel diff"},
                     {"wrong", "#wrong", "", 6, CellFormat::checked, "#wrong"}};
  return t;
}

std::vector<SummaryItem> train_summary(const std::vector<Record>& records) {
  std::vector<SummaryItem> items;
  for (const Record& r : records) {
    const std::string overlap = r.param_text("overlap");
    items.push_back({fmt::format("samples_per_s_overlap_{}", overlap), fmt::format("Throughput, overlap {}", overlap),
                     r.metric("samples_per_s"), fmt::format("{:.4g} samples/s", r.metric("samples_per_s"))});
  }
  items.push_back(wrong_item(records, "Parameters beyond the check's tolerance"));
  return items;
}

// One rank trained on the whole global batches for `steps` steps, as every replica should end, on the same device
// and math as the replicas.
std::vector<float> one_rank_reference(const TrainPlan& plan, int steps, Device& device, DenseMath& math) {
  Mlp model(plan.shape, plan.seed, device, math);
  OptimizerState optimizer(plan.optimizer, model);
  const TeacherData data(plan.shape, plan.seed + 1);
  std::vector<float> x(plan.batch * plan.shape.inputs);
  std::vector<int> labels(plan.batch);
  for (int s = 0; s < steps; ++s) {
    data.batch(static_cast<std::uint64_t>(s) * plan.batch, plan.batch, x.data(), labels.data());
    model.load_batch(x.data(), labels.data(), plan.batch);
    model.forward();
    model.backward(1.0f);
    optimizer.step(s + 1);
  }
  return model.download_params();
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
  require_dense_math(world, "train");
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
  if (plan_.trace_path.empty()) return {};
  return {{"--trace", plan_.trace_path}};
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
                  plan_.check ? fmt::format("against one rank, relative tolerance {:g}", check_tolerance(plan_.wire))
                              : std::string("off"))};
  d.facts = {fmt::format("backend {}", info.backend),
             fmt::format("{} ranks, per host: {}", info.world_size, ranks_per_host_text(info.ranks)), model,
             fmt::format("global batch {}", plan_.batch)};
  d.summarize = train_summary;
  return d;
}

BenchmarkOutcome TrainBenchmark::run(World& world, Watchdog& watchdog, Reporter* reporter, const ProgressFn& progress) {
  Connector& connector = world.connector();
  const bool root = connector.is_root();
  Communicator* comm = nullptr;
  {
    auto guard = watchdog.arm("train: creating the communicator");
    comm = &world.communicator(world_partition(connector.size()));
  }
  const auto ranks = static_cast<std::size_t>(connector.size());
  // With --tp-size G: the model-parallel groups of G consecutive ranks, and across them the data-parallel groups of
  // the ranks that hold the same part of the model (strided); each replica (a group) reads its share of a batch.
  Communicator* tp_comm = nullptr;
  Communicator* dp_comm = comm;
  if (plan_.tp_size > 1) {
    auto guard = watchdog.arm("train: creating the tensor- and data-parallel communicators");
    tp_comm = &world.communicator(consecutive_partition(connector.size(), plan_.tp_size));
    dp_comm = &world.communicator(strided_partition(connector.size(), plan_.tp_size));
  }
  const std::size_t replicas = ranks / static_cast<std::size_t>(plan_.tp_size);
  const std::size_t replica = static_cast<std::size_t>(connector.rank() / plan_.tp_size);
  const std::size_t local = plan_.batch / replicas;
  const std::vector<std::string> hosts = allgather_string(connector, connector.hostname());
  const Seconds timeout(plan_.timeout_s);
  if (comm->local_parts() != 1) {
    throw usage_error("train runs one model replica per rank: run with -g 1 (one GPU per process)");
  }
  const TeacherData data(plan_.shape, plan_.seed + 1);
  Device& device = world.device();
  std::unique_ptr<HostMath> host_math;
  DenseMath& math = device_math(world, host_math);  // a GPU's own, else the CPU's
  const int total_steps = plan_.warmup_steps + plan_.steps;
  std::vector<float> x(local * plan_.shape.inputs);
  std::vector<int> labels(local);
  const auto load = [&](Mlp& model, int step) {
    data.batch(static_cast<std::uint64_t>(step) * plan_.batch + static_cast<std::uint64_t>(replica) * local, local,
               x.data(), labels.data());
    model.load_batch(x.data(), labels.data(), local);
  };
  const std::size_t bucket_bytes = static_cast<std::size_t>(plan_.bucket_mb * 1024 * 1024);
  const std::vector<float> reference =
      plan_.check ? one_rank_reference(plan_, total_steps, device, math) : std::vector<float>{};
  std::string trace = trace_names(connector.rank(), connector.hostname(), plan_.overlaps);
  {
    auto guard = watchdog.arm("train: barrier before the first step");
    connector.barrier();  // the trace's origin: ranks leave the barrier together
  }
  const auto origin = std::chrono::steady_clock::now();

  // --scaling: the first rank alone on a rank's share of each batch (the others wait), as the baseline.
  double one_rank_throughput = kNotMeasured;
  if (plan_.scaling) {
    Communicator* alone = nullptr;
    {
      auto guard = watchdog.arm("train: creating the one-rank communicators");
      alone = &world.communicator(consecutive_partition(connector.size(), 1));
    }
    if (root) {
      Mlp model(plan_.shape, plan_.seed, device, math);
      DataParallel dp(*alone, model, {bucket_bytes, local, plan_.optimizer, 0, plan_.wire});
      std::vector<double> steps;
      auto guard = watchdog.arm("train --scaling: one rank alone");
      for (int s = 0; s < total_steps; ++s) {
        watchdog.arm_again();
        load(model, s);
        dp.step(true, timeout);
        if (s >= plan_.warmup_steps) steps.push_back(dp.last_times().total);
      }
      one_rank_throughput = static_cast<double>(local) / percentile(steps, 50);
    }
    auto guard = watchdog.arm("train --scaling: waiting for the one-rank run");
    connector.barrier();
  }

  BenchmarkOutcome outcome;
  for (std::size_t i = 0; i < plan_.overlaps.size(); ++i) {
    const bool overlap = plan_.overlaps[i];
    const std::string label = fmt::format("train, overlap {}", overlap ? "on" : "off");
    if (root && progress) progress(i, plan_.overlaps.size(), label);
    Mlp model(plan_.shape, plan_.seed, device, math, {tp_comm, timeout});
    DataParallel dp(*dp_comm, model, {bucket_bytes, plan_.batch, plan_.optimizer, plan_.zero_stage, plan_.wire});
    std::vector<double> step_s, update_s, compute_s, comm_s, wait_s;
    double loss_first = 0, loss_last = 0;
    {
      auto guard = watchdog.arm(label + ": steps");
      for (int s = 0; s < total_steps; ++s) {
        watchdog.arm_again();
        load(model, s);
        dp.step(overlap, timeout);
        if (s == plan_.warmup_steps) loss_first = model.loss();
        if (s + 1 == total_steps) loss_last = model.loss();
        if (s < plan_.warmup_steps) continue;
        step_s.push_back(dp.last_times().total);
        update_s.push_back(dp.last_times().update);
        wait_s.push_back(dp.last_times().wait);  // what the step itself waited for, after its backward
        if (!plan_.trace_path.empty()) {
          const double offset = std::chrono::duration<double>(dp.last_began() - origin).count();
          const std::string events = trace_events(dp.last_timeline(), offset, connector.rank(), static_cast<int>(i));
          if (!events.empty()) {
            trace += ",\n";
            trace += events;
          }
        }
      }
    }
    // The parameters every replica ends with, against one rank on the global batches.
    double max_diff = kNotMeasured;
    std::int64_t wrong = -1;
    if (plan_.check) {
      {
        auto guard = watchdog.arm(label + ": gathering the parameters (ZeRO-3)");
        dp.gather_parameters(timeout);
      }
      const std::vector<float> params = model.download_params();
      const std::vector<float> mine_in_reference = model.shard_of(reference);  // this rank's part of the model
      const double mine = largest_relative_difference(params, mine_in_reference);
      std::int64_t beyond = 0;
      for (std::size_t p = 0; p < params.size(); ++p) {
        if (relative_difference(params[p], mine_in_reference[p]) > check_tolerance(plan_.wire)) ++beyond;
      }
      const auto diffs = allgather_value(connector, mine);
      max_diff = *std::max_element(diffs.begin(), diffs.end());
      wrong = 0;
      for (auto b : allgather_value(connector, beyond)) wrong += b;
      // Replicas bit for bit: what a tolerance against one rank misses (a small bucket left unreduced).
      const std::int64_t diverged = diverged_replicas(connector, params, plan_.tp_size);
      if (diverged > 0 && root) {
        outcome.warnings.push_back(
            {"train_replicas_differ",
             fmt::format("train --check, overlap {}: {} of {} ranks hold parameters that differ bit for bit from the "
                         "first replica holding the same part of the model: the replicas did not apply the same "
                         "reduced gradients",
                         overlap ? "on" : "off", diverged, connector.size())});
      }
      wrong += diverged;
      outcome.wrong += wrong;
      if (wrong > 0 && root) {
        outcome.warnings.push_back(
            {"train_mismatch",
             fmt::format("train --check, overlap {}: {} parameters differ from one rank trained on the global batches "
                         "by more than {:g} (largest relative difference {:.3g})",
                         overlap ? "on" : "off", wrong, check_tolerance(plan_.wire), max_diff)});
      }
    }
    {
      // Compute alone (the same batches, no communication, parameters untouched) and communication alone.
      auto guard = watchdog.arm(label + ": compute and communication alone");
      for (int s = 0; s < plan_.steps; ++s) {
        watchdog.arm_again();
        load(model, plan_.warmup_steps + s);
        dp.compute_only();
        compute_s.push_back(dp.last_times().total + update_s[static_cast<std::size_t>(s)]);
      }
      for (int s = 0; s < plan_.steps; ++s) {
        watchdog.arm_again();
        connector.barrier();
        comm_s.push_back(dp.communicate_only(timeout));
      }
    }
    std::vector<std::vector<double>> step_by_rank, compute_by_rank, comm_by_rank, wait_by_rank;  // on the root
    {
      auto guard = watchdog.arm(label + ": gathering");
      const int to = connector.root_rank();
      step_by_rank = gather_vector<double>(connector, std::span<const double>(step_s), to);
      compute_by_rank = gather_vector<double>(connector, std::span<const double>(compute_s), to);
      comm_by_rank = gather_vector<double>(connector, std::span<const double>(comm_s), to);
      wait_by_rank = gather_vector<double>(connector, std::span<const double>(wait_s), to);
      const auto first = allgather_value(connector, loss_first);
      const auto last = allgather_value(connector, loss_last);
      loss_first = 0;
      loss_last = 0;
      for (std::size_t r = 0; r < ranks; ++r) {
        loss_first += first[r] / static_cast<double>(ranks);
        loss_last += last[r] / static_cast<double>(ranks);
      }
    }
    if (!root || reporter == nullptr) continue;
    const std::vector<double> step_max = slowest_per_sample(step_by_rank);
    const std::vector<double> compute_max = slowest_per_sample(compute_by_rank);
    const std::vector<double> comm_max = slowest_per_sample(comm_by_rank);
    Record r;
    r.kind = "train";
    r.set("backend", std::string(comm->backend()))
        .set("model", std::string("mlp"))
        .set("layers", static_cast<std::int64_t>(plan_.shape.layers))
        .set("hidden", static_cast<std::int64_t>(plan_.shape.hidden))
        .set("inputs", static_cast<std::int64_t>(plan_.shape.inputs))
        .set("classes", static_cast<std::int64_t>(plan_.shape.classes))
        .set("parameters", static_cast<std::int64_t>(model.parameters()))
        .set("batch", static_cast<std::int64_t>(plan_.batch))
        .set("ranks", static_cast<std::int64_t>(ranks))
        .set("bucket_mb", plan_.bucket_mb)
        .set("buckets", static_cast<std::int64_t>(dp.buckets().size()))
        .set("overlap", std::string(overlap ? "on" : "off"))
        .set("zero", static_cast<std::int64_t>(plan_.zero_stage))
        .set("dtype", std::string(name(plan_.wire)))
        .set("tp_size", static_cast<std::int64_t>(plan_.tp_size));
    const double step = percentile(step_max, 50), compute = percentile(compute_max, 50),
                 comm_t = percentile(comm_max, 50);
    // Exposed: what the steps themselves waited for their reductions after the backward (slowest rank per step, then
    // the median) — a duration of the same steps, never negative, unlike step minus a compute-only run.
    const double exposed = percentile(slowest_per_sample(wait_by_rank), 50);
    if (dp_comm->size() > 1 && comm_t > 0 && exposed > comm_t) {
      outcome.warnings.push_back(
          {"figure_out_of_range",
           fmt::format("train, overlap {}: the steps waited {:.3f} ms for their reductions after the backward, more "
                       "than the {:.3f} ms the same collectives take alone: the overlap efficiency would be negative "
                       "and is not given (the collectives were slower inside the step: contention with compute, or "
                       "a rank late to them)",
                       overlap ? "on" : "off", exposed * kMilli, comm_t * kMilli)});
    }
    r.set_metric("step_ms", step * kMilli)
        .set_metric("step_p90_ms", percentile(step_max, 90) * kMilli)
        .set_metric("compute_ms", compute * kMilli)
        .set_metric("comm_ms", comm_t * kMilli)
        .set_metric("exposed_ms", exposed * kMilli)
        .set_metric("overlap_efficiency",
                    dp_comm->size() > 1 && comm_t > 0 && exposed <= comm_t ? 1.0 - exposed / comm_t : kNotMeasured)
        .set_metric("samples_per_s", step > 0 ? static_cast<double>(plan_.batch) / step : kNotMeasured)
        .set_metric("samples_per_s_1rank", one_rank_throughput)
        .set_metric("scaling_efficiency",
                    std::isfinite(one_rank_throughput) && step > 0
                        ? static_cast<double>(plan_.batch) / step / (static_cast<double>(ranks) * one_rank_throughput)
                        : kNotMeasured)
        .set_metric("loss_first", loss_first)
        .set_metric("loss_last", loss_last)
        .set_metric("max_rel_diff", max_diff)
        .set_metric("wrong", wrong < 0 ? kNotMeasured : static_cast<double>(wrong));
    for (const auto& [name, by_rank] :
         {std::pair<const char*, const std::vector<std::vector<double>>*>{"step", &step_by_rank},
          {"compute", &compute_by_rank},
          {"comm", &comm_by_rank}}) {
      r.phases.push_back(reduce_phase(name, *by_rank, RankAverage::max).stats);
    }
    for (std::size_t k = 0; k < ranks; ++k) {
      RankFigures f;
      f.rank = static_cast<int>(k);
      f.host = hosts[k];
      f.figures = {{"step_ms", percentile(step_by_rank[k], 50) * kMilli},
                   {"compute_ms", percentile(compute_by_rank[k], 50) * kMilli}};
      r.ranks.push_back(std::move(f));
    }
    reporter->add({r});
  }
  if (root && progress) progress(plan_.overlaps.size(), plan_.overlaps.size(), "");
  if (!plan_.trace_path.empty()) {
    std::vector<std::vector<char>> all;
    {
      auto guard = watchdog.arm("train: gathering the trace");
      all =
          gather_vector<char>(connector, std::span<const char>(trace), connector.root_rank());  // only the root writes
    }
    if (root) write_file_atomically(plan_.trace_path, trace_file(all), Durability::disk);
  }
  return outcome;
}

}  // namespace distbench::train
