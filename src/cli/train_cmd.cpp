// `distbench train`: data-parallel training of an MLP (benchmarks/train), run by the runner.
#include "benchmarks/train/train_benchmark.hpp"
#include "cli/bounded_product.hpp"
#include "cli/command.hpp"
#include "cli/exit_codes.hpp"
#include "cli/option_groups.hpp"
#include "cli/per_rank_options.hpp"
#include "cli/runner.hpp"
#include "cli/validators.hpp"
#include "core/comm/bucket_cap.hpp"
#include "core/error.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace distbench::cli {
namespace {

struct TrainOptions {
  std::string model = "mlp";
  std::size_t layers = 8;
  std::size_t hidden = 512;
  std::size_t inputs = 0;  // 0: as wide as the hidden layers
  std::size_t classes = 10;
  std::size_t batch = 256;
  int steps = 20;
  int warmup = 3;
  double bucket_mb = kDdpBucketMiB;
  std::string overlap = "both";
  int zero = 0;
  int tp_size = 1;
  std::string dtype = "fp32";
  bool check = false;
  std::string optimizer = "sgd";
  std::string trace;
  bool scaling = false;
  float lr = 0;  // 0: the optimizer's default (SGD 0.01, Adam 0.001)
  CommonOptions common;
  PerRankOptions per_rank;
};

train::TrainPlan make_train_plan(const TrainOptions& o) {
  if (o.model != "mlp") throw usage_error(fmt::format("--model {}: the one model so far is mlp", o.model));
  if (o.layers == 0) throw usage_error("--layers 0: the MLP needs at least one layer");
  if (o.hidden == 0) throw usage_error("--hidden 0: the hidden layers need a width above 0");
  if (o.classes < 2) throw usage_error(fmt::format("--classes {}: a classifier needs at least 2 classes", o.classes));
  if (o.batch == 0) throw usage_error("--batch 0: the global batch needs at least one sample per rank");
  if (o.steps < 1) throw usage_error(fmt::format("--steps {} must be at least 1", o.steps));
  if (o.warmup < 0) throw usage_error(fmt::format("--warmup {} must be 0 or more", o.warmup));
  if (!(o.bucket_mb >= 0) || !std::isfinite(o.bucket_mb)) {
    throw usage_error(fmt::format("--bucket-mb {:g} must be 0 (one allreduce per tensor) or more MiB", o.bucket_mb));
  }
  if (o.zero < 0 || o.zero > 3) {
    throw usage_error(fmt::format("--zero {}: ZeRO's stages are 0 (plain data parallelism), 1, 2 and 3", o.zero));
  }
  if (!(o.lr >= 0) || !std::isfinite(o.lr)) {
    throw usage_error(fmt::format("--lr {:g} must be a finite number above 0", o.lr));
  }
  const std::size_t widest = std::max({o.inputs, o.hidden, o.classes});
  if (!bounded_product({o.layers, widest, widest}) || !bounded_product({o.layers + 3, o.batch, widest})) {
    throw usage_error(
        fmt::format("--layers {} --hidden {} --inputs {} --classes {} --batch {}: the model's parameters "
                    "(about layers x width²) or activations (layers x batch x width) pass 2^56 "
                    "elements, beyond any machine's memory; lower them",
                    o.layers, o.hidden, o.inputs, o.classes, o.batch));
  }
  if (o.check && o.optimizer == "adam") {
    throw usage_error(
        "--check compares float sums taken in another order; Adam turns the rounding noise of "
        "near-zero gradients into whole steps, so check with --optimizer sgd");
  }
  if (o.check && o.warmup == 0) {
    throw usage_error(
        "--check --warmup 0: the check verifies every bucket's reduced gradients at the untimed warm-up steps; "
        "give --warmup 1 or more");
  }
  train::TrainPlan plan;
  plan.shape = {o.inputs == 0 ? o.hidden : o.inputs, o.hidden, o.layers, o.classes};
  plan.batch = o.batch;
  plan.steps = o.steps;
  plan.warmup_steps = o.warmup;
  plan.bucket_mb = o.bucket_mb;
  if (o.overlap == "on") plan.overlaps = {true};
  if (o.overlap == "off") plan.overlaps = {false};
  plan.check = o.check;
  plan.zero_stage = o.zero;
  if (o.tp_size < 1) throw usage_error(fmt::format("--tp-size {} must be 1 (none) or more ranks", o.tp_size));
  if (o.tp_size > 1 && o.scaling) {
    throw usage_error("--scaling compares with one rank alone, which cannot hold a tensor-parallel model: drop one");
  }
  plan.tp_size = o.tp_size;
  plan.wire = o.dtype == "bf16" ? DType::bfloat16 : DType::float32;
  plan.trace_path = o.trace;
  plan.scaling = o.scaling;
  plan.optimizer.kind = o.optimizer == "adam" ? train::Optimizer::Kind::adam : train::Optimizer::Kind::sgd;
  plan.optimizer.lr = o.lr > 0 ? o.lr : (o.optimizer == "adam" ? 1e-3f : 0.01f);
  plan.timeout_s = o.common.timeout_s;
  plan.per_rank = o.per_rank;
  return plan;
}

// The model's options: --model, --layers, --hidden, --inputs, --classes, --batch.
void add_train_model_options(CLI::App& app, TrainOptions& o) {
  const char* model = "Model";
  app.add_option("--model", o.model, "mlp: Linear + ReLU layers, softmax cross-entropy")
      ->option_text("NAME")
      ->group(model);
  app.add_option("--layers", o.layers, "Linear layers (the last one classifies)")->option_text("N")->group(model);
  app.add_option("--hidden", o.hidden, "Width of the hidden layers")->option_text("N")->group(model);
  app.add_option("--inputs", o.inputs, "Features per sample; 0: --hidden")->option_text("N")->group(model);
  app.add_option("--classes", o.classes, "Classes of the synthetic teacher's labels")->option_text("N")->group(model);
  app.add_option("--batch", o.batch, "The global batch; each rank trains on batch / ranks of it")
      ->option_text("N")
      ->group(model);
}

// How it trains: --optimizer, --lr, --dtype, --bucket, --overlap, --zero, --tp-size, --scaling.
void add_train_training_options(CLI::App& app, TrainOptions& o) {
  const char* training = "Training";
  app.add_option("--optimizer", o.optimizer, "sgd (momentum 0.9) or adam (the ZeRO step's fused update)")
      ->option_text("NAME")
      ->group(training)
      ->check(one_of({"sgd", "adam"}));
  app.add_option("--lr", o.lr, "Learning rate")
      ->option_text("RATE")
      ->default_str("0.01 for sgd, 0.001 for adam")
      ->group(training);
  app.add_option("--dtype", o.dtype, "Gradients on the wire: fp32 or bf16 (as DDP's bf16 hook)")
      ->option_text("TYPE")
      ->group(training)
      ->check(one_of({"fp32", "bf16"}));
  add_bucket_option(app, o.bucket_mb, "Gradients per allreduce (DDP's cap)", "one per tensor", training);
  app.add_option("--overlap", o.overlap, "Buckets reduced during the backward: on, off or both")
      ->option_text("MODE")
      ->group(training)
      ->check(one_of({"on", "off", "both"}));
  app.add_option("--zero", o.zero, "ZeRO stage: 0 (DDP), 1, 2 or 3")->option_text("STAGE")->group(training);
  app.add_option("--tp-size", o.tp_size, "Tensor parallelism in groups of N consecutive ranks; 1: none")
      ->option_text("N")
      ->group(training);
  app.add_flag("--scaling", o.scaling, "Also train one rank alone first: scaling efficiency")->group(training);
}

}  // namespace

