#include "cli/zero_options.hpp"

#include "benchmarks/zero/partition.hpp"
#include "core/error.hpp"
#include "core/measure/sizes.hpp"
#include "core/report/json_fields.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <string_view>

namespace distbench::cli {
namespace {

using json = nlohmann::ordered_json;

std::vector<zero::Stage> parse_stages(const std::string& text) {
  if (text == "all") return {zero::Stage::s0, zero::Stage::s1, zero::Stage::s2, zero::Stage::s3};
  if (text == "0") return {zero::Stage::s0};
  if (text == "1") return {zero::Stage::s1};
  if (text == "2") return {zero::Stage::s2};
  if (text == "3") return {zero::Stage::s3};
  throw usage_error(fmt::format("--stage {}: choose 0, 1, 2, 3 or all", text));
}

DType type_of(const std::string& dtype) {
  if (dtype == "bf16") return DType::bfloat16;
  if (dtype == "fp16") return DType::float16;
  if (dtype == "fp32") return DType::float32;
  throw usage_error(fmt::format("--dtype {}: choose bf16, fp16 or fp32", dtype));
}

// A key of the config file as the options hold it; `path` names the file in messages.
std::string text_value(const json& v, const std::string& key, const std::string& path) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
  throw usage_error(fmt::format("{}: \"{}\" must be a string or a whole number", path, key));
}

// Applies the config file's keys to `o`, except those given on the command line.
void apply_config(ZeroOptions& o, const std::string& text, const std::string& path) {
  std::string problem;
  const auto parsed = parse_json_text(text, problem);
  if (!parsed) {
    throw usage_error(fmt::format("{} is {}; write an object such as {{\"zero_opt_level\": 2}}", path, problem));
  }
  const json& doc = *parsed;
  if (!doc.is_object()) throw usage_error(fmt::format("{} must hold a JSON object of settings", path));
  const auto set = [&](const std::string& option, auto apply) {
    if (o.given.count(option) == 0) apply();
  };
  for (const auto& item : doc.items()) {
    const std::string& key = item.key();  // named, not bound: lambdas below capture them (clang 14 cannot capture
    const json& v = item.value();         // structured bindings)
    if (key == "zero_opt_level" || key == "stage") {
      set("--stage", [&] { o.stage = text_value(v, key, path); });
    } else if (key == "enable_data_parallel") {
      if (!v.is_boolean()) throw usage_error(fmt::format("{}: \"enable_data_parallel\" must be true or false", path));
      if (!v.get<bool>()) {
        throw usage_error(
            fmt::format("{}: \"enable_data_parallel\": false leaves nothing to partition; ZeRO shards "
                        "over the data-parallel ranks, so set it to true",
                        path));
      }
    } else if (key == "params") {
      set("--params", [&] { o.params = text_value(v, key, path); });
    } else if (key == "layers") {
      if (!v.is_number_unsigned()) throw usage_error(fmt::format("{}: \"layers\" must be a whole number", path));
      set("--layers", [&] { o.layers = v.get<std::size_t>(); });
    } else if (key == "dtype") {
      set("--dtype", [&] { o.dtype = text_value(v, key, path); });
    } else if (key == "bucket_mb") {
      if (!v.is_number()) throw usage_error(fmt::format("{}: \"bucket_mb\" must be a number of MiB", path));
      set("--bucket-mb", [&] { o.bucket_mb = v.get<double>(); });
    } else if (key == "zero1_reduce") {
      set("--zero1-reduce", [&] { o.zero1_reduce = text_value(v, key, path); });
    } else if (key == "check") {
      if (!v.is_boolean()) throw usage_error(fmt::format("{}: \"check\" must be true or false", path));
      set("--check", [&] { o.check = v.get<bool>(); });
    } else {
      throw usage_error(
          fmt::format("{}: unknown key \"{}\"; known: zero_opt_level, enable_data_parallel, stage, "
                      "params, layers, dtype, bucket_mb, zero1_reduce, check",
                      path, key));
    }
  }
}

// Ψ, a count of parameters written as sizes are (binary suffixes: 64M = 64 x 2^20), refused in a count's words and
// with the option's name.
std::uint64_t parse_param_count(const std::string& text) {
  try {
    return parse_size(text);
  } catch (const Error& e) {
    if (e.code() != ExitCode::usage || std::string_view(e.what()).find("too large") != std::string_view::npos) {
      throw Error(e.code(), fmt::format("--params: {}", e.what()));
    }
    throw usage_error(fmt::format(
        "--params: '{}' is not a count of parameters; write a whole number and an optional binary suffix K, M, G or "
        "T, e.g. 64M (64 x 2^20) or 1.5G",
        text));
  }
}

}  // namespace

zero::ZeroPlan make_zero_plan(const ZeroOptions& options, const std::string& config_text) {
  ZeroOptions o = options;
  if (!o.config.empty()) apply_config(o, config_text, o.config);
  zero::ZeroPlan plan;
  plan.config_file = o.config;
  plan.per_rank = o.per_rank;
  plan.stages = parse_stages(o.stage);
  plan.params = parse_param_count(o.params);
  plan.layers = zero::layer_sizes(plan.params, o.layers);
  plan.dtype = o.dtype;
  plan.type = type_of(o.dtype);
  if (!(o.bucket_mb >= 0) || !std::isfinite(o.bucket_mb)) {
    throw usage_error(fmt::format("--bucket-mb {:g} must be 0 (one bucket) or more MiB", o.bucket_mb));
  }
  plan.bucket_mb = o.bucket_mb;
  plan.bucket = static_cast<std::size_t>(o.bucket_mb * 1024 * 1024 / static_cast<double>(size_of(plan.type)));
  if (o.bucket_mb > 0 && plan.bucket == 0) {
    throw usage_error(fmt::format("a bucket of {:g} MiB (--bucket) holds no {} gradient; give at least {} bytes' worth",
                                  o.bucket_mb, o.dtype, size_of(plan.type)));
  }
  using zero::Zero1Reduce;
  if (o.zero1_reduce == "allreduce") {
    plan.zero1 = {Zero1Reduce::allreduce};
  } else if (o.zero1_reduce == "reduce-scatter") {
    plan.zero1 = {Zero1Reduce::reduce_scatter};
  } else if (o.zero1_reduce == "both" || (o.zero1_reduce == "auto" && plan.stages.size() > 1)) {
    plan.zero1 = {Zero1Reduce::allreduce, Zero1Reduce::reduce_scatter};
  } else if (o.zero1_reduce == "auto") {
    plan.zero1 = {Zero1Reduce::allreduce};
  } else {
    throw usage_error(
        fmt::format("--zero1-reduce {}: choose allreduce (RAF's design: 3x the gradients' bytes), reduce-scatter "
                    "(DeepSpeed's and the paper's), both, or auto (both with --stage all)",
                    o.zero1_reduce));
  }
  plan.check = o.check;
  if (o.check_steps < 1) throw usage_error(fmt::format("--check-steps {} must be at least 1", o.check_steps));
  plan.check_steps = o.check_steps;
  plan.warmup_iters = o.sampling.warmup_iters;
  plan.stopping = stopping_rule(o.sampling);
  plan.timeout_s = o.common.timeout_s;
  plan.malloc_reuse = o.common.malloc_reuse;
  return plan;
}

}  // namespace distbench::cli
