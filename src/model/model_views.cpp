#include "model/model_views.hpp"

#include "core/measure/sizes.hpp"
#include "core/report/text.hpp"
#include "core/sys/quote.hpp"
#include "version.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace distbench::model {
namespace {

using json = nlohmann::ordered_json;

std::string size_text(double bytes) { return format_bytes(static_cast<std::uint64_t>(bytes)); }

std::string us_text(double seconds) {
  if (!std::isfinite(seconds)) return "-";
  const double us = seconds * 1e6;
  return fixed_text(us, us < 1e4 ? 2 : 0);
}

std::string gbps_text(double v) { return std::isfinite(v) ? fmt::format("{:.3g}", v) : std::string("-"); }

std::string pct_text(double fraction) { return percent_text(fraction * 100, 0); }

std::string signed_pct(double fraction) { return percent_text(fraction * 100, 1, Sign::always); }

// 1/beta (or 1/gamma) in GB/s, the interval inverted.
struct Rate {
  double value, low, high;
};
Rate rate_of(const Estimate& e) {
  const auto inv = [](double s) { return s > 0 ? 1 / s / 1e9 : std::nan(""); };
  return {inv(e.value), inv(e.high), e.low > 0 ? inv(e.low) : std::numeric_limits<double>::infinity()};
}

std::string interval_text(double low, double high, std::string (*f)(double)) {
  return fmt::format("[{}, {}]", std::isinf(low) ? "inf" : f(low), std::isinf(high) ? "inf" : f(high));
}

// Where the link rate came from: "link 1.25 GB/s per rank and direction: eth0 10000 Mb/s as read on nodeA (...)".
std::string link_line(const ModelResult& r) {
  if (r.link_gbps > 0) return fmt::format("link {:g} GB/s per rank and direction: {}", r.link_gbps, r.link_source);
  return "link rate " + r.link_source;
}

std::string header_line(const CollectiveModel& m) {
  std::string ranks;
  for (int p : m.ranks) ranks += (ranks.empty() ? "" : ", ") + std::to_string(p);
  return fmt::format("{} by {} ({}), backend {}, measured at p = {}", name(m.collective), name(m.algorithm),
                     m.algorithm_source, m.backend, ranks);
}

std::vector<std::string> parameter_lines(const ModelResult& r, const CollectiveModel& m) {
  std::vector<std::string> lines;
  const int pct = static_cast<int>(std::lround(r.confidence * 100));
  lines.push_back(fmt::format("alpha  {:>10} us   {:<22} per message", us_text(m.alpha.value),
                              m.alpha.fitted ? interval_text(m.alpha.low, m.alpha.high, us_text) : "(not fitted)"));
  const Rate b = rate_of(m.beta);
  std::string link;
  if (r.link_gbps > 0 && std::isfinite(b.value)) {
    link = fmt::format(" = {} of the {:g} GB/s link", pct_text(b.value / r.link_gbps), r.link_gbps);
  }
  lines.push_back(fmt::format("beta   {:>10} GB/s {:<22} as 1/beta, per byte over one link{}", gbps_text(b.value),
                              m.beta.fitted ? interval_text(b.low, b.high, gbps_text) : "(not fitted)", link));
  if (is_reduction(m.collective)) {
    const Rate g = rate_of(m.gamma);
    lines.push_back(fmt::format("gamma  {:>10} GB/s {:<22} as 1/gamma, per byte reduced",
                                m.gamma.fitted ? gbps_text(g.value) : "-",
                                m.gamma.fitted ? interval_text(g.low, g.high, gbps_text) : "(in beta)"));
  }
  std::size_t refused = 0;
  for (const FittedPoint& p : m.points) refused += p.refused ? 1 : 0;
  lines.push_back(
      fmt::format("fit    {} of {} points held ({} refused); robust scale of the residuals {}; {}% "
                  "intervals from the covariance (Student's t = {:.2f})",
                  m.used, m.points.size(), refused, percent_text(m.scale * 100), pct, m.t_quantile));
  return lines;
}

// Per measured rank count, at its largest size the fit holds: "p=3, 2 MiB: busbw 0.0237 GB/s, 95% of what the
// links allow (0.025 GB/s)", or of the model's bound without a link rate.
std::vector<std::string> delivered_lines(const CollectiveModel& m) {
  std::vector<std::string> out;
  for (int p : m.ranks) {
    const FittedPoint* last = nullptr;
    for (const FittedPoint& pt : m.points) {
      if (pt.nranks == p && !pt.refused) last = &pt;
    }
    if (last == nullptr) continue;
    const bool link = std::isfinite(last->link_bound_gbps);
    out.push_back(fmt::format("p={}, {}: busbw {} GB/s, {} of what {} ({} GB/s)", p, size_text(last->bytes),
                              gbps_text(last->busbw_gbps),
                              pct_text(last->busbw_gbps / (link ? last->link_bound_gbps : last->bound_gbps)),
                              link ? "the links allow" : "the model's bound allows",
                              gbps_text(link ? last->link_bound_gbps : last->bound_gbps)));
  }
  return out;
}

std::string prediction_cell(const AlgorithmTime& t) {
  return fmt::format("{} [{}, {}]", us_text(t.seconds), us_text(t.low), us_text(t.high));
}

// The text view's width: a line longer is broken at spaces, its rest indented by `indent` (a word longer than the
// line stays whole).
constexpr std::size_t kTextColumns = 100;

std::string wrap_columns(const std::string& line, const std::string& indent) {
  if (line.size() <= kTextColumns) return line + "\n";
  std::string out, rest = line;
  while (rest.size() > kTextColumns) {
    auto cut = rest.rfind(' ', kTextColumns);
    if (cut == std::string::npos || cut <= indent.size()) cut = rest.find(' ', kTextColumns);
    if (cut == std::string::npos) break;
    out += rest.substr(0, cut) + "\n";
    rest = indent + rest.substr(rest.find_first_not_of(' ', cut));
  }
  return out + rest + "\n";
}

// The measured points against the model, the cause of each refused one as a numbered footnote (causes repeat, and
// are up to 400 characters: the JSON and HTML carry them in full on every point).
std::string points_text(const ModelResult& r, const CollectiveModel& m) {
  std::string out = wrap_columns(
      std::string("# measured against the model (resid: measured/model - 1; of bound: busbw / the model's large-size "
                  "busbw") +
          (r.link_gbps > 0 ? "; of link: busbw / what the links allow this algorithm)" : ")"),
      "#   ");
  out += fmt::format("  {:>5} {:>10} {:>12} {:>12} {:>8} {:>10} {:>8} {:>8}  {}\n", "p", "size", "measured us",
                     "model us", "resid", "busbw GB/s", "of bound", "of link", "refused");
  std::vector<std::string> causes;
  for (const FittedPoint& p : m.points) {
    std::string note;
    if (!p.cause.empty()) {
      auto at = std::find(causes.begin(), causes.end(), p.cause);
      if (at == causes.end()) at = causes.insert(causes.end(), p.cause);
      note = fmt::format("[{}]", at - causes.begin() + 1);
    }
    out += fmt::format("  {:>5} {:>10} {:>12} {:>12} {:>8} {:>10} {:>8} {:>8}  {}\n", p.nranks, size_text(p.bytes),
                       us_text(p.measured_s), us_text(p.model_s), signed_pct(p.residual), gbps_text(p.busbw_gbps),
                       pct_text(p.busbw_gbps / p.bound_gbps), pct_text(p.busbw_gbps / p.link_bound_gbps), note);
  }
  if (!causes.empty()) out += "# refused because\n";
  for (std::size_t i = 0; i < causes.size(); ++i) {
    out += wrap_columns(fmt::format("  [{}] {}", i + 1, escape_text(causes[i])), "      ");
  }
  return out;
}

// The predictions, a line per algorithm (a column each would not fit 100 columns).
std::string predictions_text(const ModelResult& r, const CollectiveModel& m) {
  std::string out = fmt::format("# predicted time per operation, us [{} interval from the fitted parameters]\n",
                                percent_text(r.confidence * 100, 0));
  if (m.predictions.empty()) return out;
  out += fmt::format("  {:>5} {:>10}  {:<20} {:>30} {:>10}\n", "p", "size", "algorithm", "time us [interval]",
                     "busbw GB/s");
  for (const PredictedCase& k : m.predictions) {
    for (std::size_t i = 0; i < k.times.size(); ++i) {
      const AlgorithmTime& t = k.times[i];
      const bool wins = t.algorithm == k.winner;
      out += fmt::format("  {:>5} {:>10}  {:<20} {:>30} {:>10}{}\n", i == 0 ? std::to_string(k.nranks) : "",
                         i == 0 ? size_text(k.bytes) : "", name(t.algorithm), prediction_cell(t),
                         gbps_text(t.busbw_gbps), wins ? (k.close ? "  wins (close)" : "  wins") : "");
    }
  }
  return out;
}

}  // namespace

