#include "core/report/markdown_reporter.hpp"

#include "core/report/table.hpp"
#include "core/sys/quote.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstddef>

namespace distbench {
namespace {

// A Markdown table row from its cells, each made inert (a '|' in a host name does not end the cell).
std::string row_text(const std::vector<std::string>& cells) {
  std::string line = "|";
  for (const auto& cell : cells) line += fmt::format(" {} |", markdown_text(cell));
  return line + "\n";
}

// A code fence longer than any run of backticks in `lines`, so that no line ends the block early.
std::string fence_for(const std::vector<std::string>& lines) {
  std::size_t longest = 0;
  for (const std::string& l : lines) {
    std::size_t run = 0;
    for (char c : l) {
      run = c == '`' ? run + 1 : 0;
      longest = std::max(longest, run);
    }
  }
  return std::string(std::max<std::size_t>(3, longest + 1), '`');
}

std::string_view alignment(const ColumnSpec& c) {
  return c.format == CellFormat::text || c.format == CellFormat::nccl_type ? ":---" : "---:";
}

}  // namespace

void MarkdownReporter::on_begin(const RunInfo& info) {
  const RunDescription& d = description();
  const TableLayout& t = d.table;
  text_ = fmt::format("## distbench {}\n\n", markdown_text(d.title));
  text_ += markdown_text(
      fmt::format("distbench {} (git {}) · {}", info.tool_version, info.git_sha, fmt::join(d.facts, " · ")));
  text_ += "\n\n";

  std::vector<std::string> titles;
  std::string aligns = "|";
  for (const ColumnSpec& c : t.key_columns) {
    titles.push_back(c.md_title);
    aligns += fmt::format(" {} |", alignment(c));
  }
  const auto groups = table_groups(t);
  for (const std::string& group : groups) {
    const std::string prefix = groups.size() > 1 ? group + " " : std::string();
    for (const ColumnSpec& c : t.value_columns) {
      titles.push_back(prefix + c.md_title);
      aligns += fmt::format(" {} |", alignment(c));
    }
  }
  text_ += row_text(titles);
  text_ += aligns + "\n";
  footer_.clear();
}

void MarkdownReporter::on_add(const std::vector<Record>& row) {
  if (row.empty()) return;
  const TableRow cells = table_row(description().table, row);
  std::vector<std::string> all = cells.keys;
  for (const auto& group : cells.groups) all.insert(all.end(), group.begin(), group.end());
  text_ += row_text(all);
}

void MarkdownReporter::on_end(const RunInfo& info) {
  // The labels' emphasis is this view's; every text in it (a report's, read back) is made inert on its own.
  std::string footer;
  for (const SummaryItem& item : summary()) {
    footer += fmt::format("**{}:** {} · ", markdown_text(item.label), markdown_text(item.text));
  }
  footer += fmt::format("**Status:** {}", markdown_text(info.status));
  if ((info.status == "failed" || info.status == "interrupted") && !info.error.empty()) {
    footer += fmt::format(" ({})", markdown_text(info.error));
  }
  footer_ = "\n" + footer + "\n";
  for (const TextSection& section : sections()) {
    // A code block shows its lines as they are (control characters escaped).
    const std::string fence = fence_for(section.lines);
    footer_ += fmt::format("\n### {}\n\n{}\n", markdown_text(section.title), fence);
    for (const std::string& l : section.lines) (footer_ += escape_text(l)) += '\n';
    footer_ += fence + "\n";
  }
}

}  // namespace distbench
