// The HTML view of a report: one self-contained page (inline CSS, inline SVG plots; no script, nothing fetched).
#include "views/report_views.hpp"

#include "core/report/text.hpp"
#include "views/report_plots.hpp"
#include "views/report_tables.hpp"
#include "views/svg_plot.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string_view>

namespace distbench::views {
namespace {

constexpr std::string_view kStyle = R"(
body { font: 14px/1.45 system-ui, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #222; max-width: 1560px;
       margin: 24px auto; padding: 0 24px; }
.wide { overflow-x: auto; max-width: 100%; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; padding-bottom: 4px; border-bottom: 1px solid #ddd; }
.facts { color: #555; margin-top: 0; }
table { border-collapse: collapse; }
th, td { padding: 3px 10px; border-bottom: 1px solid #eee; text-align: left; vertical-align: top; }
table.results th { background: #f5f5f5; position: sticky; top: 0; }
table.results .num { text-align: right; font-variant-numeric: tabular-nums; }
table.results td { white-space: nowrap; }
table.results td.long { white-space: normal; min-width: 16em; }
table.results tr.reason td { white-space: normal; padding-left: 24px; font-size: 13px; }
table.kv td { overflow-wrap: anywhere; }
figure svg { max-width: 100%; height: auto; }
table.results tr.skipped td { color: #888; }
table.kv th { font-weight: 600; white-space: nowrap; }
code, pre { font: 13px ui-monospace, "DejaVu Sans Mono", monospace; background: #f4f4f4; border-radius: 3px; }
code { padding: 1px 4px; }
pre { padding: 8px; overflow-x: auto; }
.status { font-weight: 600; padding: 1px 8px; border-radius: 10px; background: #eee; }
.status-complete { background: #dff3e0; color: #1b5e20; }
.status-failed { background: #fde0dc; color: #b71c1c; }
.status-incomplete, .status-interrupted { background: #fff3cd; color: #7a5a00; }
ul.warnings { padding: 0; }
ul.warnings li { list-style: none; background: #fff8e1; border-left: 4px solid #f0b400; padding: 6px 10px;
                 margin: 6px 0; }
figure { display: inline-block; vertical-align: top; max-width: 100%; margin: 12px 20px 20px 0; }
figcaption { color: #555; font-size: 13px; max-width: 760px; }
details > summary { cursor: pointer; font-weight: 600; margin: 8px 0; }
)";

std::string esc(std::string_view text) { return html_escape(text); }

std::string shell_line(const std::vector<std::string>& argv) {
  std::string line;
  for (const std::string& arg : argv) {
    if (!line.empty()) line.push_back(' ');
    line += shell_quote(arg);
  }
  return line;
}

std::string status_badge(const std::string& status) {
  const bool known = status == "complete" || status == "failed" || status == "incomplete" || status == "interrupted";
  return fmt::format(R"(<span class="status{}">{}</span>)", known ? " status-" + status : "", esc(status));
}

// "vm: ranks 0, 1; node-b: rank 2", hosts in order of first appearance.
std::string hosts_text(const std::vector<RankInfo>& ranks) {
  std::vector<std::pair<std::string, std::vector<int>>> hosts;
  for (const RankInfo& r : ranks) {
    auto it = std::find_if(hosts.begin(), hosts.end(), [&](const auto& h) { return h.first == r.host; });
    if (it == hosts.end()) it = hosts.insert(hosts.end(), {r.host, {}});
    it->second.push_back(r.rank);
  }
  std::string text;
  for (const auto& [host, list] : hosts) {
    text += fmt::format("{}{}: {} {}", text.empty() ? "" : "; ", host, list.size() == 1 ? "rank" : "ranks",
                        fmt::join(list, ", "));
  }
  return text;
}

std::string kv_row(std::string_view key, const std::string& html_value) {
  return fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", esc(key), html_value);
}

std::string kv_table(const KeyValues& values) {
  std::string html = "<table class=\"kv\">\n";
  for (const auto& [key, value] : values) html += kv_row(key, esc(value));
  return html + "</table>\n";
}

std::string details(std::string_view title, const KeyValues& values) {
  if (values.empty()) return fmt::format("<p><b>{}:</b> none recorded</p>\n", esc(title));
  return fmt::format("<details><summary>{} ({})</summary>\n{}</details>\n", esc(title), values.size(),
                     kv_table(values));
}

std::string run_section(const ParsedReport& r) {
  const RunInfo& info = r.info;
  std::string html = "<h2>Run</h2>\n<table class=\"kv\">\n";
  html += kv_row("tool", esc("distbench " + info.tool_version));
  html += kv_row("git sha", fmt::format("<code>{}</code>", esc(info.git_sha)));
  html += kv_row("command", fmt::format("<code>{}</code>", esc(shell_line(info.argv))));
  html += kv_row("status", status_badge(info.status));
  if (!info.error.empty()) html += kv_row("error", esc(info.error));
  html += kv_row("benchmark", esc(r.benchmark == r.title ? r.title : r.title + " (" + r.benchmark + ")"));
  html += kv_row("backend", esc(info.backend));
  html += kv_row("world size", esc(std::to_string(info.world_size)));
  html += kv_row("hosts", esc(hosts_text(info.ranks)));
  html += kv_row("started", esc(info.start_time.empty() ? "-" : info.start_time));
  html += kv_row("ended", esc(info.end_time.empty() ? "-" : info.end_time));
  html += kv_row("schema version", esc(std::to_string(r.schema_version)));
  html += "</table>\n";
  html += details("Versions", info.versions);
  html += details("Environment variables", info.environment);
  html += fmt::format("<details><summary>Configuration</summary>\n<pre>{}</pre>\n</details>\n", esc(r.config.dump(2)));
  return html;
}

std::string warnings_section(const RunInfo& info) {
  if (info.warnings.empty()) return {};
  std::string html = "<h2>Warnings</h2>\n<ul class=\"warnings\">\n";
  for (const Warning& w : info.warnings) {
    html += fmt::format("<li><code>{}</code> {}</li>\n", esc(w.code), esc(w.message));
  }
  return html + "</ul>\n";
}

std::string summary_section(const ParsedReport& r) {
  const auto rows = summary_rows(r);
  if (rows.empty()) return {};
  std::string html = "<h2>Summary</h2>\n<table class=\"kv\">\n";
  for (const SummaryRow& row : rows) {
    html += fmt::format("<tr><th title=\"{}\">{}</th><td>{}</td></tr>\n", esc(row.key), esc(row.name), esc(row.value));
  }
  return html + "</table>\n";
}

std::string plots_section(const ParsedReport& r) {
  const std::vector<ReportPlot> plots = report_plots(r);
  if (plots.empty()) return {};
  std::string html = "<h2>Plots</h2>\n";
  for (const ReportPlot& p : plots) {
    html += fmt::format("<figure>\n{}\n<figcaption>{}</figcaption>\n</figure>\n", svg_line_plot(p.spec, p.series),
                        esc(p.caption));
  }
  return html;
}

std::string results_section(const ParsedReport& r) {
  const ResultsTable table = results_table(r);
  const auto cell_class = [&](std::size_t c) { return table.columns[c].numeric ? R"( class="num")" : ""; };
  std::string html = fmt::format("<h2>Results ({})</h2>\n<div class=\"wide\"><table class=\"results\">\n<thead><tr>",
                                 plural(table.rows.size(), "record", "records"));
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    html += fmt::format("<th{}>{}</th>", cell_class(c), esc(table.columns[c].title));
  }
  html += "</tr></thead>\n<tbody>\n";
  constexpr std::string_view kSkipped = "skipped: ";
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    html += r.records[i].ok() ? "<tr>" : R"(<tr class="skipped">)";
    std::string reason;  // a skip's reason: a row of its own under the record's, the whole table wide
    for (std::size_t c = 0; c < table.rows[i].size(); ++c) {
      std::string text = table.rows[i][c];
      if (c + 1 == table.rows[i].size() && !r.records[i].ok() && text.starts_with(kSkipped)) {
        reason = text;
        text = "skipped";
      }
      // a long text (a health limit or why) wraps; numbers and names such as out-of-place never do
      const bool long_text = !table.columns[c].numeric && text.size() > 24;
      html += fmt::format("<td{}>{}</td>", long_text ? R"( class="long")" : cell_class(c), esc(text));
    }
    html += "</tr>\n";
    if (!reason.empty()) {
      html += fmt::format(R"(<tr class="skipped reason"><td colspan="{}">{}</td></tr>)"
                          "\n",
                          table.columns.size(), esc(reason));
    }
  }
  return html + "</tbody>\n</table></div>\n";
}

}  // namespace

std::string report_html(const ParsedReport& r) {
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  html += fmt::format("<title>distbench {}</title>\n<style>{}</style>\n</head>\n<body>\n", esc(r.title), kStyle);
  html += fmt::format("<h1>distbench {}</h1>\n<p class=\"facts\">{}</p>\n", esc(r.title), esc(run_facts(r)));
  html += run_section(r);
  html += warnings_section(r.info);
  html += summary_section(r);
  html += plots_section(r);
  html += results_section(r);
  return html + "</body>\n</html>\n";
}

}  // namespace distbench::views