std::string formula_text(Collective c, Algorithm a) {
  const bool pow2 =
      a == Algorithm::recursive_doubling || a == Algorithm::recursive_halving || a == Algorithm::rabenseifner;
  std::string f(formula_of(c, a));
  if (pow2) f += " for p a power of 2; other p add a step before and after (extra ranks folded in)";
  return f;
}

std::string model_text(const ModelResult& r) {
  std::string out;
  for (const CollectiveModel& m : r.models) {
    out += wrap_columns(fmt::format("# distbench model: {}", escape_text(header_line(m))), "#   ");
    out += wrap_columns(fmt::format("# T(p, S) = {}", formula_text(m.collective, m.algorithm)), "#   ");
    if (!r.link_source.empty()) out += wrap_columns("# " + escape_text(link_line(r)), "#   ");
    for (const std::string& line : parameter_lines(r, m)) {
      // beta's fraction of the link whole on a line of its own when the line is too long
      const std::string indent(9, ' ');  // under the figure, past the parameter's name
      const auto link = line.find(" = ");
      if (line.size() + 2 > kTextColumns && line.rfind("beta", 0) == 0 && link != std::string::npos) {
        out += "  " + line.substr(0, link) + "\n" + wrap_columns(indent + line.substr(link + 1), indent);
      } else {
        out += wrap_columns("  " + line, indent);
      }
    }
    out += points_text(r, m);
    out += "# delivered at the largest size the fit holds\n";
    for (const std::string& line : delivered_lines(m)) out += wrap_columns("  " + line, "    ");
    if (!m.breaks.empty()) {
      out += "# sizes the model refuses\n";
      for (const std::string& b : m.breaks) out += wrap_columns("  " + escape_text(b), "    ");
    }
    out += predictions_text(r, m);
    for (const std::string& n : m.notes) out += wrap_columns("note: " + escape_text(n), "  ");
  }
  return out;
}

