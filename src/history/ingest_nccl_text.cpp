// nccl-tests' text output as a run. Facts of the format (nccl-tests src/common.cu and src/util.cu): '#' lines around
// the table (the program's name in "# Collective test starting: NAME", one "#  Rank N ... device D [bus] NAME" line
// per GPU, a column header that names i_min when per-iteration columns follow each placement); each row is size,
// count, type, redop, root, then time, algbw, busbw and #wrong out of place and again in place (#wrong "N/A" when not
// checked), with -I four per-iteration columns after each placement's four, and with -S a local date and time at the
// end; a trace replay leaves out the out-of-place columns. -N repeats the rows (nccl_tests_case.hpp merges them).
// Other lines (NCCL's INFO lines, a launcher's) are passed over.
#include "core/error.hpp"
#include "core/report/json_model.hpp"
#include "core/sys/split.hpp"
#include "history/case_identity.hpp"
#include "history/nccl_tests_case.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace distbench::history {
namespace {

struct TextLog {
  std::string program, version, settings, machine;
  int ranks = 0;
  bool per_iteration = false;
  std::string first_timestamp;
  std::vector<NcclRow> rows;
};

std::vector<std::string_view> text_words(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

bool text_integer(std::string_view w, std::int64_t& out) {
  const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), out);
  return ec == std::errc() && end == w.data() + w.size();
}

// A figure of the table: a number, "N/A" (not checked) as NaN; false for anything else.
bool text_figure(std::string_view w, double& out) {
  if (w == "N/A") {
    out = kNotMeasured;
    return true;
  }
  const std::string s(w);
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && !s.empty();
}

bool text_timing(const std::vector<std::string_view>& w, std::size_t at, NcclTiming& t) {
  t.present = true;
  return text_figure(w[at], t.time_us) && text_figure(w[at + 1], t.algbw_gbps) &&
         text_figure(w[at + 2], t.busbw_gbps) && text_figure(w[at + 3], t.wrong);
}

// The facts a '#' line gives.
void read_comment(std::string_view line, TextLog& log) {
  const std::string_view text = trim_spaces(line.substr(1));
  constexpr std::string_view kStart = "Collective test starting:", kEnd = "Collective test concluded:";
  if (text.starts_with(kStart)) log.program = std::string(trim_spaces(text.substr(kStart.size())));
  if (text.starts_with(kEnd) && log.program.empty()) log.program = std::string(trim_spaces(text.substr(kEnd.size())));
  if (text.starts_with("nccl-tests version")) log.version = std::string(text);
  if (text.starts_with("nThread")) log.settings = std::string(text);
  if (text.find("i_min") != std::string_view::npos) log.per_iteration = true;
  if (text.starts_with("Rank ") && text.find(" device ") != std::string_view::npos) {
    ++log.ranks;
    const std::size_t bracket = text.find("] ");
    if (log.machine.empty() && bracket != std::string_view::npos) {
      log.machine = std::string(trim_spaces(text.substr(bracket + 2)));
    }
  }
}

// A row of the table, or false when the line is not one (its first five words are not size, count, type, redop,
// root); throws for a row whose figures do not read.
bool read_row(const std::vector<std::string_view>& w, TextLog& log, std::size_t line_no, const std::string& file) {
  NcclRow r;
  if (w.size() < 9 || !text_integer(w[0], r.bytes) || !text_integer(w[1], r.count) || !text_integer(w[4], r.root)) {
    return false;
  }
  r.type = std::string(w[2]);
  r.redop = std::string(w[3]);
  const std::size_t per = log.per_iteration ? 8 : 4, rest = w.size() - 5;
  const bool both = rest == 2 * per || rest == 2 * per + 2, in_only = rest == per || rest == per + 2;
  const bool ok = (both && text_timing(w, 5, r.out_of_place) && text_timing(w, 5 + per, r.in_place)) ||
                  (in_only && text_timing(w, 5, r.in_place));
  if (!ok || r.bytes < 0 || r.count < 0) {
    throw usage_error(
        fmt::format("'{}' line {}: a row of nccl-tests' table that does not read ({} words); give an "
                    "unchanged log of all_reduce_perf or its kin",
                    file, line_no, w.size()));
  }
  if ((rest == 2 * per + 2 || rest == per + 2) && log.first_timestamp.empty()) {
    log.first_timestamp = fmt::format("{}T{}", w[w.size() - 2], w[w.size() - 1]);
  }
  log.rows.push_back(std::move(r));
  return true;
}

TextLog read_log(const SourceFile& file) {
  TextLog log;
  std::size_t line_no = 0, start = 0;
  const std::string_view text = file.text;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_no;
    if (line.size() > kIngestMaxLineBytes) {
      throw usage_error(fmt::format("'{}' line {} is longer than {} bytes: not nccl-tests' output", file.path, line_no,
                                    kIngestMaxLineBytes));
    }
    if (line.starts_with('#')) {
      read_comment(line, log);
    } else if (read_row(text_words(line), log, line_no, file.path) && log.rows.size() > kIngestMaxCases) {
      throw usage_error(fmt::format("'{}' has more than {} rows", file.path, kIngestMaxCases));
    }
  }
  return log;
}

}  // namespace

RunToStore read_nccl_tests_text(const SourceFile& file, const IngestOptions& options) {
  const TextLog log = read_log(file);
  const std::string wanted = options.collective.empty() ? "" : collective_of_program(options.collective);
  const std::string collective = log.program.empty() ? wanted : collective_of_program(log.program);
  if (collective.empty()) {
    throw usage_error(
        fmt::format("'{}' does not say which collective it measured (no 'Collective test starting' "
                    "line); name it with --collective NAME (e.g. allreduce)",
                    file.path));
  }
  if (!wanted.empty() && wanted != collective) {
    throw usage_error(fmt::format("'{}' measured {} ({}), not --collective {}", file.path, collective, log.program,
                                  options.collective));
  }
  check_text_length(collective, "the collective's name", file.path);
  check_text_length(log.machine, "the device's name", file.path);
  RunToStore run;
  RunMeta& m = run.meta;
  m.time = log.first_timestamp.empty() ? file.modified : log.first_timestamp;
  m.machine = !options.machine.empty() ? options.machine : log.machine.empty() ? "unknown machine" : log.machine;
  m.benchmark = "nccl-tests";
  m.backend = "nccl";
  m.world = log.ranks;
  m.config = ordered_json{{"program", log.program}, {"version", log.version}, {"settings", log.settings}}.dump(
      -1, ' ', false, ordered_json::error_handler_t::replace);
  run.cases = nccl_cases(log.rows, collective, m.machine, m.world, file.path);
  return run;
}

}  // namespace distbench::history
