// `distbench tp`: TorchShard's tensor parallelism (benchmarks/tp), run by the runner.
#include "benchmarks/tp/tp_benchmark.hpp"
#include "cli/bounded_product.hpp"
#include "cli/command.hpp"
#include "cli/exit_codes.hpp"
#include "cli/option_groups.hpp"
#include "cli/runner.hpp"
#include "core/error.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

namespace distbench::cli {
namespace {

struct TpOptions {
  int group_size = 0;
  std::string shape = "4096x4096";
  std::string dim = "all";
  std::string op = "all";
  std::string dtype = "fp32";
  std::string layer;
  std::size_t in = 4096, out = 16384, batch = 64;
  bool check = false;
  SamplingOptions steps;  // -n and -w only
  CommonOptions common;
};

// --dim: 0, 1 (-1) or all.
std::vector<int> tp_dims(const std::string& text) {
  if (text == "all") return {0, 1};
  int dim = 0;
  try {
    std::size_t used = 0;
    dim = std::stoi(text, &used);
    if (used != text.size()) throw std::invalid_argument(text);
  } catch (const std::exception&) {
    throw usage_error(fmt::format("--dim {}: give 0 (rows), 1 or -1 (columns), or all", text));
  }
  return {tp::normalize_dim(dim)};
}

// The operations' options: --shape, --dim, --op, --dtype.
void set_tp_operations(const TpOptions& o, tp::TpPlan& plan) {
  plan.shape = tp::parse_shape(o.shape, "--shape");
  if (!bounded_product({plan.shape.rows, plan.shape.cols})) {
    throw usage_error(
        fmt::format("--shape {}: more than 2^56 elements, beyond any machine's memory; give a smaller "
                    "tensor",
                    o.shape));
  }
  plan.dims = tp_dims(o.dim);
  if (o.op != "all") {
    const auto op = tp::parse_op(o.op);
    if (!op) throw usage_error(fmt::format("--op {}: the operations are scatter, gather, reduce, copy (or all)", o.op));
    plan.ops = {*op};
  }
  const auto dtype = parse_dtype(o.dtype);
  if (!dtype || (*dtype != DType::float32 && *dtype != DType::bfloat16 && *dtype != DType::float16)) {
    throw usage_error(fmt::format("--dtype {}: the operations run on fp32, bf16 or fp16", o.dtype));
  }
  plan.dtype = *dtype;
}

// The layers' options: --layer, --in, --out, --batch.
void set_tp_layers(const TpOptions& o, tp::TpPlan& plan) {
  if (!o.layer.empty()) {
    if (o.layer == "all") {
      plan.layers = {tp::LayerKind::column, tp::LayerKind::row, tp::LayerKind::mlp};
    } else {
      const auto kind = tp::parse_layer(o.layer);
      if (!kind) throw usage_error(fmt::format("--layer {}: the layers are column, row, mlp (or all)", o.layer));
      plan.layers = {*kind};
    }
    if (o.in == 0 || o.out == 0 || o.batch == 0) {
      throw usage_error(
          fmt::format("--in {} --out {} --batch {}: a layer needs all three above 0", o.in, o.out, o.batch));
    }
    if (!bounded_product({o.in, o.out}) || !bounded_product({o.batch, o.in + o.out})) {
      throw usage_error(
          fmt::format("--in {} --out {} --batch {}: the layer's weights (in x out) or activations "
                      "(batch x (in + out)) pass 2^56 elements, beyond any machine's memory; lower them",
                      o.in, o.out, o.batch));
    }
  }
  plan.layer = {o.in, o.out, o.batch};
}

tp::TpPlan make_tp_plan(const TpOptions& o) {
  tp::TpPlan plan;
  if (o.group_size < 0) {
    throw usage_error(fmt::format("--group-size {}: give the ranks per model-parallel group (0: all)", o.group_size));
  }
  plan.group_size = o.group_size;
  set_tp_operations(o, plan);
  set_tp_layers(o, plan);
  plan.check = o.check;
  plan.iters = o.steps.iters;
  plan.warmup = o.steps.warmup_iters;
  if (plan.iters < 1) throw usage_error(fmt::format("-n/--iters {} must be at least 1", plan.iters));
  if (plan.warmup < 0) throw usage_error(fmt::format("-w/--warmup-iters {} must be 0 or more", plan.warmup));
  plan.timeout_s = o.common.timeout_s;
  return plan;
}

// The options of the mode not chosen: the operations' (--shape, --dim, --op, --dtype) with --layer, the layer's
// (--in, --out, --batch) without it.
std::vector<UnusedOption> tp_unused(const TpOptions& o) {
  std::vector<UnusedOption> out;
  if (!o.layer.empty()) {
    const std::string why = "it is the operations'; the layers (--layer) compute in fp32 at --in, --out, --batch";
    out = {{"--dtype", why}, {"--shape", why}, {"--dim", why}, {"--op", why}};
  } else {
    const std::string why = "it sizes a layer; add --layer to measure layers";
    out = {{"--in", why}, {"--out", why}, {"--batch", why}};
  }
  return out;
}

}  // namespace

void add_tp_command(CLI::App& root, Commands& commands) {
  auto* app = root.add_subcommand(
      "tp", "Tensor parallelism (TorchShard): split-tensor operations and parallel linear layers in groups");
  app->group("Benchmarks");
  app->footer(help_footer("More: docs/tp.md, 'Usage'; the common options: docs/collectives.md, 'Options'.",
                          exit_code_lines({ExitCode::ok, ExitCode::failure, ExitCode::usage, ExitCode::wrong_results,
                                           ExitCode::timeout, ExitCode::unavailable},
                                          true)));
  auto o = std::make_shared<TpOptions>();
  const char* operations = "Operations";
  const char* layers = "Layers (--layer)";
  app->add_option("--shape", o->shape, "The full tensor, ROWSxCOLS")->option_text("SHAPE")->group(operations);
  app->add_option("--dim", o->dim, "Split along dim 0 (rows), 1 or -1 (columns), or all")
      ->option_text("DIM")
      ->group(operations);
  app->add_option("--op", o->op, "scatter, gather, reduce, copy or all")->option_text("OP")->group(operations);
  app->add_option("--dtype", o->dtype, "Element type: fp32, bf16 or fp16")->option_text("TYPE")->group(operations);
  app->add_option("--layer", o->layer, "Measure layers instead: column, row, mlp (column, ReLU, row) or all")
      ->option_text("KIND")
      ->group(layers);
  app->add_option("--in", o->in, "The layer's input features")->option_text("N")->group(layers);
  app->add_option("--out", o->out, "The layer's output features (the MLP's hidden width)")
      ->option_text("N")
      ->group(layers);
  app->add_option("--batch", o->batch, "Rows of the layer's input")->option_text("N")->group(layers);
  app->add_option("--group-size", o->group_size, "Ranks per model-parallel group, consecutive; 0: all")
      ->option_text("N")
      ->group(groups::kSweep);
  // Of the Sampling group only -n and -w: tp times exactly -n steps after -w, with no stopping rule. No sweep loop
  // options (--show-faults, -m, -G): its table has no fault columns, and it runs each operation once.
  add_step_count_options(*app, o->steps, "Timed steps", "Untimed steps first");
  add_common_options(*app, o->common);
  app->add_flag("--check", o->check, "Compare with one rank: operations exactly, layers within a rounding bound")
      ->group(groups::kVerification);
  commands.push_back({app, [o, app](Invocation& inv) {
                        tp::TpBenchmark benchmark(make_tp_plan(*o));  // bad input fails here, before MPI
                        RunSettings settings = run_settings(o->common, *app);
                        settings.ignored_options = given_but_unused(*app, tp_unused(*o));
                        return run_benchmark(inv, settings, benchmark);
                      }});
}

}  // namespace distbench::cli