namespace {

std::string html_row(const std::vector<std::string>& cells, const char* tag) {
  std::string row = "<tr>";
  for (const std::string& c : cells) row += fmt::format("<{0}>{1}</{0}>", tag, html_escape(c));
  return row + "</tr>\n";
}

std::string html_list(const std::vector<std::string>& items) {
  std::string out = "<ul>\n";
  for (const std::string& i : items) out += "<li>" + html_escape(i) + "</li>\n";
  return out + "</ul>\n";
}

}  // namespace

std::string model_figures_html(const ModelResult& r, const CollectiveModel& m) {
  std::string out = fmt::format("<p>{}</p>\n", html_escape(header_line(m)));
  if (!r.link_source.empty()) out += fmt::format("<p>{}</p>\n", html_escape(link_line(r)));
  if (const std::string w = link_rate_warning(r); !w.empty()) {
    out += fmt::format("<p><b>warning:</b> {}</p>\n", html_escape(w));
  }
  out += html_list(parameter_lines(r, m));
  out += "<div class=\"wide\"><table class=\"points\">\n";
  out += html_row(
      {"p", "size", "measured us", "model us", "resid", "busbw GB/s", "of bound", "of link", "refused because"}, "th");
  for (const FittedPoint& p : m.points) {
    out += html_row({std::to_string(p.nranks), size_text(p.bytes), us_text(p.measured_s), us_text(p.model_s),
                     signed_pct(p.residual), gbps_text(p.busbw_gbps), pct_text(p.busbw_gbps / p.bound_gbps),
                     pct_text(p.busbw_gbps / p.link_bound_gbps), p.cause},
                    "td");
  }
  out += "</table></div>\n<p>Delivered at the largest size the fit holds:</p>\n" + html_list(delivered_lines(m));
  if (!m.breaks.empty()) out += "<p>Sizes the model refuses:</p>\n" + html_list(m.breaks);
  if (!m.predictions.empty()) {
    out += fmt::format("<p>Predicted time per operation, us [{} interval from the fitted parameters]:</p>\n",
                       percent_text(r.confidence * 100, 0));
    out += "<div class=\"wide\"><table class=\"predictions\">\n";
    out += html_row({"p", "size", "algorithm", "time us [interval]", "busbw GB/s", "wins"}, "th");
    for (const PredictedCase& k : m.predictions) {
      for (const AlgorithmTime& t : k.times) {
        const bool wins = t.algorithm == k.winner;
        out += html_row({std::to_string(k.nranks), size_text(k.bytes), std::string(name(t.algorithm)),
                         prediction_cell(t), gbps_text(t.busbw_gbps), wins ? (k.close ? "wins (close)" : "wins") : ""},
                        "td");
      }
    }
    out += "</table></div>\n";
  }
  if (!m.notes.empty()) out += "<p>Notes:</p>\n" + html_list(m.notes);
  return out;
}

