// The HTML view of a comparison: a self-contained page (inline CSS and SVG, no script, nothing fetched) with the
// verdict, the criteria, one plot per group of cases (baseline and candidate medians against size, the candidate's
// confidence band, SLOWER cases ringed) and the table.
#include "compare/compare_views.hpp"
#include "core/measure/sizes.hpp"
#include "core/report/text.hpp"
#include "views/svg_plot.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>

namespace distbench::compare {
namespace {

std::string upper_first(std::string s) {
  if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
  return s;
}

// The cases grouped by every parameter but the size (one plot each), in first-seen order.
struct Group {
  std::string name;
  std::vector<const CaseComparison*> cases;
};

// Whether a parameter takes more than one value over the cases (only those name a group).
bool varies(const Comparison& c, const std::string& key) {
  const std::string* first = nullptr;
  std::string text;
  for (const CaseComparison& k : c.cases) {
    for (const Param& p : k.params) {
      if (p.key != key) continue;
      if (first == nullptr) {
        text = param_text(p.value);
        first = &text;
      } else if (param_text(p.value) != text) {
        return true;
      }
    }
  }
  return false;
}

std::vector<Group> groups_by_size(const Comparison& c) {
  std::vector<Group> groups;
  std::map<std::string, std::size_t> index;
  for (const CaseComparison& k : c.cases) {
    const auto* bytes = [&]() -> const ParamValue* {
      for (const Param& p : k.params) {
        if (p.key == "bytes") return &p.value;
      }
      return nullptr;
    }();
    if (bytes == nullptr || !std::holds_alternative<std::int64_t>(*bytes)) continue;
    std::string name;
    for (const Param& p : k.params) {
      if (p.key == "bytes" || p.key == "count" || !varies(c, p.key)) continue;
      if (!name.empty()) name += ' ';
      name += param_text(p.value);
    }
    auto [it, fresh] = index.try_emplace(name, groups.size());
    if (fresh) groups.push_back({name, {}});
    groups[it->second].cases.push_back(&k);
  }
  return groups;
}

double bytes_of(const CaseComparison& k) {
  for (const Param& p : k.params) {
    if (p.key == "bytes") return static_cast<double>(std::get<std::int64_t>(p.value));
  }
  return kNotMeasured;
}

std::string plot(const Comparison& c, const Group& g) {
  views::PlotSeries base{"baseline", {}, {}, {}, {}, {}, true};
  views::PlotSeries cand{"candidate", {}, {}, {}, {}, {}, false};
  for (const CaseComparison* k : g.cases) {
    const double x = bytes_of(*k);
    base.x.push_back(x);
    base.y.push_back(k->base);
    cand.x.push_back(x);
    cand.y.push_back(k->cand);
    const bool band = std::isfinite(k->change_low) && std::isfinite(k->base);
    cand.y_low.push_back(band ? k->base * (1 + k->change_low) : kNotMeasured);
    cand.y_high.push_back(band ? k->base * (1 + k->change_high) : kNotMeasured);
    cand.marked.push_back(k->verdict == Verdict::slower);
  }
  views::PlotSpec spec;
  spec.title = fmt::format("{}: {}", g.name.empty() ? c.benchmark : g.name, name(c.options.metric));
  spec.x_label = "size (bytes)";
  spec.y_label = fmt::format("{} ({})", name(c.options.metric), c.metric_unit);
  spec.mark_label = "SLOWER";
  return views::svg_line_plot(spec, {base, cand});
}

// What makes a case SLOWER (the paragraph above the plots): the test that ran, in the words of the other views.
std::string criteria_paragraph(const Comparison& c) {
  const bool untested = c.options.threshold_only && c.rounds == 0;
  const std::string note = untested ? "<p class=\"bad\"><b>Threshold-only: no significance test.</b></p>\n" : "";
  return fmt::format("{}<p>{}.{}</p>\n", note, html_escape(upper_first(compare_criteria(c))),
                     untested ? ""
                              : " The band is that interval; an end beyond the plot is clipped at its edge and "
                                "marked with a triangle.");
}

}  // namespace

std::string compare_html(const Comparison& c, const CompareSources& sources) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  out += fmt::format("<title>distbench compare: {}</title>\n", html_escape(c.benchmark));
  out +=
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<style>body{font-family:sans-serif;margin:2em auto;padding:0 1.5em;max-width:1560px;color:#222}"
      ".wide{overflow-x:auto}table{border-collapse:collapse}"
      "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}td:first-child{text-align:left}"
      "td{white-space:nowrap}td:last-child,th:last-child{text-align:left;white-space:normal;min-width:16em}"
      ".SLOWER{color:#b00;font-weight:bold}.FASTER{color:#070}.bad{color:#b00}.ok{color:#070}</style>\n";
  out += "</head><body>\n";
  out += fmt::format("<h1>distbench compare: {}</h1>\n", html_escape(c.benchmark));
  const bool fails = c.regressed() || !c.not_judged.empty();
  const std::string outcome = c.regressed() ? "Regression" : c.not_judged.empty() ? "No regression" : "Not judged";
  out +=
      fmt::format("<p class=\"{}\"><b>{}</b> · {}</p>\n", fails ? "bad" : "ok", outcome, html_escape(c.summary_line()));
  if (!c.not_judged.empty()) out += fmt::format("<p class=\"bad\">Not judged: {}</p>\n", html_escape(c.not_judged));
  std::string bases;
  for (const auto& f : sources.baselines) {
    if (!bases.empty()) bases += ", ";
    bases += html_escape(f);
  }
  out += fmt::format("<p>Baseline: {} · candidate: {}</p>\n", bases, html_escape(sources.candidate));
  out += criteria_paragraph(c);
  for (const auto& w : c.warnings) out += fmt::format("<p class=\"bad\">warning: {}</p>\n", html_escape(w));
  for (const Group& g : groups_by_size(c)) out += plot(c, g) + "\n";
  out += fmt::format(
      "<div class=\"wide\"><table>\n<tr><th>case</th><th>baseline {0} ({1})</th><th>candidate {0} "
      "({1})</th><th>change</th>"
      "<th>CI low</th><th>CI high</th><th>p</th><th>verdict</th></tr>\n",
      name(c.options.metric), c.metric_unit);
  // figures with three decimals (three significant digits when huge: never hundreds of digits), changes as percentages
  auto num = [](double v, const char* f) {
    if (!std::isfinite(v)) return std::string("-");
    return std::fabs(v) < 1e12 ? fmt::format(fmt::runtime(f), v) : fmt::format("{:.3g}", v);
  };
  auto pct = [](double v) { return percent_text(v * 100, 1, Sign::always); };
  for (const CaseComparison& k : c.cases) {
    std::string verdict(name(k.verdict));
    if (!k.reason.empty()) verdict += fmt::format(" ({})", k.reason);
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td class=\"{}\">{}</td></tr>\n",
        html_escape(k.label), num(k.base, "{:.3f}"), num(k.cand, "{:.3f}"), pct(k.change), pct(k.change_low),
        pct(k.change_high), num(k.p, "{:.2g}"), name(k.verdict), html_escape(verdict));
  }
  out += "</table></div>\n</body></html>\n";
  return out;
}

}  // namespace distbench::compare
