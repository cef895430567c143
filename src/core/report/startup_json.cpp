#include "core/report/startup_json.hpp"

#include <climits>
#include <cmath>
#include <string>

namespace distbench {
namespace {

using json = nlohmann::ordered_json;

json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json ends_json(const std::vector<RankAtEnd>& ends) {
  json a = json::array();
  for (const RankAtEnd& r : ends) a.push_back({{"rank", r.rank}, {"host", r.host}, {"value", number_or_null(r.value)}});
  return a;
}

std::vector<RankAtEnd> ends_from(const JsonField& a) {
  std::vector<RankAtEnd> out;
  for (const JsonField& r : a.elements())
    out.push_back({r.at("rank").int_in(0, INT_MAX), r.at("host").text(), r.at("value").number_or_nan()});
  return out;
}

}  // namespace

json rank_distribution_json(const RankDistribution& d) {
  const auto at = [&](double v) { return d.ranks == 0 ? json(nullptr) : number_or_null(v); };
  return {{"ranks", d.ranks},
          {"min", at(d.min)},
          {"p05", at(d.p05)},
          {"p25", at(d.p25)},
          {"median", at(d.median)},
          {"p75", at(d.p75)},
          {"p95", at(d.p95)},
          {"max", at(d.max)},
          {"mean", at(d.mean)},
          {"highest", ends_json(d.highest)},
          {"lowest", ends_json(d.lowest)}};
}

RankDistribution rank_distribution_from(const JsonField& j) {
  RankDistribution d;
  d.ranks = j.at("ranks").count();
  d.min = j.at("min").number_or_nan();
  d.p05 = j.at("p05").number_or_nan();
  d.p25 = j.at("p25").number_or_nan();
  d.median = j.at("median").number_or_nan();
  d.p75 = j.at("p75").number_or_nan();
  d.p95 = j.at("p95").number_or_nan();
  d.max = j.at("max").number_or_nan();
  d.mean = j.at("mean").number_or_nan();
  d.highest = ends_from(j.at("highest"));
  d.lowest = ends_from(j.at("lowest"));
  return d;
}

json startup_json(const StartupRecord& s) {
  if (!s.measured()) return nullptr;
  json phases = json::object();
  for (std::size_t p = 0; p < kStartupPhases.size(); ++p)
    phases[std::string(kStartupPhases[p].key)] = rank_distribution_json(s.phases[p]);
  json ranks = nullptr;
  if (!s.ranks.empty()) {
    ranks = json::array();
    for (const StartupRank& r : s.ranks) {
      json one = {{"rank", r.rank}, {"host", r.host}};
      for (std::size_t p = 0; p < kStartupPhases.size(); ++p)
        one[std::string(kStartupPhases[p].key)] = number_or_null(r.seconds[p]);
      one["late_s"] = number_or_null(r.late_s);
      ranks.push_back(std::move(one));
    }
  }
  return {{"phases", std::move(phases)}, {"late_s", rank_distribution_json(s.late)}, {"ranks", std::move(ranks)}};
}

StartupRecord startup_from(const JsonField& j) {
  StartupRecord s;
  if (j.is_null()) return s;
  const JsonField phases = j.at("phases");
  for (const StartupPhaseName& p : kStartupPhases) s.phases.push_back(rank_distribution_from(phases.at(p.key)));
  s.late = rank_distribution_from(j.at("late_s"));
  if (const JsonField ranks = j.at("ranks"); !ranks.is_null()) {
    for (const JsonField& one : ranks.elements()) {
      StartupRank r;
      r.rank = one.at("rank").int_in(0, INT_MAX);
      r.host = one.at("host").text();
      for (std::size_t p = 0; p < kStartupPhases.size(); ++p)
        r.seconds[p] = one.at(kStartupPhases[p].key).number_or_nan();
      r.late_s = one.at("late_s").number_or_nan();
      s.ranks.push_back(std::move(r));
    }
  }
  return s;
}

}  // namespace distbench