std::string model_markdown(const ModelResult& r) {
  std::string out;
  for (const CollectiveModel& m : r.models) {
    out += fmt::format("## distbench model: {}\n\n", markdown_text(header_line(m)));
    out += fmt::format("T(p, S) = `{}`\n\n", formula_text(m.collective, m.algorithm));
    if (!r.link_source.empty()) out += markdown_text(link_line(r)) + "\n\n";
    for (const std::string& line : parameter_lines(r, m)) out += "- " + markdown_text(line) + "\n";
    out += "\n| p | size | measured us | model us | resid | busbw GB/s | of bound | of link | refused because |\n";
    out += "|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
    for (const FittedPoint& p : m.points) {
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", p.nranks, size_text(p.bytes),
                         us_text(p.measured_s), us_text(p.model_s), signed_pct(p.residual), gbps_text(p.busbw_gbps),
                         pct_text(p.busbw_gbps / p.bound_gbps), pct_text(p.busbw_gbps / p.link_bound_gbps),
                         markdown_text(p.cause));
    }
    out += "\nDelivered at the largest size the fit holds:\n\n";
    for (const std::string& line : delivered_lines(m)) out += "- " + markdown_text(line) + "\n";
    if (!m.breaks.empty()) {
      out += "\nSizes the model refuses:\n\n";
      for (const std::string& b : m.breaks) out += "- " + markdown_text(b) + "\n";
    }
    if (!m.predictions.empty()) {
      out += fmt::format("\nPredicted time per operation, us [{} interval]:\n\n| p | size |",
                         percent_text(r.confidence * 100, 0));
      for (const AlgorithmTime& t : m.predictions.front().times) out += fmt::format(" {} |", name(t.algorithm));
      out += " busbw GB/s | wins |\n|---:|---:|";
      for (std::size_t i = 0; i < m.predictions.front().times.size(); ++i) out += "---:|";
      out += "---:|---|\n";
      for (const PredictedCase& k : m.predictions) {
        out += fmt::format("| {} | {} |", k.nranks, size_text(k.bytes));
        for (const AlgorithmTime& t : k.times) out += fmt::format(" {} |", prediction_cell(t));
        out += fmt::format(" {} | {}{} |\n", gbps_text(k.times.front().busbw_gbps), name(k.winner),
                           k.close ? " (close)" : "");
      }
    }
    if (!m.notes.empty()) out += "\n";
    for (const std::string& n : m.notes) out += "Note: " + markdown_text(n) + "\n\n";
    out += "\n";
  }
  return out;
}

