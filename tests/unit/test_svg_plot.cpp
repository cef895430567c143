// The SVG line plot: well-formed markup, one polyline per drawable series, skipped points, escaping, bands, marks,
// and the empty plot.
#include "views/svg_plot.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace distbench::views {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::size_t count(const std::string& text, std::string_view needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

// Every tag closed in order, every attribute value quoted, every '&' an entity, no '<' or '>' in text.
::testing::AssertionResult well_formed(const std::string& svg) {
  std::vector<std::string> open;
  std::size_t i = 0;
  while (i < svg.size()) {
    if (svg[i] == '&') {
      const auto end = svg.find(';', i);
      const std::string entity = svg.substr(i, end == std::string::npos ? 8 : end - i + 1);
      if (entity != "&amp;" && entity != "&lt;" && entity != "&gt;" && entity != "&quot;" && entity != "&#39;") {
        return ::testing::AssertionFailure() << "bare '&' at " << i << ": " << svg.substr(i, 20);
      }
    }
    if (svg[i] == '>') return ::testing::AssertionFailure() << "'>' outside a tag at " << i;
    if (svg[i] != '<') {
      ++i;
      continue;
    }
    std::size_t end = i + 1;
    bool quoted = false;
    while (end < svg.size() && (quoted || svg[end] != '>')) {
      if (svg[end] == '"') quoted = !quoted;
      if (!quoted && svg[end] == '<') return ::testing::AssertionFailure() << "'<' inside a tag at " << end;
      ++end;
    }
    if (end == svg.size()) return ::testing::AssertionFailure() << "unterminated tag at " << i;
    const std::string tag = svg.substr(i + 1, end - i - 1);
    const bool closing = tag.front() == '/';
    const std::string name = tag.substr(closing ? 1 : 0, tag.find_first_of(" />", closing ? 1 : 0) - (closing ? 1 : 0));
    if (closing) {
      if (open.empty() || open.back() != name) {
        return ::testing::AssertionFailure() << "</" << name << "> closes " << (open.empty() ? "nothing" : open.back());
      }
      open.pop_back();
    } else if (tag.back() != '/') {
      open.push_back(name);
    }
    i = end + 1;
  }
  if (!open.empty()) return ::testing::AssertionFailure() << "<" << open.back() << "> never closed";
  return ::testing::AssertionSuccess();
}

// The number of points of each polyline, in order.
std::vector<std::size_t> polyline_sizes(const std::string& svg) {
  std::vector<std::size_t> sizes;
  constexpr std::string_view kOpen = "<polyline points=\"";
  for (auto at = svg.find(kOpen); at != std::string::npos; at = svg.find(kOpen, at + 1)) {
    const auto begin = at + kOpen.size();
    const std::string points = svg.substr(begin, svg.find('"', begin) - begin);
    sizes.push_back(count(points, ","));
  }
  return sizes;
}

PlotSeries series(std::string label, std::vector<double> x, std::vector<double> y) {
  PlotSeries s;
  s.label = std::move(label);
  s.x = std::move(x);
  s.y = std::move(y);
  return s;
}

TEST(SvgPlot, OnePolylinePerDrawableSeries) {
  const std::vector<PlotSeries> all = {
      series("a", {8, 64, 512}, {1, 2, 3}),
      series("b", {8, 64, 512}, {2, 3, 4}),
      series("nothing on a log axis", {8, 64}, {0, -1}),
  };
  const std::string svg = svg_line_plot(PlotSpec{}, all);
  EXPECT_TRUE(well_formed(svg));
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_EQ(svg.substr(svg.size() - 6), "</svg>");
  EXPECT_EQ(polyline_sizes(svg), (std::vector<std::size_t>{3, 3}));
  // a circle per point, and one per series in the legend
  EXPECT_EQ(count(svg, "<circle"), 6u + 2u);
  EXPECT_NE(svg.find(">a</text>"), std::string::npos);
  EXPECT_NE(svg.find(">b</text>"), std::string::npos);
  EXPECT_EQ(svg.find("nothing on a log axis"), std::string::npos);  // not in the legend either
  EXPECT_EQ(svg.find("no data"), std::string::npos);
}

TEST(SvgPlot, DistinctColoursPerSeries) {
  const std::string svg = svg_line_plot(PlotSpec{}, {series("a", {1, 2}, {1, 2}), series("b", {1, 2}, {2, 3})});
  EXPECT_NE(svg.find("stroke=\"#1f77b4\" stroke-width=\"2\"/>"), std::string::npos);
  EXPECT_NE(svg.find("stroke=\"#ff7f0e\" stroke-width=\"2\"/>"), std::string::npos);
}

