// The plots of a report, as data for svg_line_plot: a metric against the message size, one series per combination of
// the other parameters that vary (dtype, op, placement for a collective sweep). Which metrics: those the run named
// (the report's `plots`: busbw_gbps and time_us for a collective, latency_us for latency), else the first metric,
// when the records have a `bytes` parameter; none when they have not.
#pragma once

#include "core/report/json_model.hpp"
#include "views/svg_plot.hpp"

#include <string>
#include <vector>

namespace distbench::views {

struct ReportPlot {
  PlotSpec spec;
  std::vector<PlotSeries> series;
  std::string caption;  // what the plot shows, in words (plain text)
};

std::vector<ReportPlot> report_plots(const ParsedReport& r);

}  // namespace distbench::views
