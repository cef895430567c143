#include "compare/compare_views.hpp"

#include "core/report/text.hpp"
#include "core/sys/quote.hpp"
#include "views/svg_plot.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>

namespace distbench::compare {
namespace {

std::string value_text(const Comparison& c, double v) {
  if (!std::isfinite(v)) return "-";
  return c.options.metric == CompareMetric::time ? time_text(v) : bandwidth_text(v);
}

std::string percent(double v) { return percent_text(v * 100, 1, Sign::always); }

std::string change_text(const CaseComparison& k) {
  if (!std::isfinite(k.change)) return "-";
  if (!std::isfinite(k.change_low)) return percent(k.change);
  return fmt::format("{} [{}, {}]", percent(k.change), percent(k.change_low), percent(k.change_high));
}

std::string p_text(double p) {
  if (!std::isfinite(p)) return "-";
  return p < 1e-4 ? fmt::format("{:.0e}", p) : fmt::format("{:.4f}", p);
}

// How the cases were judged: "interleaved", "runs" (reports, the runs' medians tested) or "threshold-only".
std::string mode_name(const Comparison& c) {
  if (c.rounds > 0) return "interleaved";
  return c.options.threshold_only ? "threshold-only" : "runs";
}

// The title's note on how reports were judged; nothing for interleaved runs, whose footer says it.
std::string mode_note(const Comparison& c) {
  if (c.rounds > 0) return "";
  const std::string runs = fmt::format("{}, {}", plural(c.baseline_runs, "baseline run", "baseline runs"),
                                       plural(c.candidate_runs, "candidate run", "candidate runs"));
  return c.options.threshold_only ? fmt::format("; threshold-only, no significance test: {}", runs)
                                  : fmt::format("; the runs' medians tested: {}", runs);
}

std::string metric_title(const Comparison& c) { return fmt::format("{} ({})", name(c.options.metric), c.metric_unit); }

std::string verdict_text(const CaseComparison& k) {
  std::string v(name(k.verdict));
  if (!k.reason.empty()) v += " (" + k.reason + ")";
  return v;
}

// The gate's one-word outcome: REGRESSION, NOT JUDGED (it could not judge, and fails) or OK.
std::string gate_word(const Comparison& c) {
  if (c.regressed()) return "REGRESSION";
  return c.not_judged.empty() ? "OK" : "NOT JUDGED";
}

}  // namespace

std::string compare_criteria(const Comparison& c) {
  if (c.rounds > 0) {
    return fmt::format(
        "baseline and candidate ran interleaved, {} rounds (baseline first in odd rounds, candidate "
        "first in even ones); a case is SLOWER (FASTER) when its {} changed by more than {:g}% for the "
        "worse (better), the time per operation by more than {:g} us, and a two-sided Wilcoxon "
        "signed-rank test on the rounds' paired log ratios of run medians gives p < {:g}; the change and "
        "its {:g}% confidence interval are the Hodges-Lehmann estimate over the rounds",
        c.rounds, name(c.options.metric), c.options.threshold * 100, c.options.floor_us, c.options.alpha,
        (1 - c.options.alpha) * 100);
  }
  if (c.options.threshold_only) {
    return fmt::format(
        "threshold-only, no significance test ({} baseline and {} candidate runs): a case is SLOWER (FASTER) when the "
        "median of the candidate runs' medians of its {} is worse (better) than the baseline's by more than {:g}%, "
        "its time per operation moved by more than {:g} us, and every candidate run is beyond every baseline run by "
        "more than {:g}%",
        c.baseline_runs, c.candidate_runs, name(c.options.metric), c.options.threshold * 100, c.options.floor_us,
        c.options.threshold * 100);
  }
  return fmt::format(
      "the run is the unit ({} baseline and {} candidate runs): a case is SLOWER (FASTER) when the median of the "
      "candidate runs' medians of its {} is worse (better) than the baseline's by more than {:g}%, its time per "
      "operation moved by more than {:g} us, every candidate run is beyond every baseline run by more than {:g}%, and "
      "a two-sided Mann-Whitney U test on the runs' medians gives p < {:g}; the interval is the {:g}% confidence "
      "interval of the change (Hodges-Lehmann over the runs' medians)",
      c.baseline_runs, c.candidate_runs, name(c.options.metric), c.options.threshold * 100, c.options.floor_us,
      c.options.threshold * 100, c.options.alpha, (1 - c.options.alpha) * 100);
}

nlohmann::ordered_json case_figures_json(const CaseComparison& k) {
  using json = nlohmann::ordered_json;
  return {{"label", k.label},
          {"params", params_json(k.params)},
          {"verdict", std::string(name(k.verdict))},
          {"reason", k.reason.empty() ? json(nullptr) : json(k.reason)},
          {"baseline", json_number(k.base)},
          {"candidate", json_number(k.cand)},
          {"ratio", json_number(k.ratio)},
          {"change", json_number(k.change)},
          {"change_low", json_number(k.change_low)},
          {"change_high", json_number(k.change_high)},
          {"p", json_number(k.p)},
          {"time_delta_us", json_number(k.time_delta_us)}};
}

nlohmann::ordered_json verdict_counts_json(const Comparison& c) {
  return {{"slower", c.slower},
          {"faster", c.faster},
          {"same", c.same},
          {"unknown", c.unknown},
          {"missing", c.missing},
          {"new", c.added},
          {"geomean_ratio", json_number(c.geomean_ratio)}};
}

JunitCounts junit_counts(const Comparison& c) {
  const bool missing_fails = !c.options.allow_missing;
  return {c.slower + (missing_fails ? c.missing : 0), c.unknown + c.added + (missing_fails ? 0 : c.missing)};
}

namespace {

// Each run of a side that measured the case: its median time (us), the median's 95% interval and its sample count.
nlohmann::ordered_json runs_json(const std::vector<RunFigure>& runs) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const RunFigure& r : runs) {
    out.push_back({{"median", json_number(r.median_us)},
                   {"low", json_number(r.low_us)},
                   {"high", json_number(r.high_us)},
                   {"samples", r.samples}});
  }
  return out;
}

