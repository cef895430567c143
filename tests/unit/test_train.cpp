// Data-parallel training's parts: gradient buckets (DDP's rule) and the MLP (its gradients against finite
// differences, and that it learns the teacher's data).
#include "benchmarks/train/bucket_check.hpp"
#include "benchmarks/train/buckets.hpp"
#include "benchmarks/train/mlp.hpp"
#include "benchmarks/train/train_record.hpp"
#include "core/device/host_device.hpp"
#include "core/error.hpp"
#include "numerics/host_math.hpp"
#include "tests/support/layout_check.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <set>
#include <string>
#include <vector>

namespace distbench::train {
namespace {

std::vector<TensorSpec> specs(std::initializer_list<std::size_t> sizes) {
  std::vector<TensorSpec> out;
  for (std::size_t n : sizes) out.push_back({fmt::format("t{}", out.size()), n});
  return out;
}

TEST(Buckets, ReverseOrderClosedAtTheCapWithASmallerFirstBucket) {
  // 4-byte elements; tensors of 100, 10, 300, 20, 50 elements (forward order), caps: first 160 B, then 400 B.
  const auto b = assign_buckets(specs({100, 10, 300, 20, 50}), 4, 400, 160);
  ASSERT_EQ(b.size(), 3U);
  EXPECT_EQ(b[0].tensors, (std::vector<std::size_t>{4}));     // 200 B >= 160: closed at once
  EXPECT_EQ(b[1].tensors, (std::vector<std::size_t>{3, 2}));  // 80 B, then 1280 B: past 400, closed
  EXPECT_EQ(b[2].tensors, (std::vector<std::size_t>{1, 0}));  // what is left
  EXPECT_EQ(b[1].elements, 320U);
}

TEST(Buckets, EveryTensorOnceAndZeroCapIsOneBucketPerTensor) {
  const auto t = specs({7, 1, 9, 3, 3, 12, 5});
  for (std::size_t cap : {0U, 4U, 16U, 40U, 1000U}) {
    const auto b = assign_buckets(t, 4, cap, 8);
    std::vector<std::size_t> seen;
    std::size_t elements = 0;
    for (const Bucket& bucket : b) {
      seen.insert(seen.end(), bucket.tensors.begin(), bucket.tensors.end());
      std::size_t sum = 0;
      for (std::size_t k : bucket.tensors) sum += t[k].elements;
      EXPECT_EQ(sum, bucket.elements);
      elements += bucket.elements;
    }
    EXPECT_EQ(seen, (std::vector<std::size_t>{6, 5, 4, 3, 2, 1, 0})) << cap;  // last layer first, each once
    EXPECT_EQ(elements, 40U);
    if (cap == 0) {
      EXPECT_EQ(b.size(), t.size());
    }
    if (cap == 1000) {
      EXPECT_EQ(b.size(), 2U);  // the first bucket (8 B) closes on the first tensor, the rest fits one
    }
  }
}

// The CPU as the device every model of these tests computes on.
struct Cpu {
  HostDevice device;
  numerics::HostMath math{1};
};

TEST(Mlp, TensorsAreWeightThenBiasPerLayer) {
  Cpu cpu;
  const Mlp m({6, 5, 3, 4}, 1, cpu.device, cpu.math);
  ASSERT_EQ(m.tensors().size(), 6U);
  EXPECT_EQ(m.tensors()[0].name, "fc0.weight");
  EXPECT_EQ(m.tensors()[0].elements, 5U * 6);
  EXPECT_EQ(m.tensors()[1].elements, 5U);
  EXPECT_EQ(m.tensors()[4].elements, 4U * 5);  // the classifier
  EXPECT_EQ(m.tensor_offset(5), 30U + 5 + 25 + 5 + 20);
  EXPECT_EQ(m.parameters(), 30U + 5 + 25 + 5 + 20 + 4);
  EXPECT_EQ(parameter_count({6, 5, 3, 4}), m.parameters());
  EXPECT_EQ(parameter_count({2, 3, 4, 5}), 2U * 3 + 3 + 2 * (3 * 3 + 3) + 3 * 5 + 5);
  EXPECT_EQ(parameter_count({2, 3, 1, 5}), 2U * 5 + 5);  // one layer: inputs straight to the classes
  // Counted at once, not layer by layer: 2^40 layers take no time (the plan refuses such a model by its size).
  EXPECT_EQ(parameter_count({1, 1, std::size_t{1} << 40, 2}), 2U + (((std::size_t{1} << 40) - 2) * 2) + 2 + 2);
  EXPECT_THROW(Mlp({6, 5, 0, 4}, 1, cpu.device, cpu.math), Error);
}

TEST(Mlp, GradientsMatchFiniteDifferences) {
  const MlpShape shape{6, 5, 3, 4};
  Cpu cpu;
  Mlp m(shape, 3, cpu.device, cpu.math);
  const TeacherData data(shape, 7);
  const std::size_t batch = 8;
  std::vector<float> x(batch * shape.inputs);
  std::vector<int> labels(batch);
  data.batch(0, batch, x.data(), labels.data());
  std::vector<std::size_t> order;
  m.load_batch(x.data(), labels.data(), batch);
  m.forward();
  m.backward(1.0f, [&](std::size_t k) { order.push_back(k); });
  EXPECT_EQ(order, (std::vector<std::size_t>{5, 4, 3, 2, 1, 0}));  // last layer first, bias before weight
  const std::vector<float> analytic(m.grads(), m.grads() + m.parameters());
  const auto loss = [&] {
    m.forward();
    return static_cast<double>(m.loss());
  };
  // Central differences in double-checked steps; every parameter of the small model.
  const float h = 1e-2f;
  double worst = 0;
  for (std::size_t i = 0; i < m.parameters(); ++i) {
    const float keep = m.params()[i];
    m.params()[i] = keep + h;
    const double up = loss();
    m.params()[i] = keep - h;
    const double down = loss();
    m.params()[i] = keep;
    const double numeric = (up - down) / (2.0 * h);
    worst = std::max(worst, std::abs(numeric - analytic[i]));
  }
  EXPECT_LT(worst, 2e-3) << "largest difference between backward and finite differences";
}

TEST(Mlp, LearnsTheTeachersData) {
  const MlpShape shape{32, 64, 3, 4};
  Cpu cpu;
  Mlp m(shape, 1, cpu.device, cpu.math);
  const TeacherData data(shape, 2);
  const std::size_t batch = 64;
  std::vector<float> x(batch * shape.inputs);
  std::vector<int> labels(batch);
  float first = 0, last = 0;
  for (int step = 0; step < 200; ++step) {
    data.batch(static_cast<std::uint64_t>(step) * batch, batch, x.data(), labels.data());
    m.load_batch(x.data(), labels.data(), batch);
    m.forward();
    const float loss = m.loss();
    if (step == 0) first = loss;
    last = loss;
    m.backward(1.0f);
    for (std::size_t i = 0; i < m.parameters(); ++i) m.params()[i] -= 0.1f * m.grads()[i];
  }
  EXPECT_NEAR(first, std::log(4.0f), 0.3f);  // about chance at the start
  EXPECT_LT(last, 0.6f * first) << first << " -> " << last;
}

// bucket_check.hpp: a sum of N values in any order is within gamma_k * sum |x| of the exact one (Higham, section 4.2),
// gamma_k = k u / (1 - k u): float32, k = N - 1 additions, u = 2^-24; bfloat16, k = N (each value's conversion too),
// u = 2^-8 (+ 2^-23: the float32 rounding before each bfloat16 one); plus the float64 reference's own rounding.
TEST(BucketCheckBound, IsGammaOfTheRoundingsTimesTheAbsoluteSum) {
  const double tiny = std::numeric_limits<float>::denorm_min();
  EXPECT_LT(reduction_error_bound(DType::float32, 1, 1.0), 1e-15);  // nothing to add: exact but for the reference
  EXPECT_NEAR(reduction_error_bound(DType::float32, 2, 2.0), 2 * std::ldexp(1.0, -24), 1e-13);
  EXPECT_NEAR(reduction_error_bound(DType::float32, 4, 1.0), 3 * std::ldexp(1.0, -24), 1e-13);
  EXPECT_NEAR(reduction_error_bound(DType::bfloat16, 4, 1.0), 4 * std::ldexp(1.0, -8), 1e-3);
  EXPECT_EQ(reduction_error_bound(DType::float32, 3, 0.0), 3 * tiny);  // all zeros: the sum must be (near) zero
  // The worst roundings meet their bound: 1 + 2^-24 in float32 ties to 1; two values 1 + 2^-8 each become 1 in
  // bfloat16, their sum 2 where 2 + 2^-7 was due.
  const float x = 1.0f, y = std::ldexp(1.0f, -24);
  EXPECT_EQ(x + y, 1.0f);
  EXPECT_LE(std::ldexp(1.0, -24), reduction_error_bound(DType::float32, 2, 1.0 + std::ldexp(1.0, -24)));
  EXPECT_LE(std::ldexp(1.0, -7), reduction_error_bound(DType::bfloat16, 2, 2.0 + std::ldexp(1.0, -7)));
  // and a wrong sum is far beyond it: a replica's gradient missing from a sum of two is half of it.
  EXPECT_GT(0.5, reduction_error_bound(DType::bfloat16, 2, 1.0));
}

// Each metric is declared once (metrics::all): the layout lists them all, the table shows every one with a title
// (loss_first and samples_per_s_1rank: in the reports only), and the builder sets exactly these.
TEST(TrainRecord, TheTableShowsTheDeclaredMetricsAndTheBuilderSetsThem) {
  EXPECT_EQ(
      test_support::shown_metrics(train_layout(), train_table()),
      (std::vector<std::string>{"step_ms", "step_p90_ms", "compute_ms", "comm_ms", "exposed_ms", "overlap_efficiency",
                                "samples_per_s", "loss_last", "scaling_efficiency", "max_rel_diff", "wrong"}));
  EXPECT_EQ(train_layout().metrics.size(), std::size(metrics::all));
  ModeResult m;
  m.backend = "mpi";
  m.replicas_per_group = 2;
  m.step = reduce_phase("step", {{3e-3, 4e-3}, {3.5e-3, 4e-3}}, RankAverage::max);
  m.compute = reduce_phase("compute", {{2e-3, 2e-3}, {2e-3, 2e-3}}, RankAverage::max);
  m.comm = reduce_phase("comm", {{1e-3, 1e-3}, {1e-3, 1e-3}}, RankAverage::max);
  m.wait_slowest = {0.5e-3, 0.5e-3};
  m.step_median_by_rank = {3.5e-3, 3.75e-3};
  m.compute_median_by_rank = {2e-3, 2e-3};
  m.hosts = {"a", "b"};
  std::vector<Warning> warnings;
  const Record r = train_record(TrainPlan{}, m, warnings);
  EXPECT_EQ(test_support::metric_keys(r), test_support::metric_keys(train_layout()));
  EXPECT_TRUE(warnings.empty());
}

}  // namespace
}  // namespace distbench::train
