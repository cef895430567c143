#include "history/history_views.hpp"

#include "compare/compare_views.hpp"
#include "core/error.hpp"
#include "core/report/text.hpp"
#include "core/sys/quote.hpp"
#include "history/series_values.hpp"
#include "history/series_verdict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace distbench::history {

std::string metric_words(const compare::Comparison& c, double v) {
  if (!std::isfinite(v)) return "-";
  return c.options.metric == compare::CompareMetric::time ? time_text(v) : bandwidth_text(v);
}

std::string interval_words(double change, double low, double high) {
  auto pct = [](double v) { return percent_text(v * 100, 1, Sign::always); };
  if (!std::isfinite(change)) return "-";
  if (!std::isfinite(low) || !std::isfinite(high)) return pct(change);
  return fmt::format("{} [{}, {}]", pct(change), pct(low), pct(high));
}

std::string p_figure(double p) {
  if (!std::isfinite(p)) return "-";
  return p < 1e-4 ? fmt::format("{:.0e}", p) : fmt::format("{:.4f}", p);
}

std::string outcome_word(const compare::Comparison& c) {
  if (c.regressed()) return "REGRESSION";
  return c.not_judged.empty() ? "OK" : "NOT JUDGED";
}

std::string check_rules(const HistoryCheck& check) {
  const compare::CompareOptions& o = check.comparison.options;
  return fmt::format(
      "change points by E-Divisive means on log {0} (a split stands when Student's t-test between its segments gives "
      "p < {1:g}; segments of at least {2} runs); a case is SLOWER (FASTER) when a change point among its newest {3} "
      "runs, or the newest run alone against the runs of its segment (a prediction t-test, p < {4:g}, at least {5} "
      "runs before it), changed its {0} by more than {6:g}% for the worse (better) and its time per operation by more "
      "than {7:g} us; the interval is the {8:g}% confidence interval of the change",
      name(o.metric), check.detector.max_p, check.detector.min_segment, check.window, o.alpha, kMinReferenceRuns,
      o.threshold * 100, o.floor_us, (1 - o.alpha) * 100);
}

std::string change_point_words(const SeriesCheck& s, const Series* series) {
  std::string out;
  for (const ChangePoint& c : s.change_points) {
    const bool known = series != nullptr && c.index < series->points.size();
    out += fmt::format("{}{} {} p {}", out.empty() ? "" : "; ",
                       known ? run_words(series->points[c.index]) : fmt::format("run {}", c.run),
                       interval_words(c.change, c.change_low, c.change_high), p_figure(c.p));
  }
  return out.empty() ? "none" : out;
}

std::vector<const Series*> series_of(const HistoryCheck& check, const std::vector<Series>& series) {
  std::map<std::string, const Series*> by_key;
  for (const Series& s : series) by_key.emplace(s.key, &s);
  std::vector<const Series*> out;
  for (const SeriesCheck& s : check.series) {
    const auto it = by_key.find(s.key);
    out.push_back(it == by_key.end() ? nullptr : it->second);
  }
  return out;
}

namespace {

std::string verdict_words(const compare::CaseComparison& k) {
  std::string v(name(k.verdict));
  if (!k.reason.empty()) v += " (" + k.reason + ")";
  return v;
}

}  // namespace

std::string history_text(const HistoryCheck& check, const std::vector<Series>& series) {
  const compare::Comparison& c = check.comparison;
  std::size_t width = 4;
  for (const auto& k : c.cases) width = std::max(width, escape_text(k.label).size());
  std::string out =
      fmt::format("# distbench history check: {}, {} ({}), the newest {} runs gated\n",
                  plural(c.cases.size(), "series", "series"), name(c.options.metric), c.metric_unit, check.window);
  out += fmt::format("# {:<{}}  {:>12} {:>12}  {:<30} {:>8}  {}\n", "case", width, "before", "newest", "change [CI]",
                     "p", "verdict");
  for (const auto& k : c.cases) {
    out += fmt::format("  {:<{}}  {:>12} {:>12}  {:<30} {:>8}  {}\n", escape_text(k.label), width,
                       metric_words(c, k.base), metric_words(c, k.cand),
                       interval_words(k.change, k.change_low, k.change_high), p_figure(k.p), verdict_words(k));
  }
  const auto of = series_of(check, series);
  out += "# change points:\n";
  for (std::size_t i = 0; i < check.series.size() && i < c.cases.size(); ++i) {
    out += fmt::format("#   {}: {}\n", escape_text(c.cases[i].label),
                       escape_text(change_point_words(check.series[i], of[i])));
  }
  out += fmt::format(
      "# {} in {}; before: the segment before the change (geometric mean of its runs), newest: the "
      "newest segment, or the newest run when it was tested alone\n",
      name(c.options.metric), c.metric_unit);
  out += fmt::format("# {}\n", check_rules(check));
  for (const auto& w : c.warnings) out += fmt::format("# warning: {}\n", escape_text(w));
  out += fmt::format("# {}\n", c.summary_line());
  if (!c.not_judged.empty()) out += fmt::format("# not judged: {}\n", escape_text(c.not_judged));
  out += fmt::format("# verdict: {}\n", outcome_word(c));
  return out;
}

