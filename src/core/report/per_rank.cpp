#include "core/report/per_rank.hpp"

#include <algorithm>

namespace distbench {

std::string_view name(PerRankForm form) {
  switch (form) {
    case PerRankForm::automatic: return "auto";
    case PerRankForm::all: return "all";
    case PerRankForm::summary: return "summary";
  }
  return "auto";
}

std::optional<PerRankForm> parse_per_rank_form(std::string_view text) {
  for (PerRankForm f : {PerRankForm::automatic, PerRankForm::all, PerRankForm::summary}) {
    if (name(f) == text) return f;
  }
  return std::nullopt;
}

bool PerRankPolicy::keeps_every_rank(std::size_t ranks) const {
  switch (form) {
    case PerRankForm::all: return true;
    case PerRankForm::summary: return false;
    case PerRankForm::automatic: break;
  }
  return ranks <= threshold;
}

RankSummary summarize_ranks(const std::vector<RankFigures>& ranks) {
  RankSummary s;
  s.ranks = ranks.size();
  if (ranks.empty()) return s;
  std::vector<int> ids(ranks.size());
  std::vector<std::string> hosts(ranks.size());
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    ids[i] = ranks[i].rank;
    hosts[i] = ranks[i].host;
  }
  std::vector<double> values(ranks.size());
  for (const Metric& figure : ranks.front().figures) {
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      const auto& mine = ranks[i].figures;
      const auto it = std::find_if(mine.begin(), mine.end(), [&](const Metric& m) { return m.key == figure.key; });
      values[i] = it == mine.end() ? kNotMeasured : it->value;
    }
    s.figures.push_back({figure.key, distribution_over_ranks(values, ids, hosts)});
  }
  return s;
}

void condense_ranks(Record& r, const PerRankPolicy& policy) {
  if (r.ranks.empty() || policy.keeps_every_rank(r.ranks.size())) return;
  r.rank_summary = summarize_ranks(r.ranks);
  std::vector<RankFigures>().swap(r.ranks);  // the memory itself, not only the size
}

}  // namespace distbench