namespace {

json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json estimate_json(const Estimate& e, double unit) {
  return {{"value", number(e.value * unit)},
          {"low", number(e.low * unit)},
          {"high", number(e.high * unit)},
          {"fitted", e.fitted}};
}

json point_json(const FittedPoint& p) {
  return {{"nranks", p.nranks},
          {"bytes", p.bytes},
          {"measured_us", number(p.measured_s * 1e6)},
          {"model_us", number(p.model_s * 1e6)},
          {"residual_pct", number(p.residual * 100)},
          {"weight", p.weight},
          {"refused", p.refused},
          {"cause", p.cause.empty() ? json(nullptr) : json(p.cause)},
          {"busbw_gbps", number(p.busbw_gbps)},
          {"bound_gbps", number(p.bound_gbps)},
          {"link_bound_gbps", number(p.link_bound_gbps)},
          {"of_bound_pct", number(p.busbw_gbps / p.bound_gbps * 100)},
          {"of_link_pct", number(p.busbw_gbps / p.link_bound_gbps * 100)}};
}

json prediction_json(const PredictedCase& k) {
  json times = json::array();
  for (const AlgorithmTime& t : k.times) {
    times.push_back({{"algorithm", name(t.algorithm)},
                     {"time_us", number(t.seconds * 1e6)},
                     {"low_us", number(t.low * 1e6)},
                     {"high_us", number(t.high * 1e6)},
                     {"busbw_gbps", number(t.busbw_gbps)},
                     {"busbw_low_gbps", number(t.busbw_low)},
                     {"busbw_high_gbps", number(t.busbw_high)}});
  }
  return {{"nranks", k.nranks}, {"bytes", k.bytes}, {"winner", name(k.winner)}, {"close", k.close}, {"times", times}};
}

json collective_model_json(const CollectiveModel& m) {
  json j;
  j["collective"] = name(m.collective);
  j["algorithm"] = name(m.algorithm);
  j["algorithm_source"] = m.algorithm_source;
  j["backend"] = m.backend;
  j["formula"] = formula_text(m.collective, m.algorithm);
  j["ranks"] = m.ranks;
  j["alpha_us"] = estimate_json(m.alpha, 1e6);
  j["beta_ns_per_kib"] = estimate_json(m.beta, 1e9 * 1024);
  j["gamma_ns_per_kib"] = estimate_json(m.gamma, 1e9 * 1024);
  const Rate b = rate_of(m.beta);
  j["bandwidth_gbps"] = {{"value", number(b.value)}, {"low", number(b.low)}, {"high", number(b.high)}};
  j["residual_scale_pct"] = m.scale * 100;
  j["points_held"] = m.used;
  j["points"] = json::array();
  for (const FittedPoint& p : m.points) j["points"].push_back(point_json(p));
  j["delivered"] = delivered_lines(m);
  j["breaks"] = m.breaks;
  j["predictions"] = json::array();
  for (const PredictedCase& k : m.predictions) j["predictions"].push_back(prediction_json(k));
  j["notes"] = m.notes;
  return j;
}

}  // namespace

std::string model_json(const ModelResult& r) {
  json out;
  out["model_schema_version"] = kModelSchemaVersion;
  out["tool"] = {{"name", "distbench"}, {"version", kVersion}, {"git_sha", kGitSha}};
  out["sources"] = r.sources;
  out["link_gbps"] = r.link_gbps > 0 ? json(r.link_gbps) : json(nullptr);
  if (!r.link_source.empty()) out["link_source"] = r.link_source;  // absent: the reports say nothing of it
  out["confidence"] = r.confidence;
  out["models"] = json::array();
  for (const CollectiveModel& m : r.models) out["models"].push_back(collective_model_json(m));
  return out.dump(2) + "\n";
}

std::string model_csv(const ModelResult& r) {
  std::string out =
      "record,collective,algorithm,nranks,bytes,time_us,model_us,low_us,high_us,residual_pct,refused,busbw_gbps,"
      "of_bound_pct,of_link_pct,winner,cause\n";
  const auto num = [](double v) { return std::isfinite(v) ? fmt::format("{:.6g}", v) : std::string(); };
  const auto quoted = [](const std::string& s) {
    std::string q = "\"";
    for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
  };
  for (const CollectiveModel& m : r.models) {
    for (const FittedPoint& p : m.points) {
      out += fmt::format("measured,{},{},{},{:.0f},{},{},,,{},{},{},{},{},,{}\n", name(m.collective), name(m.algorithm),
                         p.nranks, p.bytes, num(p.measured_s * 1e6), num(p.model_s * 1e6), num(p.residual * 100),
                         p.refused ? 1 : 0, num(p.busbw_gbps), num(p.busbw_gbps / p.bound_gbps * 100),
                         num(p.busbw_gbps / p.link_bound_gbps * 100), p.cause.empty() ? "" : quoted(p.cause));
    }
    for (const PredictedCase& k : m.predictions) {
      for (const AlgorithmTime& t : k.times) {
        out += fmt::format("predicted,{},{},{},{:.0f},,{},{},{},,,{},,,{},\n", name(m.collective), name(t.algorithm),
                           k.nranks, k.bytes, num(t.seconds * 1e6), num(t.low * 1e6), num(t.high * 1e6),
                           num(t.busbw_gbps), name(k.winner));
      }
    }
  }
  return out;
}

}  // namespace distbench::model
