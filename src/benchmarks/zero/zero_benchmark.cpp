#include "benchmarks/zero/zero_benchmark.hpp"

#include "benchmarks/zero/host_counters.hpp"
#include "benchmarks/zero/step.hpp"
#include "benchmarks/zero/verify.hpp"
#include "benchmarks/zero/zero_record.hpp"
#include "benchmarks/zero/zero_run.hpp"
#include "core/comm/groups.hpp"
#include "core/comm/sampler.hpp"
#include "core/error.hpp"
#include "core/measure/os_counters.hpp"
#include "core/measure/sizes.hpp"
#include "core/report/json_model.hpp"
#include "core/report/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <set>
#include <thread>

namespace distbench::zero {
namespace {

// The forms of stage 1, as the report's config names them: one name, or "both".
std::string zero1_text(const std::vector<Zero1Reduce>& forms) {
  return forms.size() == 1 ? std::string(name(forms.front())) : std::string("both");
}

// What the header says of stage 1's reduction.
std::string zero1_sentence(const std::vector<Zero1Reduce>& forms) {
  static constexpr const char* kAllreduce = "allreduce (RAF's design: 3x the gradients' bytes)";
  static constexpr const char* kReduceScatter = "reduce-scatter (DeepSpeed's ZeRO-1: 2x)";
  if (forms.size() > 1) return fmt::format("stage 1 twice: by {}, by {}", kAllreduce, kReduceScatter);
  return fmt::format("stage 1 reduces by {}", forms.front() == Zero1Reduce::allreduce ? kAllreduce : kReduceScatter);
}

}  // namespace

std::uint64_t reduction_temporary_bytes(const std::vector<Segment>& segments, const Precision& p) {
  return largest_padded(segments) * p.grad;
}

std::uint64_t bytes_needed(const ZeroPlan& plan, Stage stage, std::size_t ranks) {
  const auto segments = stage_segments(stage, plan.layers, plan.bucket, ranks);
  const Precision p = precision_of(plan.dtype);
  return model_state_bytes(stage, segments, p).total() + step_buffer_bytes(stage, segments, p) +
         reduction_temporary_bytes(segments, p);
}

void ZeroBenchmark::check(World& world) const {
  Connector& connector = world.connector();
  if (connector.is_root()) per_rank_file_->claim();
  if (!world.device().host_memory() && world.device().math() == nullptr) {
    throw usage_error(
        fmt::format("zero runs its step on host memory (--backend mpi) or on a GPU (--backend nccl); the {} "
                    "backend's device computes nothing: run with one of those",
                    world.backend().name()));
  }
  const auto ranks = static_cast<std::size_t>(connector.size());
  const std::size_t smallest = *std::min_element(plan_.layers.begin(), plan_.layers.end());
  if (smallest < ranks) {
    throw usage_error(
        fmt::format("{} ranks share layers of {} parameters: every rank needs at least one parameter of "
                    "each layer; raise --params, lower --layers or run fewer ranks",
                    ranks, smallest));
  }
  const std::uint64_t have = world.device().memory_available(connector.local_size());
  for (Stage s : plan_.stages) {
    const std::uint64_t need = bytes_needed(plan_, s, ranks);
    if (have != 0 && need > have) {
      throw usage_error(
          fmt::format("stage {} needs {} per rank (model states and buffers, from the ZeRO formulas), "
                      "and {} has {} for each of its {} ranks; lower --params, run more ranks or a "
                      "higher stage",
                      name(s), format_bytes(need), connector.hostname(), format_bytes(have), connector.local_size()));
    }
  }
}

RunDescription ZeroBenchmark::describe(const RunInfo& info) const {
  RunDescription d;
  d.benchmark = "zero";
  d.title = "zero";
  nlohmann::ordered_json stages = nlohmann::ordered_json::array();
  for (Stage s : plan_.stages) stages.push_back(std::stoi(std::string(name(s))));
  d.config = {
      {"stages", stages},
      {"params", plan_.params},
      {"layers", plan_.layers.size()},
      {"dtype", plan_.dtype},
      {"bucket_mb", plan_.bucket_mb},
      {"bucket_elements", plan_.bucket},
      {"zero1_reduce", zero1_text(plan_.zero1)},
      {"check", plan_.check},
      {"check_steps", plan_.check_steps},
      {"adam",
       {{"lr", plan_.adam.lr}, {"beta1", plan_.adam.beta1}, {"beta2", plan_.adam.beta2}, {"eps", plan_.adam.eps}}},
      {"warmup_iters", plan_.warmup_iters},
      {"stopping", stopping_json(plan_.stopping)},
      {"timeout_s", plan_.timeout_s},
      {"config_file", plan_.config_file}};
  d.records = zero_record_layout();
  d.table = zero_table(plan_.zero1.size() > 1);
  std::string stage_list;
  for (Stage s : plan_.stages) stage_list += fmt::format("{}{}", stage_list.empty() ? "" : ", ", name(s));
  const Precision p = precision_of(plan_.dtype);
  const std::string model = fmt::format(
      "{} parameters in {} ({}), {}", plan_.params, plural(plan_.layers.size(), "layer", "layers"), plan_.dtype,
      plan_.bucket_mb > 0 ? fmt::format("buckets of {:g} MiB", plan_.bucket_mb) : std::string("one bucket"));
  d.console_preamble = {
      fmt::format("zero: ZeRO stages {}: {}", stage_list, model),
      fmt::format("backend: {}   world size: {}   ranks per host: {}", info.backend, info.world_size,
                  ranks_per_host_text(info.ranks)),
      fmt::format("bytes per parameter: {} param + {} grad + {} optimizer (fp32 master, m, v); {}", p.param, p.grad,
                  p.optimizer, zero1_sentence(plan_.zero1)),
      fmt::format(
          "samples: {}   warm-up: {} steps   check: {}", samples_text(plan_.stopping), plan_.warmup_iters,
          plan_.check ? fmt::format("{} steps against a single-rank run", plan_.check_steps) : std::string("off"))};
  d.facts = {fmt::format("backend {}", info.backend),
             fmt::format("{} ranks, per host: {}", info.world_size, ranks_per_host_text(info.ranks)),
             fmt::format("stages {}", stage_list), model};
  d.summarize = zero_summary;
  d.per_rank = plan_.per_rank.policy();
  return d;
}

BenchmarkOutcome ZeroBenchmark::run(World& world, Watchdog& watchdog, Reporter* reporter, const ProgressFn& progress) {
  return ZeroRun(world, watchdog, reporter, progress, plan_, per_rank_file_.get()).run();
}

}  // namespace distbench::zero
