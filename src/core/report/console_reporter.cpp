#include "core/report/console_reporter.hpp"

#include "core/report/table.hpp"
#include "core/report/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>
#include <string_view>

namespace distbench {
namespace {

// Where the columns sit: distbench's own tables put one space between columns, two before each group, and indent
// rows by two; nccl-tests' (TableLayout::nccl_tests_layout) put two everywhere and indent nothing.
struct Spacing {
  std::string_view column_gap, group_gap, row_indent;
};

Spacing spacing(const TableLayout& t) {
  return t.nccl_tests_layout ? Spacing{"  ", "  ", ""} : Spacing{" ", "  ", "  "};
}

int span_width(const std::vector<ColumnSpec>& columns, std::string_view gap) {
  int w = 0;
  for (const ColumnSpec& c : columns) w += c.width;
  return w + static_cast<int>((columns.size() - 1) * gap.size());
}

// Right-aligned cells, `gap` apart. `nccl_unchecked`: an unchecked count ("N/A") one character narrower, as
// nccl-tests prints it ("    N/A" where a count takes "  %6g"), which moves what follows one column left.
std::string cells(const std::vector<ColumnSpec>& columns, const std::vector<std::string>& values, std::string_view gap,
                  bool nccl_unchecked = false) {
  std::string line;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) line += gap;
    const std::string value = i < values.size() ? values[i] : std::string();
    const bool narrow = nccl_unchecked && columns[i].format == CellFormat::checked && value == "N/A";
    line += fmt::format("{:>{}}", value, columns[i].width - (narrow ? 1 : 0));
  }
  return line;
}

std::string header_cells(const std::vector<ColumnSpec>& columns, bool units, std::string_view gap) {
  std::vector<std::string> values;
  for (const ColumnSpec& c : columns) values.push_back(units ? c.unit : c.title);
  return cells(columns, values, gap);
}

// A header line: "# " then its cells where rows are indented; over the row's first two characters where they are
// not (and those are padding).
std::string header_line(const Spacing& s, std::string cells_text) {
  if (s.row_indent.empty() && cells_text.compare(0, 2, "  ") == 0) return cells_text.replace(0, 2, "# ");
  return "# " + cells_text;
}

void trim_right(std::string& s) { s.erase(s.find_last_not_of(' ') + 1); }

}  // namespace

ConsoleReporter::ConsoleReporter(std::ostream& out, std::function<void()> before_write)
    : out_(out), before_write_(std::move(before_write)) {}

void ConsoleReporter::write(const std::string& text) {
  if (before_write_) before_write_();
  out_ << text << std::flush;
}

void ConsoleReporter::do_begin(const RunInfo& info) {
  const RunDescription& d = description();
  const TableLayout& t = d.table;
  std::string text;
  auto line = [&text](std::string_view s) { (text += s) += '\n'; };
  line(fmt::format("# distbench {} (git {})", info.tool_version, info.git_sha));
  for (const std::string& p : d.console_preamble) line("# " + p);
  for (const std::string& s : startup_lines(info.startup)) line("# " + s);
  line("#");

  const Spacing sp = spacing(t);
  const int group_width = span_width(t.value_columns, sp.column_gap);
  std::string captions = header_line(sp, std::string(span_width(t.key_columns, sp.column_gap), ' '));
  std::string titles = header_line(sp, header_cells(t.key_columns, false, sp.column_gap));
  std::string units = header_line(sp, header_cells(t.key_columns, true, sp.column_gap));
  for (const std::string& group : table_groups(t)) {
    captions += fmt::format("{}{:^{}}", sp.group_gap, group, group_width);
    titles += fmt::format("{}{}", sp.group_gap, header_cells(t.value_columns, false, sp.column_gap));
    units += fmt::format("{}{}", sp.group_gap, header_cells(t.value_columns, true, sp.column_gap));
  }
  trim_right(captions);
  if (t.nccl_tests_layout) {  // nccl-tests' header lines end in one space; its captions' line 3 short of the titles'
    titles += ' ';
    units += ' ';
    if (captions.size() < titles.size() - 3) captions.resize(titles.size() - 3, ' ');
  } else {
    trim_right(titles);
    trim_right(units);
  }
  if (!t.split_key.empty()) line(captions);
  line(titles);
  line(units);
  write(text);
}

void ConsoleReporter::do_add(const std::vector<Record>& row) {
  if (row.empty()) return;
  if (const auto& shown = description().console_row; shown && std::none_of(row.begin(), row.end(), shown)) return;
  const TableLayout& t = description().table;
  const TableRow cells_of = table_row(t, row);
  const Spacing sp = spacing(t);
  std::string line = std::string(sp.row_indent) + cells(t.key_columns, cells_of.keys, sp.column_gap);
  for (const auto& group : cells_of.groups) {
    line += sp.group_gap;
    line += cells(t.value_columns, group, sp.column_gap, t.nccl_tests_layout);
  }
  trim_right(line);
  write(line + '\n');
}

void ConsoleReporter::do_end(const RunInfo& info) {
  std::string text;
  auto line = [&text](std::string_view s) { (text += s) += '\n'; };
  std::size_t measured = 0, noise_missed = 0;
  std::vector<std::pair<std::string, std::size_t>> skip_reasons;  // reason, how many records, in order
  for (const Record& r : records()) {
    if (r.ok()) {
      ++measured;
      if (!r.noise_target_met) ++noise_missed;
      continue;
    }
    auto it =
        std::find_if(skip_reasons.begin(), skip_reasons.end(), [&](const auto& s) { return s.first == r.skip_reason; });
    if (it == skip_reasons.end()) {
      skip_reasons.emplace_back(r.skip_reason, 1);
    } else {
      ++it->second;
    }
  }
  // A run that stopped before measuring anything says only why (below), not that nothing was measured.
  if (measured > 0 || info.status == "complete") {
    for (const SummaryItem& item : summary()) {
      line(item.console.empty() ? fmt::format("# {}: {}", item.label, item.text) : item.console);
    }
  }
  // Said once: by the benchmark's warning when it has one (printed after the table), else here.
  const bool warned = std::any_of(info.warnings.begin(), info.warnings.end(),
                                  [](const Warning& w) { return w.code == "noise_target_missed"; });
  if (noise_missed > 0 && !warned) {
    line(fmt::format("# Noise target not met: {} of {}; allow more time per case or relax the noise target",
                     noise_missed, plural(measured, "result", "results")));
  }
  for (const auto& [reason, n] : skip_reasons) {
    line(fmt::format("# Skipped: {}: {}", plural(n, "result", "results"), reason.empty() ? "no reason given" : reason));
  }
  if (const std::string pages = info.version("memory.buffer_huge_pages"); !pages.empty()) {
    line(fmt::format("# Buffers in huge pages: {}", pages));
  }
  if (info.status == "failed") line(fmt::format("# Run failed: {}", info.error.empty() ? "unknown error" : info.error));
  if (info.status == "interrupted") line(fmt::format("# Interrupted: {}", info.error));
  for (const TextSection& section : sections()) {
    line("#");
    line("# " + section.title);
    for (const std::string& l : section.lines) line(l.empty() ? l : "  " + l);
  }
  write(text);
}

}  // namespace distbench
