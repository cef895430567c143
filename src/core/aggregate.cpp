#include "core/aggregate.hpp"

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

}  // namespace

double max_over_ranks(const std::vector<OsCounters>& per_rank, double (OsCounters::*figure)() const) {
  double most = 0;
  for (const OsCounters& c : per_rank) most = std::max(most, (c.*figure)());
  return most;
}

std::string_view name(RankAverage a) {
  switch (a) {
    case RankAverage::rank0: return "rank0";
    case RankAverage::avg: return "avg";
    case RankAverage::min: return "min";
    case RankAverage::max: return "max";
  }
  return "avg";
}

void aggregate_samples(const std::vector<std::vector<double>>& samples_by_rank, RankAverage average,
                       Collective collective, CaseResult& result) {
  const std::size_t ranks = samples_by_rank.size();
  const std::size_t count = ranks == 0 ? 0 : samples_by_rank.front().size();

  // Per sample, the -a aggregation across ranks.
  result.samples.assign(count, 0.0);
  for (std::size_t i = 0; i < count; ++i) {
    double lo = samples_by_rank[0][i], hi = lo, sum = 0;
    for (const auto& rank : samples_by_rank) {
      lo = std::min(lo, rank[i]);
      hi = std::max(hi, rank[i]);
      sum += rank[i];
    }
    result.samples[i] = pick(average, samples_by_rank[0][i], lo, sum / static_cast<double>(ranks), hi);
  }
  result.time = summarize(result.samples);

  // Per rank, the mean over samples; then the spread over ranks (nccl-tests' -a works on these).
  std::vector<double> means;
  for (const auto& rank : samples_by_rank) {
    means.push_back(rank.empty() ? 0.0 : std::accumulate(rank.begin(), rank.end(), 0.0) / static_cast<double>(rank.size()));
  }
  if (!means.empty()) {
    result.rank_time.rank0 = means.front();
    result.rank_time.min = *std::min_element(means.begin(), means.end());
    result.rank_time.max = *std::max_element(means.begin(), means.end());
    result.rank_time.avg = std::accumulate(means.begin(), means.end(), 0.0) / static_cast<double>(means.size());
  }
  result.time_shown = pick(average, result.rank_time.rank0, result.rank_time.min, result.rank_time.avg,
                           result.rank_time.max);
  if (result.time_shown > 0) {
    result.algbw = static_cast<double>(result.bytes) / result.time_shown / 1e9;
    result.busbw = result.algbw * bus_factor(collective, result.nranks);
  }
}

}  // namespace distbench
