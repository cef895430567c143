#include "core/measure/phase_stats.hpp"

#include <algorithm>
#include <numeric>

namespace distbench {
namespace {

double pick(RankAverage average, double rank0, double min, double avg, double max) {
  switch (average) {
    case RankAverage::rank0: return rank0;
    case RankAverage::min: return min;
    case RankAverage::max: return max;
    case RankAverage::avg: return avg;
  }
  return avg;
}

double mean(const std::vector<double>& v) {
  return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

}  // namespace

std::string_view name(RankAverage a) {
  switch (a) {
    case RankAverage::rank0: return "rank0";
    case RankAverage::avg: return "avg";
    case RankAverage::min: return "min";
    case RankAverage::max: return "max";
  }
  return "avg";
}

double pick(RankAverage average, const RankSpread& s) { return pick(average, s.rank0, s.min, s.avg, s.max); }

double mean_of_samples(const std::vector<double>& samples) { return mean(samples); }

ReducedPhase reduce_phase(std::string name, const std::vector<std::vector<double>>& by_rank, RankAverage average) {
  const std::size_t ranks = by_rank.size();
  const std::size_t count = ranks == 0 ? 0 : by_rank.front().size();

  // Per sample, the -a aggregation across ranks.
  std::vector<double> samples(count, 0.0);
  for (std::size_t i = 0; i < count; ++i) {
    double lo = by_rank[0][i], hi = lo, sum = 0;
    for (const auto& rank : by_rank) {
      lo = std::min(lo, rank[i]);
      hi = std::max(hi, rank[i]);
      sum += rank[i];
    }
    samples[i] = pick(average, by_rank[0][i], lo, sum / static_cast<double>(ranks), hi);
  }
  std::vector<double> rank_means;
  for (const auto& rank : by_rank) rank_means.push_back(mean(rank));
  return phase_from(std::move(name), std::move(samples), std::move(rank_means));
}

ReducedPhase phase_from(std::string name, std::vector<double> samples, std::vector<double> rank_means) {
  ReducedPhase out;
  out.stats.name = std::move(name);
  out.stats.samples = std::move(samples);
  out.stats.summary = summarize(out.stats.samples);

  // Per rank, the mean over samples; then the spread over ranks (nccl-tests' -a works on these).
  out.rank_means = std::move(rank_means);
  if (!out.rank_means.empty()) {
    RankSpread& s = out.stats.rank_spread;
    s.rank0 = out.rank_means.front();
    s.min = *std::min_element(out.rank_means.begin(), out.rank_means.end());
    s.max = *std::max_element(out.rank_means.begin(), out.rank_means.end());
    s.avg = mean(out.rank_means);
  }
  return out;
}

}  // namespace distbench
