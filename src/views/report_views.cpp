// The text views of a report: Markdown and CSV (the HTML page is in report_html.cpp).
#include "views/report_views.hpp"

#include "core/report/csv_reporter.hpp"
#include "core/sys/quote.hpp"
#include "views/report_tables.hpp"

#include <fmt/format.h>

namespace distbench::views {
namespace {

std::string md_row(const std::vector<std::string>& cells) {
  std::string line = "|";
  for (const std::string& cell : cells) line += fmt::format(" {} |", markdown_text(cell));
  return line + "\n";
}

std::string md_table(const ResultsTable& table) {
  std::vector<std::string> titles;
  std::string rule = "|";
  for (const TableColumn& c : table.columns) {
    titles.push_back(c.title);
    rule += c.numeric ? " ---: |" : " :--- |";
  }
  std::string text = md_row(titles) + rule + "\n";
  for (const auto& row : table.rows) text += md_row(row);
  return text;
}

}  // namespace

std::string report_markdown(const ParsedReport& r) {
  std::string text = fmt::format("## distbench {}\n\n{}\n\n", markdown_text(r.title), markdown_text(run_facts(r)));
  text += md_table(results_table(r));

  text += "\n";
  for (const auto& [key, value] : summary_items(r))
    text += fmt::format("**{}:** {} · ", markdown_text(key), markdown_text(value));
  text += fmt::format("**Status:** {}\n", markdown_text(r.info.status));
  if (!r.info.error.empty()) text += fmt::format("\n**Error:** {}\n", markdown_text(r.info.error));
  if (!r.info.warnings.empty()) {
    text += "\n";
    for (const Warning& w : r.info.warnings) {
      text += fmt::format("- **warning ({}):** {}\n", markdown_text(w.code), markdown_text(w.message));
    }
  }
  return text;
}

std::string report_csv(const ParsedReport& r) {
  std::string text = csv_header(r.layout);
  for (const Record& rec : r.records) text += csv_line(r.layout, rec);
  return text;
}

}  // namespace distbench::views
