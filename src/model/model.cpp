#include "model/model.hpp"

#include "core/error.hpp"
#include "core/measure/sizes.hpp"
#include "model/breaks.hpp"
#include "model/limits.hpp"
#include "model/link_rate.hpp"
#include "model/protocol_break.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace distbench::model {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string joined_names(const std::set<Collective>& set) {
  std::string out;
  for (Collective c : set) out += (out.empty() ? "" : ", ") + std::string(name(c));
  return out;
}

std::string algorithm_list(Collective c) {
  std::string out;
  for (Algorithm a : algorithms_of(c)) out += (out.empty() ? "" : ", ") + std::string(name(a));
  return out;
}

Row row_of(const CostTerms& t, double bytes) { return {t.latency, t.transfer * bytes, t.reduction * bytes}; }

CostTerms terms_of(Collective c, Algorithm a, int p) {
  const auto t = cost_terms(c, a, p);
  if (!t) throw failure(fmt::format("no cost formula for {} by {}", name(c), name(a)));
  return *t;
}

// The points of one collective, chosen and filtered; throws on what cannot be fitted.
std::vector<Observation> points_of_collective(const std::vector<Observation>& all, const ModelOptions& options) {
  std::set<Collective> present;
  for (const Observation& o : all) present.insert(o.collective);
  Collective c;
  if (options.collective) {
    if (!present.count(*options.collective)) {
      throw usage_error(fmt::format("the reports hold no {} case (they hold {}); name one of those with --collective",
                                    name(*options.collective), joined_names(present)));
    }
    c = *options.collective;
  } else if (present.size() > 1) {
    throw usage_error(
        fmt::format("the reports hold several collectives ({}); choose one with --collective", joined_names(present)));
  } else {
    c = *present.begin();
  }
  std::vector<Observation> out;
  for (const Observation& o : all) {
    if (o.collective == c) out.push_back(o);
  }
  return out;
}

struct Group {
  Algorithm algorithm;
  std::string source;
  std::vector<Observation> points;
};

// The points split by the algorithm that ran, as recorded or as asked (--algorithm).
std::vector<Group> groups_by_algorithm(const std::vector<Observation>& points, const ModelOptions& options,
                                       std::vector<std::string>& notes) {
  const Collective c = points.front().collective;
  if (options.algorithm) {
    for (const Observation& o : points) {
      if (o.backend != "mpi") {
        throw usage_error(
            fmt::format("--algorithm {} names an Open MPI algorithm, but report '{}' ran on the {} "
                        "backend; leave --algorithm out (auto: the algorithm the report recorded, e.g. "
                        "NCCL_ALGO)",
                        name(*options.algorithm), o.source, o.backend.empty() ? "?" : o.backend));
      }
    }
    if (!cost_terms(c, *options.algorithm, 2)) {
      throw usage_error(fmt::format("--algorithm {}: {} has no such algorithm here; give one of: {}",
                                    name(*options.algorithm), name(c), algorithm_list(c)));
    }
    for (const Observation& o : points) {
      if (o.recorded.algorithm && *o.recorded.algorithm != *options.algorithm) {
        notes.push_back(fmt::format("'{}' recorded {} ({}), fitted as {} as --algorithm asks", o.source,
                                    name(*o.recorded.algorithm), o.recorded.source, name(*options.algorithm)));
        break;
      }
    }
    return {{*options.algorithm, "--algorithm", points}};
  }
  std::map<Algorithm, Group> by;
  std::set<std::string> said;
  const Algorithm assumed = algorithms_of(c).front();
  for (const Observation& o : points) {
    const bool recorded = o.recorded.algorithm.has_value();
    const Algorithm a = recorded ? *o.recorded.algorithm : assumed;
    auto [it, fresh] = by.try_emplace(a, Group{a, "", {}});
    if (fresh) {
      it->second.source = recorded ? fmt::format("recorded: {}", o.recorded.source)
                                   : fmt::format("assumed: the report does not say which algorithm ran");
    }
    it->second.points.push_back(o);
    if (!o.recorded.note.empty() && said.insert(o.recorded.note).second) {
      notes.push_back(fmt::format("{}; fitted as {}", o.recorded.note, name(assumed)));
    }
  }
  std::vector<Group> out;
  for (auto& [a, g] : by) out.push_back(std::move(g));
  return out;
}

