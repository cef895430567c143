#include "core/comm/phase_over_ranks.hpp"

#include "core/comm/tree_reduce.hpp"

namespace distbench {

ReducedPhase reduce_phase_over_ranks(Connector& c, std::string name, const std::vector<double>& mine,
                                     RankAverage average, int root, const ArmedStep& step,
                                     std::chrono::steady_clock::time_point deadline) {
  const double my_mean = mean_of_samples(mine);
  std::vector<std::vector<double>> means = gather_vector<double>(c, std::span(&my_mean, 1), root, step);
  std::vector<double> samples;
  switch (average) {
    case RankAverage::rank0: samples = vector_of_rank(c, mine, 0, root, deadline); break;
    case RankAverage::min: samples = reduce_elementwise(c, mine, ElementwiseOp::min, root, deadline); break;
    case RankAverage::max: samples = reduce_elementwise(c, mine, ElementwiseOp::max, root, deadline); break;
    case RankAverage::avg:
      samples = reduce_elementwise(c, mine, ElementwiseOp::sum, root, deadline);
      for (double& s : samples) s /= static_cast<double>(c.size());
      break;
  }
  if (c.rank() != root) return {};
  std::vector<double> rank_means;
  rank_means.reserve(means.size());
  for (const auto& one : means) rank_means.push_back(one.empty() ? 0.0 : one.front());
  return phase_from(std::move(name), std::move(samples), std::move(rank_means));
}

}  // namespace distbench
