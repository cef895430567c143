#include "benchmarks/train/reference_check.hpp"

#include "benchmarks/train/data_parallel.hpp"
#include "benchmarks/train/mlp.hpp"
#include "benchmarks/train/train_benchmark.hpp"

namespace distbench::train {

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

std::int64_t parameters_beyond(const std::vector<float>& params, const std::vector<float>& reference,
                               double tolerance) {
  std::int64_t beyond = 0;
  for (std::size_t p = 0; p < params.size() && p < reference.size(); ++p) {
    if (relative_difference(params[p], reference[p]) > tolerance) ++beyond;
  }
  return beyond;
}

}  // namespace distbench::train