// One case of the JSON view: its figures, samples and rounds; reports also list each side's runs.
nlohmann::ordered_json case_json(const Comparison& c, const CaseComparison& k) {
  nlohmann::ordered_json out = case_figures_json(k);
  out["baseline_samples"] = k.base_samples;
  out["candidate_samples"] = k.cand_samples;
  out["round_ratios"] = k.round_ratios;
  if (c.rounds == 0) {  // reports: the runs each side's figure and the test rest on
    out["baseline_runs"] = runs_json(k.base_run_figures);
    out["candidate_runs"] = runs_json(k.cand_run_figures);
  }
  return out;
}

}  // namespace

std::string compare_text(const Comparison& c) {
  std::size_t width = 4;
  for (const auto& k : c.cases) width = std::max(width, escape_text(k.label).size());
  const std::string title = metric_title(c);
  std::string out = fmt::format("# distbench compare: {} ({}{})\n", escape_text(c.benchmark),
                                plural(c.cases.size(), "case", "cases"), mode_note(c));
  out += fmt::format("# {:<{}}  {:>12} {:>12}  {:<30} {:>8}  {}\n", "case", width,
                     "base " + title.substr(0, title.find(' ')), "candidate", "change [CI]", "p", "verdict");
  for (const auto& k : c.cases) {
    out += fmt::format("  {:<{}}  {:>12} {:>12}  {:<30} {:>8}  {}\n", escape_text(k.label), width,
                       value_text(c, k.base), value_text(c, k.cand), change_text(k), p_text(k.p), verdict_text(k));
  }
  out += fmt::format("# {} in {}{}\n", name(c.options.metric), c.metric_unit,
                     c.rounds > 0 ? fmt::format("; medians of the run medians over {} interleaved rounds, change and p "
                                                "paired by round",
                                                c.rounds)
                                  : std::string());
  for (const auto& w : c.warnings) out += fmt::format("# warning: {}\n", escape_text(w));
  out += fmt::format("# {}\n", c.summary_line());
  if (!c.not_judged.empty()) out += fmt::format("# not judged: {}\n", escape_text(c.not_judged));
  out += fmt::format("# verdict: {}\n", gate_word(c));
  return out;
}