void add_train_command(CLI::App& root, Commands& commands) {
  auto* app = root.add_subcommand(
      "train", "Data-parallel training of an MLP: step, compute and communication times, throughput");
  app->group("Benchmarks");
  app->footer(help_footer("More: docs/train.md, 'Usage'; the common options: docs/collectives.md, 'Options'.",
                          exit_code_lines({ExitCode::ok, ExitCode::failure, ExitCode::usage, ExitCode::wrong_results,
                                           ExitCode::timeout, ExitCode::unavailable},
                                          true)));
  auto o = std::make_shared<TrainOptions>();
  add_train_model_options(*app, *o);
  add_train_training_options(*app, *o);
  app->add_option("--steps", o->steps, "Timed steps")->option_text("N")->group(groups::kSampling);
  app->add_option("--warmup", o->warmup, "Untimed steps first")->option_text("N")->group(groups::kSampling);
  app->add_flag("--check", o->check,
                "Check each bucket's reduced gradients at the warm-up steps, and compare with one rank "
                "trained alone (beyond 1e-3, bf16: 1e-2): exit 3")
      ->group(groups::kVerification);
  add_common_options(*app, o->common);  // no Sampling group: train times --steps steps after --warmup
  add_per_rank_options(*app, o->per_rank);
  app->add_option("--trace", o->trace, "Write a Chrome trace (Perfetto) of every timed step here")
      ->option_text("PATH")
      ->group(groups::kReports)
      ->check(non_empty_path());
  commands.push_back({app, [o, app](Invocation& inv) {
                        train::TrainBenchmark benchmark(make_train_plan(*o));  // bad input fails here, before MPI
                        return run_benchmark(inv, run_settings(o->common, *app), benchmark);
                      }});
}

}  // namespace distbench::cli