std::string history_markdown(const HistoryCheck& check, const std::vector<Series>& series) {
  const compare::Comparison& c = check.comparison;
  std::string out = "## distbench history check\n\n";
  const std::string outcome = c.regressed() ? "Regression" : c.not_judged.empty() ? "No regression" : "Not judged";
  out += fmt::format("**{}** · {}\n\n", outcome, markdown_text(c.summary_line()));
  if (!c.not_judged.empty()) out += fmt::format("Not judged: {}.\n\n", markdown_text(c.not_judged));
  out += fmt::format("{}.\n\n", markdown_text(check_rules(check)));
  const std::string unit = markdown_text(fmt::format("{} ({})", name(c.options.metric), c.metric_unit));
  out += fmt::format("| case | before {0} | newest {0} | change [CI] | p | verdict | change points |\n", unit);
  out += "| :--- | ---: | ---: | ---: | ---: | :--- | :--- |\n";
  const auto of = series_of(check, series);
  for (std::size_t i = 0; i < c.cases.size(); ++i) {
    const auto& k = c.cases[i];
    const bool flag = k.verdict == compare::Verdict::slower;
    const std::string points = i < check.series.size() ? change_point_words(check.series[i], of[i]) : "-";
    out += fmt::format("| {} | {} | {} | {} | {} | {}{}{} | {} |\n", markdown_text(k.label), metric_words(c, k.base),
                       metric_words(c, k.cand), interval_words(k.change, k.change_low, k.change_high), p_figure(k.p),
                       flag ? "**" : "", markdown_text(verdict_words(k)), flag ? "**" : "", markdown_text(points));
  }
  for (const auto& w : c.warnings) out += fmt::format("\n> warning: {}\n", markdown_text(w));
  return out;
}

std::string history_junit(const HistoryCheck& check, const std::vector<Series>& /*series*/) {
  const compare::Comparison& c = check.comparison;
  const auto [failures, skipped] = compare::junit_counts(c);
  const bool missing_fails = !c.options.allow_missing;  // as in compare: a MISSING case fails the gate without it
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"distbench history check\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n",
                     c.cases.size(), failures, skipped);
  out += fmt::format("  <testsuite name=\"distbench.history\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n",
                     c.cases.size(), failures, skipped);
  for (const auto& k : c.cases) {
    out += fmt::format("    <testcase classname=\"distbench.history\" name=\"{}\" time=\"0\">", xml_text(k.label));
    const std::string detail =
        fmt::format("{}: before {} {}, newest {} {}, change {}, p {}: {}", name(k.verdict), metric_words(c, k.base),
                    c.metric_unit, metric_words(c, k.cand), c.metric_unit,
                    interval_words(k.change, k.change_low, k.change_high), p_figure(k.p), k.reason);
    if (k.verdict == compare::Verdict::slower) {
      out += fmt::format("\n      <failure message=\"{}\" type=\"SLOWER\">{}</failure>\n    ", xml_text(detail),
                         xml_text(check_rules(check)));
    } else if (k.verdict == compare::Verdict::missing && missing_fails) {
      out += fmt::format("\n      <failure message=\"{}\" type=\"MISSING\">{}</failure>\n    ",
                         xml_text(fmt::format("MISSING: {}", k.reason)), xml_text(c.not_judged));
    } else if (k.verdict != compare::Verdict::same && k.verdict != compare::Verdict::faster) {
      out += fmt::format("\n      <skipped message=\"{}\"/>\n    ",
                         xml_text(fmt::format("{}: {}", name(k.verdict), k.reason)));
    } else {
      out += fmt::format("\n      <system-out>{}</system-out>\n    ", xml_text(detail));
    }
    out += "</testcase>\n";
  }
  return out + "  </testsuite>\n</testsuites>\n";
}

std::string history_view(std::string_view format, const HistoryCheck& check, const std::vector<Series>& series) {
  if (format == "text") return history_text(check, series);
  if (format == "markdown") return history_markdown(check, series);
  if (format == "json") return history_json(check, series);
  if (format == "junit") return history_junit(check, series);
  if (format == "html") return history_html(check, series);
  throw usage_error(fmt::format("--format {}: use text, markdown, json, junit or html", format));
}

}  // namespace distbench::history