void check_fittable(const Group& g) {
  std::set<double> sizes;
  std::set<std::pair<int, double>> cases;
  for (const Observation& o : g.points) {
    sizes.insert(o.bytes);
    cases.insert({o.nranks, o.bytes});
  }
  if (sizes.size() < 2) {
    throw usage_error(
        fmt::format("{} by {}: one size only ({}); alpha and beta need a sweep of sizes: fit a "
                    "report of a sweep run with -b and -e apart, e.g. -b 8 -e 64M",
                    name(g.points.front().collective), name(g.algorithm),
                    format_bytes(static_cast<std::uint64_t>(*sizes.begin()))));
  }
  if (cases.size() < kColumns) {
    throw usage_error(
        fmt::format("{} by {}: {} measured cases; a fit with intervals needs at least {} (fit a "
                    "report of a sweep of more sizes)",
                    name(g.points.front().collective), name(g.algorithm), cases.size(), kColumns));
  }
}

Estimate estimate_of(const RobustFit& f, std::size_t j) { return {f.value[j], f.low[j], f.high[j], f.fitted[j]}; }

// The eager limit the points' reports agree on; nullopt (with a note) where they differ or one does not say.
std::optional<EagerLimit> common_limit(const std::vector<Observation>& points, std::vector<std::string>& notes) {
  std::optional<EagerLimit> limit;
  for (const Observation& o : points) {
    if (!o.eager) return std::nullopt;
    if (limit && !same_limit(*limit, *o.eager)) {
      notes.push_back(
          fmt::format("the reports ran with different eager limits ({} {}, {} {}): the protocol switch "
                      "is not looked for",
                      limit->parameter, format_bytes(static_cast<std::uint64_t>(limit->bytes)), o.eager->parameter,
                      format_bytes(static_cast<std::uint64_t>(o.eager->bytes))));
      return std::nullopt;
    }
    if (!limit) limit = o.eager;
  }
  return limit;
}

// Names the transport's protocol switch where the fitted points show it (model/protocol_break.hpp): a note with the
// limit, and a line per rank count whose cases past it leave the line (returned, for the breaks). The refused cases
// keep their own causes: past the limit a case can still fall out of a cache or fault its pages.
std::vector<std::string> name_protocol_switch(CollectiveModel& m, const std::vector<Observation>& points) {
  const std::optional<EagerLimit> limit = common_limit(points, m.notes);
  if (!limit) return {};
  std::vector<ProtocolPoint> at;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto share = largest_message_share(m.collective, m.algorithm, points[i].nranks);
    at.push_back({points[i].nranks, points[i].bytes, share ? *share * points[i].bytes : kNaN, m.points[i].measured_s,
                  m.points[i].model_s});
  }
  m.notes.push_back(fmt::format("messages went over {}; past {} ({}, {}) Open MPI sends them by rendezvous",
                                limit->transport, limit->parameter,
                                format_bytes(static_cast<std::uint64_t>(limit->bytes)), limit->source));
  std::vector<std::string> lines;
  for (const ProtocolBreak& b : protocol_breaks(at, limit->bytes)) lines.push_back(describe(b, *limit));
  return lines;
}

// The group's points at 2 ranks or more within --fit-sizes, with a note for each kind left out; throws when none
// is left or too few to fit.
std::vector<Observation> points_to_fit(const Group& g, const ModelOptions& options, std::vector<std::string>& notes) {
  std::vector<Observation> points;
  std::size_t one_rank = 0, outside = 0;
  for (const Observation& o : g.points) {
    if (o.nranks < 2) {
      ++one_rank;
    } else if ((options.fit_min_bytes > 0 && o.bytes < options.fit_min_bytes) ||
               (options.fit_max_bytes > 0 && o.bytes > options.fit_max_bytes)) {
      ++outside;
    } else {
      points.push_back(o);
    }
  }
  if (one_rank > 0) notes.push_back(fmt::format("{} cases at 1 rank left out: nothing is sent there", one_rank));
  if (outside > 0) {
    notes.push_back(fmt::format("{} cases outside --fit-sizes ({} .. {}) left out", outside,
                                format_bytes(static_cast<std::uint64_t>(options.fit_min_bytes)),
                                options.fit_max_bytes > 0
                                    ? format_bytes(static_cast<std::uint64_t>(options.fit_max_bytes))
                                    : std::string("any")));
  }
  if (points.empty()) {
    throw usage_error(fmt::format("{}: no measured case at 2 or more ranks within --fit-sizes; widen the range",
                                  name(g.points.front().collective)));
  }
  check_fittable({g.algorithm, g.source, points});
  return points;
}

