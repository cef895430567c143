#include "benchmarks/collective/aggregate.hpp"

#include "benchmarks/collective/collective_text.hpp"
#include "core/measure/phase_stats.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace distbench::collective {

double max_over_ranks(const std::vector<OsCounters>& per_rank, double (OsCounters::*figure)() const) {
  double most = 0;
  for (const OsCounters& c : per_rank) most = std::max(most, (c.*figure)());
  return most;
}

CaseResult without_rank_figures(CaseResult r) {
  std::vector<double>().swap(r.rank_means);
  if (r.os_per_op.size() > 2) {
    const auto most = [&](double (OsCounters::*figure)() const) {
      return *std::max_element(r.os_per_op.begin(), r.os_per_op.end(),
                               [&](const OsCounters& a, const OsCounters& b) { return (a.*figure)() < (b.*figure)(); });
    };
    std::vector<OsCounters> kept = {most(&OsCounters::faults), most(&OsCounters::switches)};
    r.os_per_op.swap(kept);
  }
  return r;
}

TimeStatistic time_statistic(std::string_view timing) {
  return timing == "sampled" || timing.empty() ? TimeStatistic::interquartile_mean : TimeStatistic::mean;
}

std::string time_statistic_text(std::string_view timing, RankAverage average) {
  if (time_statistic(timing) == TimeStatistic::interquartile_mean) {
    return fmt::format("interquartile mean of the samples (per sample: {}, -a {})", average_text(average),
                       name(average));
  }
  return fmt::format("mean of the {} (per rank, then {}, -a {})", timing == "nccl-tests" ? "blocks" : "samples",
                     average_text(average), name(average));
}

double headline_time(const PhaseStats& time, RankAverage average, std::string_view timing) {
  if (time_statistic(timing) == TimeStatistic::interquartile_mean) return time.summary.iqm;
  return pick(average, time.rank_spread);
}

void aggregate_samples(const std::vector<std::vector<double>>& samples_by_rank, RankAverage average,
                       Collective collective, CaseResult& result) {
  aggregate_phase(reduce_phase("time", samples_by_rank, average), average, collective, result);
}

void aggregate_phase(ReducedPhase phase, RankAverage average, Collective collective, CaseResult& result) {
  result.time_shown = headline_time(phase.stats, average, result.timing);
  result.samples = std::move(phase.stats.samples);
  result.time = phase.stats.summary;
  result.rank_time = phase.stats.rank_spread;
  result.rank_means = std::move(phase.rank_means);
  if (result.moves_nothing) {
    result.algbw = result.busbw = kNotMeasured;
  } else if (result.time_shown > 0) {
    result.algbw = static_cast<double>(result.bytes) / result.time_shown / 1e9;
    result.busbw = result.algbw * bus_factor(collective, result.nranks);
  }
}

}  // namespace distbench::collective