TEST(SvgPlot, SkipsNonPositivePointsOnLogAxesAndNonFiniteEverywhere) {
  const auto s = series("s", {8, 16, 32, 64, 128}, {1, 0, -2, kNaN, 4});
  EXPECT_EQ(polyline_sizes(svg_line_plot(PlotSpec{}, {s})), (std::vector<std::size_t>{2}));
  PlotSpec linear;
  linear.log_y = false;
  EXPECT_EQ(polyline_sizes(svg_line_plot(linear, {s})), (std::vector<std::size_t>{4}));
  const auto bad_x = series("s", {0, -8, INFINITY, 8}, {1, 1, 1, 1});
  EXPECT_EQ(polyline_sizes(svg_line_plot(PlotSpec{}, {bad_x})), (std::vector<std::size_t>{1}));
}

TEST(SvgPlot, AxesHaveTicksLabelsAndGrid) {
  PlotSpec spec;
  spec.title = "allreduce";
  spec.x_label = "size (bytes)";
  spec.y_label = "busbw_gbps (GB/s)";
  const std::string svg = svg_line_plot(spec, {series("s", {8, 1024, 1 << 20}, {0.01, 1, 5})});
  EXPECT_TRUE(well_formed(svg));
  for (const char* text : {">allreduce</text>", ">size (bytes)</text>", ">busbw_gbps (GB/s)</text>", ">1 KiB</text>",
                           ">1 MiB</text>", ">0.01</text>", ">1</text>"}) {
    EXPECT_NE(svg.find(text), std::string::npos) << text;
  }
  EXPECT_GE(count(svg, "stroke=\"#e3e3e3\""), 9u + 3u);  // grid lines on both axes
}

TEST(SvgPlot, NumberAxisWhenNotBytes) {
  PlotSpec spec;
  spec.x_bytes = false;
  spec.log_x = false;
  const std::string svg = svg_line_plot(spec, {series("s", {0, 5, 10}, {1, 10, 100})});
  EXPECT_NE(svg.find(">10</text>"), std::string::npos);
  EXPECT_EQ(svg.find(" B</text>"), std::string::npos);
}