// The robust fit of the model's formula to the points (the rank counts they cover into m.ranks); throws when too
// few points follow one line.
RobustFit fit_formula(CollectiveModel& m, const std::vector<Observation>& points, const ModelOptions& options) {
  std::set<int> ranks;
  std::vector<Row> x;
  std::vector<double> y;
  for (const Observation& o : points) {
    ranks.insert(o.nranks);
    x.push_back(row_of(terms_of(m.collective, m.algorithm, o.nranks), o.bytes));
    y.push_back(o.seconds);
  }
  m.ranks.assign(ranks.begin(), ranks.end());
  RobustFitOptions fit_options;
  fit_options.confidence = options.confidence;
  RobustFit f = robust_relative_fit(x, y, fit_options);
  if (!f.ok) {
    throw usage_error(
        fmt::format("{} by {}: too few sizes follow one latency-bandwidth line ({} of {}) to fit it "
                    "with intervals; fit a report of more sizes (a sweep run with a smaller -f, e.g. "
                    "-f 2) or another --algorithm",
                    name(m.collective), name(m.algorithm), f.used, points.size()));
  }
  return f;
}

// The fit's estimates into the model, with a note for each parameter the fit left out.
void take_estimates(CollectiveModel& m, const RobustFit& f) {
  m.alpha = estimate_of(f, 0);
  m.beta = estimate_of(f, 1);
  m.gamma = estimate_of(f, 2);
  m.scale = f.scale;
  m.used = f.used;
  m.covariance = f.covariance;
  m.t_quantile = f.t_quantile;
  if (is_reduction(m.collective) && !m.gamma.fitted) {
    m.notes.push_back(
        fmt::format("gamma (per reduced byte) cannot be told from beta with {} alone: its cost is in "
                    "beta here (the transfer and reduction terms of {} keep one ratio)",
                    name(m.algorithm), name(m.algorithm)));
  }
  if (!m.alpha.fitted) m.notes.push_back("alpha came out negative and is fixed at 0: sweep smaller sizes to see it");
  if (!m.beta.fitted) m.notes.push_back("beta came out negative and is fixed at 0: sweep larger sizes to see it");
}

// Each point measured against the fitted model into m.points; returns what the breaks are told of each.
std::vector<PointFacts> measure_against_model(CollectiveModel& m, const std::vector<Observation>& points,
                                              const RobustFit& f, const ModelOptions& options) {
  std::vector<PointFacts> facts;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Observation& o = points[i];
    const CostTerms t = terms_of(m.collective, m.algorithm, o.nranks);
    FittedPoint p;
    p.nranks = o.nranks;
    p.bytes = o.bytes;
    p.measured_s = o.seconds;
    p.model_s = cost_seconds(t, o.bytes, m.alpha.value, m.beta.value, m.gamma.value);
    p.residual = p.model_s > 0 ? (p.measured_s - p.model_s) / p.model_s : kNaN;
    p.weight = f.weight[i];
    p.refused = f.weight[i] <= 0;
    p.busbw_gbps = busbw_gbps(m.collective, o.nranks, o.bytes, o.seconds);
    p.bound_gbps = model_bound_gbps(m.collective, o.nranks, t, m.beta.value, m.gamma.value);
    p.link_bound_gbps = link_bound_gbps(m.collective, o.nranks, t, options.link_gbps);
    m.points.push_back(p);
    facts.push_back({o.nranks, o.bytes, p.measured_s, p.model_s,
                     p.model_s > 0 ? t.latency * m.alpha.value / p.model_s : 0.0, o.faults_per_op, p.refused});
  }
  return facts;
}

// Why each refused point left the line, and the breaks: the protocol switch's first, then the ranges of sizes.
void name_breaks(CollectiveModel& m, const std::vector<Observation>& points, const std::vector<PointFacts>& facts) {
  const auto causes = break_causes(facts);
  const std::vector<std::string> protocol = name_protocol_switch(m, points);
  for (std::size_t i = 0; i < m.points.size(); ++i) m.points[i].cause = causes[i];
  m.breaks = protocol;
  for (std::string& line : break_ranges(facts, causes)) m.breaks.push_back(std::move(line));
}

CollectiveModel fit_group(const Group& g, const ModelOptions& options) {
  CollectiveModel m;
  m.collective = g.points.front().collective;
  m.algorithm = g.algorithm;
  m.algorithm_source = g.source;
  m.backend = g.points.front().backend;
  const std::vector<Observation> points = points_to_fit(g, options, m.notes);
  const RobustFit f = fit_formula(m, points, options);
  take_estimates(m, f);
  name_breaks(m, points, measure_against_model(m, points, f, options));
  return m;
}

// The measured sizes, one per step of the sweep: at p ranks a sweep's size is rounded down to whole elements per rank
// (allgather's 64 KiB is 65532 B at 3 ranks), so sizes within 1 % of each other are one step, predicted at the
// largest (the size asked for).
std::vector<double> nominal_sizes(const std::vector<FittedPoint>& points) {
  std::set<double> measured;
  for (const FittedPoint& p : points) measured.insert(p.bytes);
  std::vector<double> out;
  for (double s : measured) {
    if (!out.empty() && s <= out.back() * 1.01) {
      out.back() = s;
    } else {
      out.push_back(s);
    }
  }
  return out;
}

