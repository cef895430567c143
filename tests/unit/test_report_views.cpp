// Views of the example reports next to SCHEMA.md: Markdown, CSV and HTML (and the plots the page shows).
#include "views/report_views.hpp"

#include "core/report/csv_reporter.hpp"
#include "core/sys/quote.hpp"
#include "views/report_plots.hpp"
#include "views/report_tables.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <utility>

namespace distbench::views {
namespace {

namespace fs = std::filesystem;

ParsedReport example(const char* name) {
  const char* root = std::getenv("DISTBENCH_SOURCE_ROOT");
  if (root == nullptr) throw std::runtime_error("DISTBENCH_SOURCE_ROOT is not set: run under meson test");
  std::ifstream in(fs::path(root) / "reports" / name);
  std::stringstream text;
  text << in.rdbuf();
  return parse_report(text.str());
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::size_t count_of(const std::string& text, std::string_view needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

std::vector<std::string> table_lines(const std::string& md) {
  std::vector<std::string> out;
  for (const std::string& line : lines(md)) {
    if (line.rfind("| ", 0) == 0) out.push_back(line);
  }
  return out;
}

TEST(ReportViews, MarkdownHasARowPerRecord) {
  const ParsedReport r = example("example.json");
  const std::string md = report_markdown(r);
  const auto all = lines(md);
  ASSERT_GE(all.size(), 3u);
  EXPECT_EQ(all[0], "## distbench allreduce");
  // Facts that change whenever the example is regenerated are read from the report itself.
  const std::string facts =
      fmt::format("distbench 0.1.0 (git {}) · allreduce (collective) · backend mpi · 2 ranks", r.info.git_sha);
  EXPECT_EQ(all[2].rfind(facts, 0), 0u) << all[2];
  const auto table = table_lines(md);
  ASSERT_EQ(table.size(), 2 + r.records.size());
  // The varying parameters (placement, bytes, count), then every metric with its unit, then the status.
  // (a key's '_' escaped: it reads as text, not emphasis)
  EXPECT_EQ(table[0],
            "| placement | bytes | count | time\\_us (us) | algbw\\_gbps (GB/s) | busbw\\_gbps (GB/s) | "
            "wrong (elements) | faults\\_per\\_op (1/op) | switches\\_per\\_op (1/op) | status |");
  EXPECT_EQ(table[1], "| :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | :--- |");
  EXPECT_EQ(table[2].rfind("| out-of-place | 8 | 2 | 0.", 0), 0u) << table[2];
  for (std::size_t i = 2; i < table.size(); ++i) EXPECT_EQ(table[i].substr(table[i].size() - 5), " ok |");
  const std::string summary = fmt::format("**avg\\_busbw\\_gbps:** {:.2f} · **wrong:** 0 · **Status:** complete",
                                          r.summary["avg_busbw_gbps"].get<double>());
  EXPECT_NE(md.find(summary), std::string::npos) << summary;
  for (const Warning& w : r.info.warnings) {
    EXPECT_NE(md.find(fmt::format("- **warning ({}):** ", markdown_text(w.code))), std::string::npos) << w.code;
  }
}

TEST(ReportViews, MarkdownEscapesReportText) {
  ParsedReport r = example("example.json");
  r.title = "a|b";
  r.records[0].set("placement", std::string("in|<place>"));
  r.info.warnings.push_back({"odd", "line one\nline two <b>"});
  const std::string md = report_markdown(r);
  EXPECT_EQ(lines(md)[0], "## distbench a\\|b");
  EXPECT_NE(md.find("| in\\|&lt;place&gt; |"), std::string::npos);
  EXPECT_NE(md.find("- **warning (odd):** line one line two &lt;b&gt;\n"), std::string::npos);
  // Every table line still has one cell per column.
  for (const std::string& line : table_lines(md)) {
    std::size_t bars = 0;
    for (std::size_t i = 0; i < line.size(); ++i) bars += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
    EXPECT_EQ(bars, 11u) << line;
  }
}

// A report's strings keep no link, image, emphasis or inline code live, wherever the view shows them.
TEST(ReportViews, MarkdownKeepsLinksAndEmphasisInert) {
  ParsedReport r = example("example.json");
  r.title = "[click](javascript:alert(1))";
  r.records[0].set("placement", std::string("**bold** `code`"));
  r.info.warnings.push_back({"_odd_", "see ![x](http://e/x.png) ~~gone~~"});
  r.info.status = "*done*";
  const std::string md = report_markdown(r);
  EXPECT_EQ(lines(md)[0], "## distbench \\[click\\](javascript:alert(1))");
  EXPECT_NE(md.find("| \\*\\*bold\\*\\* \\`code\\` |"), std::string::npos) << md;
  const std::string warning = "- **warning (\\_odd\\_):** see !\\[x\\](http://e/x.png) \\~\\~gone\\~\\~\n";
  EXPECT_NE(md.find(warning), std::string::npos) << md;
  EXPECT_NE(md.find("**Status:** \\*done\\*\n"), std::string::npos) << md;
}

TEST(ReportViews, SkippedRecordsSayWhy) {
  ParsedReport r = example("example.json");
  Record& skipped = r.records[1];
  skipped.status = "skipped";
  skipped.skip_reason = "not supported";
  skipped.metrics.clear();
  skipped.phases.clear();
  const auto table = table_lines(report_markdown(r));
  EXPECT_NE(table[3].find("|  |  | skipped: not supported |"), std::string::npos) << table[3];
  // the page: the reason on a row of its own, the table wide, so that the record's row stays one line
  const std::string html = report_html(r);
  EXPECT_NE(html.find("<td>skipped</td></tr>\n<tr class=\"skipped reason\"><td colspan=\""), std::string::npos);
  EXPECT_NE(html.find(">skipped: not supported</td></tr>"), std::string::npos);
  for (const ReportPlot& p : report_plots(r)) {
    std::size_t points = 0;
    for (const PlotSeries& s : p.series) points += s.x.size();
    EXPECT_EQ(points, r.records.size() - 1);
  }
}

TEST(ReportViews, CsvHasTheHeaderAndALinePerRecord) {
  const ParsedReport r = example("example.json");
  const auto all = lines(report_csv(r));
  ASSERT_EQ(all.size(), 1 + r.records.size());
  EXPECT_EQ(all[0] + "\n", csv_header(r.layout));
  EXPECT_EQ(all[0].rfind("collective,backend,dtype,op,placement,root,bytes,count,", 0), 0u);
  for (std::size_t i = 0; i < r.records.size(); ++i) EXPECT_EQ(all[i + 1] + "\n", csv_line(r.layout, r.records[i]));
}

// A page fits a 1000 px window: no fixed width (CSS or an element's) above 1000 px but the body's max-width, and
// every wide table in a box of its own that scrolls instead of the page.
void expect_fits_1000_px(const std::string& html) {
  const std::regex fixed(R"(([a-z-]*)width(:\s*|=")(\d+)(px)?)");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), fixed); it != std::sregex_iterator(); ++it) {
    if ((*it)[1] == "max-") continue;
    EXPECT_LE(std::stoi((*it)[3]), 1000) << it->str();
  }
  EXPECT_EQ(count_of(html, "<table class=\"results\">"), count_of(html, "<div class=\"wide\"><table"));
}

TEST(ReportViews, HtmlIsASelfContainedPageWithPlots) {
  const ParsedReport r = example("example.json");
  const std::string html = report_html(r);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("</html>"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));  // only the SVG namespace, never fetched
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(count_of(html, "<svg"), 2u);                   // busbw and time against the size
  EXPECT_EQ(count_of(html, "<polyline"), 4u);              // a line per placement in each
  EXPECT_EQ(count_of(html, "<polygon"), 2u);               // the ranks' spread around each time line
  EXPECT_EQ(count_of(html, "<tr><td"), r.records.size());  // the results table, no row skipped
  std::vector<std::string> texts = {r.info.git_sha,
                                    "<code>distbench allreduce -b 8 -e 1M -f 8 -n 10 --json example.json",
                                    fmt::format("{}: ranks 0, 1", r.info.ranks.at(0).host),
                                    "Open MPI",
                                    "status-complete",
                                    "avg_busbw_gbps",
                                    ">out-of-place</text>",
                                    "busbw_gbps (GB/s)"};
  if (!r.info.environment.empty()) texts.push_back(r.info.environment.front().first);
  for (const Warning& w : r.info.warnings) texts.push_back(w.code);
  for (const std::string& text : texts) EXPECT_NE(html.find(text), std::string::npos) << text;
  // the summary in words, its key kept as the name's tooltip
  EXPECT_NE(html.find("<th title=\"avg_busbw_gbps\">average bus bandwidth</th>"), std::string::npos) << html;
  EXPECT_NE(html.find("<th title=\"noise_missed\">noise target missed</th>"), std::string::npos) << html;
  EXPECT_NE(html.find(">out-of-place</td>"), std::string::npos);  // a name on one line: no class "long"
  expect_fits_1000_px(html);
}

TEST(ReportViews, SummaryNamesAreWords) {
  ParsedReport r = example("example.json");
  r.summary["avg_busbw_gbps.float32.sum"] = 1.25;
  r.summary["status"] = 0;
  r.summary_items.push_back({"status", "Health", 0, "healthy (1 healthy; 1 node)"});
  std::map<std::string, std::pair<std::string, std::string>> named;
  for (const SummaryRow& row : summary_rows(r)) named[row.key] = {row.name, row.value};
  EXPECT_EQ(named["avg_busbw_gbps.float32.sum"],
            std::make_pair(std::string("average bus bandwidth, float32 sum"), std::string("1.25 GB/s")));
  EXPECT_EQ(named["status"], std::make_pair(std::string("Health"), std::string("healthy (1 healthy; 1 node)")));
  EXPECT_EQ(named["wrong"].first, "wrong elements");
}

TEST(ReportViews, HtmlEscapesReportText) {
  ParsedReport r = example("example.json");
  r.title = "<script>alert(1)</script>";
  r.info.argv.push_back("--x=<img src=x onerror=alert(1)>");
  r.info.environment.push_back({"NCCL_<b>", "\"quoted\" & more"});
  r.records[0].set("placement", std::string("<i>odd</i>"));
  const std::string html = report_html(r);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<b>"), std::string::npos);
  EXPECT_EQ(html.find("<i>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("&#39;--x=&lt;img src=x onerror=alert(1)&gt;&#39;"), std::string::npos);  // shell-quoted too
  EXPECT_NE(html.find("&quot;quoted&quot; &amp; more"), std::string::npos);
}

// A right-to-left override (or another code point that acts unseen) in a report shows as an escape in the page, so a
// case cannot read backwards.
TEST(ReportViews, HtmlShowsBidiControlsAsEscapes) {
  ParsedReport r = example("example.json");
  r.title = "allreduce \u202egnp.exe";
  r.records[0].set("placement", std::string("in\u2066-place\u2069\u200b"));
  const std::string html = report_html(r);
  for (const char* hidden : {"\u202e", "\u2066", "\u2069", "\u200b"}) EXPECT_EQ(html.find(hidden), std::string::npos);
  EXPECT_NE(html.find("allreduce \\u202egnp.exe"), std::string::npos);
  EXPECT_NE(html.find("in\\u2066-place\\u2069\\u200b"), std::string::npos);
}

TEST(ReportViews, LatencyPlotsTheOneWayTime) {
  const ParsedReport r = example("latency-example.json");
  const auto plots = report_plots(r);
  ASSERT_EQ(plots.size(), 1u);
  EXPECT_EQ(plots[0].spec.y_label, "latency_us (us)");
  ASSERT_EQ(plots[0].series.size(), 1u);
  EXPECT_EQ(plots[0].series[0].label, "latency");
  EXPECT_EQ(plots[0].series[0].x.size(), r.records.size());
  EXPECT_EQ(plots[0].series[0].y_low.size(), r.records.size());
  EXPECT_TRUE(plots[0].series[0].marked.empty());  // nothing was wrong
  const std::string html = report_html(r);
  EXPECT_EQ(count_of(html, "<svg"), 1u);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(table_lines(report_markdown(r)).size(), 2 + r.records.size());
}

TEST(ReportViews, CollectiveSeriesPerVaryingParameterSortedBySize) {
  const ParsedReport r = example("example.json");
  const auto plots = report_plots(r);
  ASSERT_EQ(plots.size(), 2u);
  EXPECT_EQ(plots[0].spec.y_label, "busbw_gbps (GB/s)");
  EXPECT_EQ(plots[1].spec.y_label, "time_us (us)");
  ASSERT_EQ(plots[0].series.size(), 2u);
  EXPECT_EQ(plots[0].series[0].label, "out-of-place");
  EXPECT_EQ(plots[0].series[1].label, "in-place");
  EXPECT_TRUE(plots[0].series[0].y_low.empty());  // no band on bandwidth
  for (const PlotSeries& s : plots[1].series) {
    ASSERT_EQ(s.x.size(), 6u);
    EXPECT_TRUE(std::is_sorted(s.x.begin(), s.x.end()));
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      EXPECT_LE(s.y_low[i], s.y[i] * (1 + 1e-12));
      EXPECT_GE(s.y_high[i], s.y[i] * (1 - 1e-12));
    }
  }
}

TEST(ReportViews, WrongResultsAreMarked) {
  ParsedReport r = example("example.json");
  r.records[2].set_metric("wrong", 5);
  const auto plots = report_plots(r);
  const PlotSeries& s = plots[0].series[0];  // out-of-place: records 0, 2, 4, ...
  ASSERT_EQ(s.marked.size(), s.x.size());
  EXPECT_EQ(std::count(s.marked.begin(), s.marked.end(), true), 1);
  EXPECT_NE(plots[0].caption.find("Red rings: records with wrong results."), std::string::npos);
}

TEST(ReportViews, OtherBenchmarksPlotTheirFirstMetricOnlyWithASize) {
  ParsedReport r;
  r.benchmark = r.title = "custom";
  r.layout.params = {"bytes", "mode"};
  r.layout.metrics = {{"rate", "1/s", "operations per second"}, {"other", "1", ""}};
  for (int i = 0; i < 4; ++i) {
    Record rec;
    rec.kind = "custom";
    rec.set("bytes", std::int64_t{8} << i).set("mode", std::string(i % 2 ? "a" : "b")).set_metric("rate", i);
    r.records.push_back(rec);
  }
  auto plots = report_plots(r);
  ASSERT_EQ(plots.size(), 1u);
  EXPECT_EQ(plots[0].spec.y_label, "rate (1/s)");
  EXPECT_FALSE(plots[0].spec.log_y);  // a zero: linear
  EXPECT_EQ(plots[0].series.size(), 2u);
  EXPECT_EQ(count_of(report_html(r), "<svg"), 1u);

  r.layout.params = {"mode"};
  for (Record& rec : r.records) rec.params.erase(rec.params.begin());
  EXPECT_TRUE(report_plots(r).empty());
  EXPECT_EQ(count_of(report_html(r), "<svg"), 0u);
}

}  // namespace
}  // namespace distbench::views
