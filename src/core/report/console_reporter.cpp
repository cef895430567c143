#include "core/report/console_reporter.hpp"

#include "core/report/table.hpp"
#include "core/report/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <optional>
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

// A run of columns side by side on a line: the key columns (no group), or one group's value columns. `own`:
// nccl-tests' own columns of a group in its layout, where a missing figure reads "nan" or "N/A" rather than "-".
struct Segment {
  std::string caption;  // centred over the segment in the captions' line; "" for key columns
  std::vector<ColumnSpec> columns;
  std::optional<std::string> group = std::nullopt;
  bool own = false;
};

std::vector<ColumnSpec> columns_where(const std::vector<ColumnSpec>& columns, bool trailing) {
  std::vector<ColumnSpec> out;
  std::copy_if(columns.begin(), columns.end(), std::back_inserter(out),
               [&](const ColumnSpec& c) { return c.trailing == trailing; });
  return out;
}

// The line's segments. distbench's own layout: the key columns, then each group's value columns. nccl-tests': the
// key columns, nccl-tests' two groups' own columns in its places (whether they ran or not), the trailing key columns,
// any further group's own columns, then each group's trailing value columns.
std::vector<Segment> segments(const TableLayout& t) {
  const std::vector<std::string> groups = table_groups(t);
  std::vector<Segment> out;
  if (!t.nccl_tests_layout) {
    out.push_back({"", t.key_columns});
    for (const std::string& g : groups) out.push_back({g, t.value_columns, g});
    return out;
  }
  std::vector<ColumnSpec> keys = columns_where(t.key_columns, false);
  std::erase_if(keys, [&](const ColumnSpec& c) { return c.key == t.console_section_key; });
  out.push_back({"", keys});
  std::vector<std::string> placed = t.nccl_tests_groups;
  for (std::size_t g = 0; placed.empty() && g < groups.size() && g < 2; ++g) placed.push_back(groups[g]);
  while (placed.size() < 2) placed.emplace_back();  // a group that never runs: "nan" in nccl-tests' place
  const std::vector<ColumnSpec> own = columns_where(t.value_columns, false);
  for (const std::string& g : placed) out.push_back({g, own, g, true});
  out.push_back({"", columns_where(t.key_columns, true)});
  for (const std::string& g : groups) {
    if (std::find(placed.begin(), placed.end(), g) == placed.end()) out.push_back({g, own, g, true});
  }
  const std::vector<ColumnSpec> trailing = columns_where(t.value_columns, true);
  if (!trailing.empty()) {
    for (const std::string& g : groups) out.push_back({g, trailing, g});
  }
  return out;
}

// nccl-tests' -S stamp: "2024-05-01 10:00:00" (its strftime format; UTC here), two words at the end of its line.
std::string nccl_tests_stamp(double unix_seconds) {
  const std::string iso = timestamp_text(unix_seconds);  // 2024-05-01T10:00:00.000Z
  if (iso.size() < 19) return iso;
  return iso.substr(0, 10) + ' ' + iso.substr(11, 8);
}

// A cell of a segment for `record` (nullptr: the group has no record in this row).
std::string segment_cell(const Segment& s, const ColumnSpec& c, const Record* record, bool nccl_tests) {
  const bool placeholder = record == nullptr || (s.group && !record->ok());
  if (s.own && placeholder) return c.format == CellFormat::checked ? "N/A" : "nan";
  if (placeholder) return nccl_tests || !c.detail ? "-" : "";  // nccl-tests' layout: every word kept, to count by
  if (nccl_tests && c.format == CellFormat::timestamp) return nccl_tests_stamp(record->metric(c.key));
  std::string text = cell_text(*record, c);
  if (s.own && text == "-") return "nan";  // nothing moved (one rank, in place): a float parser reads "nan"
  return text;
}

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
  const std::vector<Segment> segs = segments(t);
  std::string captions = header_line(sp, std::string(span_width(segs.front().columns, sp.column_gap), ' '));
  std::string titles = header_line(sp, header_cells(segs.front().columns, false, sp.column_gap));
  std::string units = header_line(sp, header_cells(segs.front().columns, true, sp.column_gap));
  for (std::size_t i = 1; i < segs.size(); ++i) {
    const Segment& seg = segs[i];
    if (seg.columns.empty()) continue;
    captions += fmt::format("{}{:^{}}", sp.group_gap, seg.caption, span_width(seg.columns, sp.column_gap));
    titles += fmt::format("{}{}", sp.group_gap, header_cells(seg.columns, false, sp.column_gap));
    units += fmt::format("{}{}", sp.group_gap, header_cells(seg.columns, true, sp.column_gap));
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
  const Spacing sp = spacing(t);
  const std::vector<Segment> segs = segments(t);
  auto record_of = [&](const std::optional<std::string>& group) -> const Record* {
    return group ? group_record(t, row, *group) : &row.front();
  };
  std::string line = std::string(sp.row_indent);
  if (!t.nccl_tests_layout) {  // distbench's own layout: a status in the first column of a group not measured
    const TableRow cells_of = table_row(t, row);
    line += cells(t.key_columns, cells_of.keys, sp.column_gap);
    for (const auto& group : cells_of.groups) {
      line += sp.group_gap;
      line += cells(t.value_columns, group, sp.column_gap);
    }
    trim_right(line);
    write(line + '\n');
    return;
  }
  if (!t.console_section_key.empty()) {  // "# cycle 2" where a new one starts
    if (std::string section = row.front().param_text(t.console_section_key); section != section_) {
      section_ = section;
      write(fmt::format("# {} {}\n", t.console_section_key, section));
    }
  }
  // nccl-tests' layout: a row with nothing measured is a comment (parsers skip it) that says why
  if (std::none_of(row.begin(), row.end(), [](const Record& r) { return r.ok(); })) {
    std::vector<std::string> keys;
    for (const ColumnSpec& c : segs.front().columns) keys.push_back(segment_cell(segs.front(), c, &row.front(), true));
    write(header_line(sp, cells(segs.front().columns, keys, sp.column_gap)) + std::string(sp.group_gap) +
          row.front().status + '\n');
    return;
  }
  for (std::size_t i = 0; i < segs.size(); ++i) {
    const Segment& seg = segs[i];
    if (seg.columns.empty()) continue;
    const Record* record = record_of(seg.group);
    std::vector<std::string> values;
    for (const ColumnSpec& c : seg.columns) values.push_back(segment_cell(seg, c, record, true));
    if (i > 0) line += sp.group_gap;
    line += cells(seg.columns, values, sp.column_gap, seg.own);
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