TEST(SvgPlot, EscapesEveryText) {
  PlotSpec spec;
  spec.title = "<script>alert('x')</script>";
  spec.x_label = "a & b";
  spec.y_label = "\"y\"";
  const std::string svg = svg_line_plot(spec, {series("<b>&</b>", {1, 2}, {1, 2})});
  EXPECT_TRUE(well_formed(svg));
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_EQ(svg.find("<b>"), std::string::npos);
  EXPECT_NE(svg.find("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(svg.find("a &amp; b"), std::string::npos);
  EXPECT_NE(svg.find("&quot;y&quot;"), std::string::npos);
  EXPECT_NE(svg.find("&lt;b&gt;&amp;&lt;/b&gt;"), std::string::npos);
  EXPECT_EQ(html_escape("<&>\"'x"), "&lt;&amp;&gt;&quot;&#39;x");
}

TEST(SvgPlot, BandMarksAndDashes) {
  auto s = series("s", {8, 64, 512}, {2, 3, 4});
  s.y_low = {1.5, 2.5, 3.5};
  s.y_high = {2.5, 3.5, 4.5};
  s.marked = {false, true, false};
  s.dashed = true;
  PlotSpec spec;
  spec.mark_label = "regression";
  const std::string svg = svg_line_plot(spec, {s});
  EXPECT_TRUE(well_formed(svg));
  EXPECT_EQ(count(svg, "<polygon"), 1u);
  EXPECT_NE(svg.find("fill-opacity=\"0.25\" stroke=\"#1f77b4\""), std::string::npos);  // outlined: a thin band shows
  EXPECT_EQ(count(svg, "stroke=\"#d62728\""), 1u + 1u);  // the marked point and its legend entry
  EXPECT_NE(svg.find(">regression</text>"), std::string::npos);
  EXPECT_EQ(count(svg, "stroke-dasharray"), 2u);  // the line and its legend entry
}

// An interval far wider than the points' spread (compare's [+119.5%, +4333.6%]) is clipped at the plot's edge and
// marked there, so that the points keep the plot's height; the picture shrinks to a narrow page.
TEST(SvgPlot, ABandFarBeyondThePointsIsClippedAndMarked) {
  auto s = series("s", {8, 64, 512}, {1.1, 1.2, 1.3});
  s.y_low = {1.0, -1.0, 1.2};
  s.y_high = {1.2, 44.0, 1.4};
  PlotSpec spec;
  spec.log_y = false;
  const std::string svg = svg_line_plot(spec, {s});
  EXPECT_TRUE(well_formed(svg));
  EXPECT_NE(svg.find("style=\"max-width: 100%; height: auto\""), std::string::npos);
  EXPECT_EQ(count(svg, "class=\"clipped\""), 2u);  // both ends of the middle interval
  EXPECT_NE(svg.find("upper end beyond the plot: 44"), std::string::npos);
  // the points spread over a good part of the plot's 352 px, and every band corner lies inside its box (16..368)
  std::vector<double> ys;
  const auto at = svg.find("<polyline points=\"") + 18;
  std::string points = svg.substr(at, svg.find('"', at) - at);
  for (auto comma = points.find(','); comma != std::string::npos; comma = points.find(',', comma + 1)) {
    ys.push_back(std::stod(points.substr(comma + 1)));
  }
  ASSERT_EQ(ys.size(), 3u);
  EXPECT_GT(ys.front() - ys.back(), 0.25 * 352) << points;
  const auto band_at = svg.find("<polygon points=\"") + 17;
  points = svg.substr(band_at, svg.find('"', band_at) - band_at);
  for (auto comma = points.find(','); comma != std::string::npos; comma = points.find(',', comma + 1)) {
    const double y = std::stod(points.substr(comma + 1));
    EXPECT_GE(y, 16.0) << points;
    EXPECT_LE(y, 368.0) << points;
  }
}

TEST(SvgPlot, NoBandOrMarksWhenLengthsDoNotMatch) {
  auto s = series("s", {8, 64, 512}, {2, 3, 4});
  s.y_low = {1};
  s.y_high = {5};
  s.marked = {true};
  const std::string svg = svg_line_plot(PlotSpec{}, {s});
  EXPECT_EQ(count(svg, "<polygon"), 0u);
  EXPECT_EQ(count(svg, "#d62728"), 0u);
  EXPECT_EQ(svg.find(">marked</text>"), std::string::npos);
}

TEST(SvgPlot, TrendMarksOnlyWhenAsked) {
  const auto s = series("s", {1, 2, 3, 4, 5, 6}, {10, 10, 10, 12, 12, 12});
  PlotSpec spec;
  spec.log_x = spec.log_y = spec.x_bytes = false;
  EXPECT_EQ(count(svg_line_plot(spec, {s}), "class=\"x-line\""), 0u);
  spec.x_lines = {3.5, kNaN};
  spec.shade_from = 4;
  spec.shade_to = 6;
  spec.levels = {{1, 3, 10}, {4, 6, 12}};
  const std::string svg = svg_line_plot(spec, {s});
  EXPECT_TRUE(well_formed(svg));
  EXPECT_EQ(count(svg, "class=\"x-line\""), 1u);
  EXPECT_EQ(count(svg, "class=\"shade\""), 1u);
  EXPECT_EQ(count(svg, "class=\"level\""), 2u);
  EXPECT_LT(svg.find("class=\"shade\""), svg.find("<polyline"));  // under the series
}

TEST(SvgPlot, EmptyPlotSaysNoData) {
  PlotSpec spec;
  spec.title = "nothing";
  for (const auto& all : {std::vector<PlotSeries>{}, std::vector<PlotSeries>{series("nan", {kNaN, 8}, {1, kNaN})}}) {
    const std::string svg = svg_line_plot(spec, all);
    EXPECT_TRUE(well_formed(svg));
    EXPECT_NE(svg.find(">no data</text>"), std::string::npos);
    EXPECT_EQ(count(svg, "<polyline"), 0u);
    EXPECT_EQ(svg.rfind("<svg", 0), 0u);
    EXPECT_NE(svg.find(">nothing</text>"), std::string::npos);
  }
}

TEST(SvgPlot, SinglePointAndTinySize) {
  PlotSpec spec;
  spec.width = 10;
  spec.height = 10;
  const std::string svg = svg_line_plot(spec, {series("one", {8}, {1})});
  EXPECT_TRUE(well_formed(svg));
  EXPECT_EQ(polyline_sizes(svg), (std::vector<std::size_t>{1}));
  EXPECT_NE(svg.find("width=\"240\" height=\"160\""), std::string::npos);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  EXPECT_EQ(svg.find("inf"), std::string::npos);
}

// Values one ULP apart, denormals and the widest doubles are drawn at once, every coordinate a short number.
TEST(SvgPlot, AnyFiniteValuesGiveAShortPlot) {
  const double ulp_above_1 = std::nextafter(1.0, 2.0);
  const std::vector<std::vector<double>> ys = {
      {1, ulp_above_1, 1}, {4.9e-324, 1e-323, 1.5e-323}, {1e-323, 100, 1e300}, {1.7e308, 1.7e308, 1.7e308}};
  for (const std::vector<double>& y : ys) {
    for (const bool log : {true, false}) {
      PlotSpec spec;
      spec.log_y = log;
      const std::string svg = svg_line_plot(spec, {series("s", {8, ulp_above_1 * 8, 16}, y)});
      SCOPED_TRACE(svg.substr(0, 400));
      EXPECT_TRUE(well_formed(svg));
      EXPECT_LT(svg.size(), 20000u);
      EXPECT_EQ(svg.find("nan"), std::string::npos);
      EXPECT_EQ(svg.find("inf"), std::string::npos);
      EXPECT_EQ(polyline_sizes(svg), (std::vector<std::size_t>{3}));
    }
  }
}

}  // namespace
}  // namespace distbench::views
