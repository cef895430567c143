// The result model every benchmark emits: a record is one measured case of any kind of work. Its parameters say
// what ran (in the benchmark's order), its phases hold the timing samples, its metrics the figures derived from
// them (each in the unit its benchmark's layout names), and each rank keeps its own figures with its host — or, in a
// large job, a summary of each figure over the ranks (core/report/per_rank.hpp says when).
#pragma once

#include "core/measure/phase.hpp"
#include "core/measure/rank_summary.hpp"
#include "core/measure/stats.hpp"

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace distbench {

using ParamValue = std::variant<std::string, std::int64_t, double>;

struct Param {
  std::string key;
  ParamValue value;
};

inline constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();

// A named figure in its layout's unit; NaN when it does not apply (e.g. results not checked).
struct Metric {
  std::string key;
  double value = kNotMeasured;
};

// One rank's own figures (keys as in the layout's rank figures).
struct RankFigures {
  int rank = 0;
  std::string host;
  std::vector<Metric> figures;
};

// One per-rank figure over the ranks of a record: quantiles and the ranks at either end, with their hosts.
struct FigureSummary {
  std::string key;  // a key of the layout's rank figures
  RankDistribution over_ranks;
};

// What a record keeps of its ranks' figures in the summary form: how many ranks, and each figure summarised, in the
// layout's order. Its size does not grow with the ranks.
struct RankSummary {
  std::size_t ranks = 0;  // ranks the record had figures for
  std::vector<FigureSummary> figures;

  bool empty() const { return ranks == 0 && figures.empty(); }
};

struct Record {
  std::string kind;  // the benchmark: "collective", "latency", ...
  std::vector<Param> params;
  int ops_per_sample = 1;
  bool noise_target_met = true;
  std::vector<PhaseStats> phases;
  std::vector<Metric> metrics;
  std::vector<RankFigures> ranks;  // every rank's figures (the full form), or empty
  RankSummary rank_summary;        // the summary form: set only when `ranks` is empty
  std::string status = "ok";       // "ok" | "skipped"
  std::string skip_reason;

  bool ok() const { return status == "ok"; }
  // Lookups; nullptr / NaN / empty when absent.
  const ParamValue* param(std::string_view key) const;
  std::string param_text(std::string_view key) const;  // any parameter as text ("" when absent)
  double metric(std::string_view key) const;
  const PhaseStats* phase(std::string_view name) const;

  Record& set(std::string key, ParamValue value);
  Record& set_metric(std::string key, double value);
};

// A parameter's value as text: strings as they are, integers in decimal, numbers in their shortest form.
std::string param_text(const ParamValue& v);

// A warning as data: a stable code (for tools), the advice for people (one line: "warning: " and the message fit
// kWarningColumns, with no figure a reader cannot use) and, in the reports only, the detail: the full figures and why.
struct Warning {
  std::string code;
  std::string message;
  std::string detail = {};  // empty: the message says it all
};

inline constexpr std::size_t kWarningColumns = 100;

}  // namespace distbench