void add_predictions(CollectiveModel& m, const ModelOptions& options) {
  std::vector<int> ranks = options.predict_ranks.empty() ? m.ranks : options.predict_ranks;
  std::vector<double> sizes = options.predict_sizes;
  if (sizes.empty()) sizes = nominal_sizes(m.points);
  for (int p : ranks) {
    for (double s : sizes) {
      PredictedCase k;
      k.nranks = p;
      k.bytes = s;
      k.times.push_back(predict_time(m, m.algorithm, p, s));
      for (Algorithm a : algorithms_of(m.collective)) {
        if (a != m.algorithm) k.times.push_back(predict_time(m, a, p, s));
      }
      std::vector<const AlgorithmTime*> order;
      for (const AlgorithmTime& t : k.times) order.push_back(&t);
      std::stable_sort(order.begin(), order.end(),
                       [](const AlgorithmTime* a, const AlgorithmTime* b) { return a->seconds < b->seconds; });
      k.winner = order.front()->algorithm;
      k.close = order.size() > 1 && order[1]->low <= order[0]->high;
      m.predictions.push_back(std::move(k));
    }
  }
  if (!m.gamma.fitted && is_reduction(m.collective) && algorithms_of(m.collective).size() > 1) {
    m.notes.push_back(
        fmt::format("the other algorithms' times use the {} fit's beta, which holds the reduction at "
                    "{}'s ratio; where their ratio differs the comparison is approximate",
                    name(m.algorithm), name(m.algorithm)));
  }
}

}  // namespace

AlgorithmTime predict_time(const CollectiveModel& m, Algorithm algorithm, int p, double bytes) {
  AlgorithmTime out;
  out.algorithm = algorithm;
  const CostTerms t = terms_of(m.collective, algorithm, p);
  const Row x = row_of(t, bytes);
  out.seconds = cost_seconds(t, bytes, m.alpha.value, m.beta.value, m.gamma.value);
  double variance = 0;
  for (std::size_t r = 0; r < kColumns; ++r) {
    for (std::size_t c = 0; c < kColumns; ++c) variance += x[r] * m.covariance[r][c] * x[c];
  }
  const double half = m.t_quantile * std::sqrt(std::max(0.0, variance));
  out.low = std::max(0.0, out.seconds - half);
  out.high = out.seconds + half;
  out.busbw_gbps = busbw_gbps(m.collective, p, bytes, out.seconds);
  out.busbw_low = busbw_gbps(m.collective, p, bytes, out.high);
  out.busbw_high = out.low > 0 ? busbw_gbps(m.collective, p, bytes, out.low) : kNaN;
  return out;
}

ModelResult build_model(const std::vector<ParsedReport>& reports, const std::vector<std::string>& sources,
                        const ModelOptions& given) {
  if (reports.empty()) {
    throw usage_error("no report given; pass one or more JSON reports of a sweep: distbench model run.json");
  }
  std::vector<Observation> all;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    auto points = observations_of(reports[i], sources[i]);
    all.insert(all.end(), points.begin(), points.end());
  }
  all = merge_repeats(std::move(all));
  const std::vector<Observation> points = points_of_collective(all, given);
  // The link rate: --link-gbps, else the NIC rates the reports recorded (model/link_rate.hpp).
  const LinkRate link = link_rate_of(reports, given.link_gbps);
  ModelOptions options = given;
  options.link_gbps = link.gbps;
  ModelResult result;
  result.sources = sources;
  result.link_gbps = options.link_gbps;
  result.link_source = link.source;
  result.confidence = options.confidence;
  std::vector<std::string> notes;
  for (const Group& g : groups_by_algorithm(points, options, notes)) {
    CollectiveModel m = fit_group(g, options);
    add_predictions(m, options);
    m.notes.insert(m.notes.begin(), notes.begin(), notes.end());
    result.models.push_back(std::move(m));
  }
  return result;
}

std::string link_rate_warning(const ModelResult& r) {
  if (!(r.link_gbps > 0)) return {};
  double most = 0;
  for (const CollectiveModel& m : r.models) {
    for (const FittedPoint& p : m.points) {
      const double of_link = p.busbw_gbps / p.link_bound_gbps;
      if (std::isfinite(of_link)) most = std::max(most, of_link);
    }
  }
  if (most <= 1.1) return {};
  return fmt::format("measured busbw reaches {} of the {:g} GB/s link: the link rate is probably wrong",
                     most < 10    ? fmt::format("{:.0f}%", most * 100)
                     : most < 1e6 ? fmt::format("{:.0f}x", most)
                                  : fmt::format("{:.3g}x", most),
                     r.link_gbps);
}

}  // namespace distbench::model