std::string compare_markdown(const Comparison& c, const CompareSources& sources) {
  std::string out = fmt::format("## distbench compare: {}\n\n", markdown_text(c.benchmark));
  if (c.options.threshold_only && c.rounds == 0) out += "**Threshold-only: no significance test.**\n\n";
  const std::string outcome = c.regressed() ? "Regression" : c.not_judged.empty() ? "No regression" : "Not judged";
  out += fmt::format("**{}** · {}\n\n", outcome, markdown_text(c.summary_line()));
  if (!c.not_judged.empty()) out += fmt::format("Not judged: {}.\n\n", markdown_text(c.not_judged));
  out += fmt::format(
      "Baseline: {} · candidate: {} · {}.\n\n",
      [&] {
        std::string b;
        for (const auto& f : sources.baselines) b += (b.empty() ? "" : ", ") + markdown_text(f);
        return b;
      }(),
      markdown_text(sources.candidate), markdown_text(compare_criteria(c)));
  const std::string title = markdown_text(metric_title(c));
  out += fmt::format("| case | baseline {} | candidate {} | change [CI] | p | verdict |\n", title, title);
  out += "| :--- | ---: | ---: | ---: | ---: | :--- |\n";
  for (const auto& k : c.cases) {
    const bool flag = k.verdict == Verdict::slower;
    out += fmt::format("| {} | {} | {} | {} | {} | {}{}{} |\n", markdown_text(k.label), value_text(c, k.base),
                       value_text(c, k.cand), change_text(k), p_text(k.p), flag ? "**" : "",
                       markdown_text(verdict_text(k)), flag ? "**" : "");
  }
  for (const auto& w : c.warnings) out += fmt::format("\n> warning: {}\n", markdown_text(w));
  return out;
}

std::string compare_json(const Comparison& c, const CompareSources& sources) {
  using json = nlohmann::ordered_json;
  json j;
  j["tool"] = "distbench compare";
  j["benchmark"] = c.benchmark;
  j["baselines"] = sources.baselines;
  j["candidate"] = sources.candidate;
  j["metric"] = std::string(name(c.options.metric));
  j["unit"] = c.metric_unit;
  j["threshold"] = c.options.threshold;
  j["floor_us"] = c.options.floor_us;
  j["alpha"] = c.options.alpha;
  j["mode"] = mode_name(c);
  j["rounds"] = c.rounds;
  j["regression"] = c.regressed();
  j["verdict"] = gate_word(c);
  j["not_judged"] = c.not_judged.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(c.not_judged);
  j["allow_missing"] = c.options.allow_missing;
  j["summary"] = verdict_counts_json(c);
  j["warnings"] = c.warnings;
  json cases = json::array();
  for (const auto& k : c.cases) cases.push_back(case_json(c, k));
  j["cases"] = std::move(cases);
  return j.dump(2) + "\n";
}

std::string compare_junit(const Comparison& c, const CompareSources& sources) {
  const auto [failures, skipped] = junit_counts(c);
  const bool missing_fails = !c.options.allow_missing;  // a MISSING case fails the gate without --allow-missing
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"distbench compare\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n",
                     c.cases.size(), failures, skipped);
  out += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n",
                     xml_text(fmt::format("distbench.{} {}", c.benchmark, sources.candidate)), c.cases.size(), failures,
                     skipped);
  if (c.rounds == 0) {  // reports: how they were judged (interleaved runs say it in each failure's criteria)
    out += fmt::format("    <properties><property name=\"mode\" value=\"{}\"/></properties>\n", mode_name(c));
  }
  for (const auto& k : c.cases) {
    const double seconds = std::isfinite(k.cand) && c.options.metric == CompareMetric::time ? k.cand * 1e-6 : 0.0;
    out += fmt::format("    <testcase classname=\"distbench.{}\" name=\"{}\" time=\"{:.9f}\">", xml_text(c.benchmark),
                       xml_text(k.label), seconds);
    const std::string detail =
        fmt::format("{}: baseline {} {}, candidate {} {}, change {}, p {}: {}", name(k.verdict), value_text(c, k.base),
                    c.metric_unit, value_text(c, k.cand), c.metric_unit, change_text(k), p_text(k.p), k.reason);
    if (k.verdict == Verdict::slower) {
      out += fmt::format("\n      <failure message=\"{}\" type=\"SLOWER\">{}</failure>\n    ", xml_text(detail),
                         xml_text(compare_criteria(c)));
    } else if (k.verdict == Verdict::missing && missing_fails) {
      out += fmt::format("\n      <failure message=\"{}\" type=\"MISSING\">{}</failure>\n    ",
                         xml_text(fmt::format("MISSING: {}", k.reason)), xml_text(c.not_judged));
    } else if (k.verdict != Verdict::same && k.verdict != Verdict::faster) {
      out += fmt::format("\n      <skipped message=\"{}\"/>\n    ",
                         xml_text(fmt::format("{}: {}", name(k.verdict), k.reason)));
    } else {
      out += fmt::format("\n      <system-out>{}</system-out>\n    ", xml_text(detail));
    }
    out += "</testcase>\n";
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace distbench::compare
