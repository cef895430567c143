// distbench zero's options and --config: the plan they make, and every bad input as a usage error.
#include "cli/zero_options.hpp"
#include "core/error.hpp"

#include <gtest/gtest.h>

#include <string>

namespace distbench::cli {
namespace {

using zero::Stage;

std::string usage_message(const ZeroOptions& o, const std::string& config = "") {
  try {
    make_zero_plan(o, config);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage);
    return e.what();
  }
  ADD_FAILURE() << "no usage error";
  return "";
}

TEST(ZeroOptions, DefaultsAndSizes) {
  ZeroOptions o;
  const zero::ZeroPlan plan = make_zero_plan(o);
  EXPECT_EQ(plan.stages, (std::vector<Stage>{Stage::s0, Stage::s1, Stage::s2, Stage::s3}));
  EXPECT_EQ(plan.params, 8U << 20);
  EXPECT_EQ(plan.layers.size(), 24U);
  EXPECT_EQ(plan.type, DType::bfloat16);
  EXPECT_EQ(plan.bucket, 25U * 1024 * 1024 / 2);  // 25 MiB of bf16 gradients
  o.dtype = std::string("fp32");
  o.bucket_mb = 0;
  o.stage = std::string("2");
  const zero::ZeroPlan fp32 = make_zero_plan(o);
  EXPECT_EQ(fp32.type, DType::float32);
  EXPECT_EQ(fp32.bucket, 0U);
  EXPECT_EQ(fp32.stages, std::vector<Stage>{Stage::s2});
}

TEST(ZeroOptions, StageOneRunsInBothFormsUnderStageAll) {
  using zero::Zero1Reduce;
  using Forms = std::vector<Zero1Reduce>;
  ZeroOptions o;  // --stage all, --zero1-reduce auto: the RAF design's allreduce, then DeepSpeed's reduce-scatter
  zero::ZeroPlan plan = make_zero_plan(o);
  EXPECT_EQ(plan.zero1, (Forms{Zero1Reduce::allreduce, Zero1Reduce::reduce_scatter}));
  const auto runs = zero::stage_runs(plan);
  ASSERT_EQ(runs.size(), 5U);
  EXPECT_EQ(runs[1].stage, Stage::s1);
  EXPECT_EQ(runs[1].zero1, Zero1Reduce::allreduce);
  EXPECT_EQ(runs[2].stage, Stage::s1);
  EXPECT_EQ(runs[2].zero1, Zero1Reduce::reduce_scatter);
  EXPECT_EQ(runs[3].stage, Stage::s2);
  o.stage = std::string("1");  // one stage: the seeds' form unless asked
  EXPECT_EQ(make_zero_plan(o).zero1, Forms{Zero1Reduce::allreduce});
  o.zero1_reduce = std::string("both");
  EXPECT_EQ(zero::stage_runs(make_zero_plan(o)).size(), 2U);
  o.stage = std::string("all");
  o.zero1_reduce = std::string("allreduce");
  EXPECT_EQ(zero::stage_runs(make_zero_plan(o)).size(), 4U);
}

TEST(ZeroOptions, ConfigUsesTheSeedsNamesAndTheCommandLineWins) {
  ZeroOptions o;
  o.config = std::string("z.json");
  const std::string text = R"({"zero_opt_level": 3, "enable_data_parallel": true, "params": "1M", "layers": 4,
                               "dtype": "fp16", "bucket_mb": 1, "zero1_reduce": "reduce-scatter", "check": true})";
  zero::ZeroPlan plan = make_zero_plan(o, text);
  EXPECT_EQ(plan.stages, std::vector<Stage>{Stage::s3});
  EXPECT_EQ(plan.params, 1U << 20);
  EXPECT_EQ(plan.layers.size(), 4U);
  EXPECT_EQ(plan.type, DType::float16);
  EXPECT_EQ(plan.zero1, std::vector<zero::Zero1Reduce>{zero::Zero1Reduce::reduce_scatter});
  EXPECT_TRUE(plan.check);
  EXPECT_EQ(plan.config_file, "z.json");
  o.stage = std::string("1");
  o.given.insert("--stage");
  plan = make_zero_plan(o, text);
  EXPECT_EQ(plan.stages, std::vector<Stage>{Stage::s1});
}

TEST(ZeroOptions, BadInputIsAUsageErrorThatNamesIt) {
  const auto with = [](auto change) {
    ZeroOptions o;
    change(o);
    return o;
  };
  EXPECT_NE(usage_message(with([](ZeroOptions& o) { o.stage = std::string("4"); })).find("--stage 4"),
            std::string::npos);
  EXPECT_NE(usage_message(with([](ZeroOptions& o) { o.params = std::string("0"); })).find("--params 0"),
            std::string::npos);
  EXPECT_NE(usage_message(with([](ZeroOptions& o) { o.layers = 0; })).find("--layers 0"), std::string::npos);
  EXPECT_NE(usage_message(with([](ZeroOptions& o) { o.dtype = std::string("fp8"); })).find("fp8"), std::string::npos);
  EXPECT_NE(usage_message(with([](ZeroOptions& o) { o.bucket_mb = -1; })).find("--bucket-mb"), std::string::npos);
  EXPECT_NE(usage_message(with([](ZeroOptions& o) { o.zero1_reduce = std::string("ring"); })).find("ring"),
            std::string::npos);
  EXPECT_NE(usage_message(with([](ZeroOptions& o) { o.check_steps = 0; })).find("--check-steps"), std::string::npos);
  ZeroOptions c;
  c.config = std::string("z.json");
  EXPECT_NE(usage_message(c, "{zero_opt_level: 1").find("z.json is not valid JSON at byte"), std::string::npos);
  const std::string huge = usage_message(c, R"({"bucket_mb": 1e400})");
  EXPECT_NE(huge.find("z.json is not valid JSON at byte"), std::string::npos) << huge;
  EXPECT_NE(huge.find("the number 1e400 is beyond the range of a double"), std::string::npos) << huge;
  EXPECT_EQ(huge.find("json.exception"), std::string::npos) << huge;
  EXPECT_NE(usage_message(c, "[1, 2]").find("JSON object"), std::string::npos);
  EXPECT_NE(usage_message(c, R"({"zero_stage": 2})").find("unknown key \"zero_stage\""), std::string::npos);
  EXPECT_NE(usage_message(c, R"({"enable_data_parallel": false})").find("enable_data_parallel"), std::string::npos);
  EXPECT_NE(usage_message(c, R"({"zero_opt_level": 5})").find("--stage 5"), std::string::npos);
  EXPECT_NE(usage_message(c, R"({"layers": "many"})").find("\"layers\""), std::string::npos);
}

}  // namespace
}  // namespace distbench::cli
