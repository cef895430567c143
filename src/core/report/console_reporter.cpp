#include "core/report/console_reporter.hpp"

#include "core/report/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <string_view>

namespace distbench {
namespace {

// Right-aligned fixed-width columns: title and unit on two header lines.
struct Column {
  std::string_view title;
  std::string_view unit;
  int width;
};
constexpr Column kCaseColumns[] = {
    {"size", "(B)", 12}, {"count", "(elements)", 12}, {"type", "", 8}, {"redop", "", 6}, {"root", "", 4}};
constexpr Column kPlacementColumns[] = {{"time", "(us)", 10}, {"algbw", "(GB/s)", 8}, {"busbw", "(GB/s)", 8},
                                        {"#wrong", "", 6}};
// With --show-faults: page faults and context switches per operation, the most over ranks.
constexpr Column kFaultColumns[] = {{"faults", "(/op)", 9}, {"csw", "(/op)", 7}};
constexpr std::string_view kGroupGap = "  ";  // between the case columns and each placement group

template <std::size_t N>
constexpr int span_width(const Column (&columns)[N]) {
  int w = 0;
  for (const Column& c : columns) w += c.width;
  return w + static_cast<int>(N) - 1;  // one space between columns
}

template <std::size_t N>
std::string cells(const Column (&columns)[N], const std::string (&values)[N]) {
  std::string line;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) line += ' ';
    line += fmt::format("{:>{}}", values[i], columns[i].width);
  }
  return line;
}

template <std::size_t N>
std::string header_cells(const Column (&columns)[N], bool units) {
  std::string values[N];
  for (std::size_t i = 0; i < N; ++i) values[i] = std::string(units ? columns[i].unit : columns[i].title);
  return cells(columns, values);
}

std::string placement_cells(const CaseResult* r) {
  if (r == nullptr) return cells(kPlacementColumns, {"-", "-", "-", "-"});
  if (r->status != "ok") return cells(kPlacementColumns, {r->status, "", "", ""});
  return cells(kPlacementColumns, {time_text(r->time_shown * 1e6), bandwidth_text(r->algbw), bandwidth_text(r->busbw),
                                   r->wrong < 0 ? std::string("N/A") : std::to_string(r->wrong)});
}

std::string fault_cells(const CaseResult* r) {
  if (r == nullptr || r->status != "ok") return cells(kFaultColumns, {"", ""});
  return cells(kFaultColumns, {count_text(max_over_ranks(r->os_per_op, &OsCounters::faults)),
                               count_text(max_over_ranks(r->os_per_op, &OsCounters::switches))});
}

}  // namespace

ConsoleReporter::ConsoleReporter(std::ostream& out) : out_(out) {}

void ConsoleReporter::do_begin(const RunInfo& info, const SweepPlan& plan) {
  plan_ = plan;
  measured_ = checked_ = noise_missed_ = 0;
  busbw_sum_ = 0;
  wrong_ = 0;
  skip_reasons_.clear();

  std::string text;
  auto line = [&text](std::string_view s) { (text += s) += '\n'; };
  line(fmt::format("# distbench {} (git {})", info.tool_version, info.git_sha));
  line(fmt::format("# collective: {}   backend: {}   world size: {}   ranks per host: {}", name(plan.collective),
                   plan.backend, info.world_size, ranks_per_host_text(info.ranks)));
  line(fmt::format("# group: {}", group_text(plan, info.world_size)));
  line(fmt::format("# sweep: {}", sweep_text(plan.sizes)));
  line(fmt::format("# samples: {}   warm-up: {} iterations   check: {}   time: {} (-a {})",
                   samples_text(plan.stopping), plan.warmup_iters, plan.check ? "on" : "off",
                   average_text(plan.average), name(plan.average)));
  if (plan.malloc_reuse) line("# malloc: --malloc-reuse (M_MMAP_MAX=0: freed memory stays mapped)");
  line("#");

  const int kGroupWidth = span_width(kPlacementColumns) + (plan.show_faults ? 1 + span_width(kFaultColumns) : 0);
  std::string captions = fmt::format("# {:{}}", "", span_width(kCaseColumns));
  std::string titles = "# " + header_cells(kCaseColumns, false);
  std::string units = "# " + header_cells(kCaseColumns, true);
  for (Placement p : plan.placements) {
    captions += fmt::format("{}{:^{}}", kGroupGap, name(p), kGroupWidth);
    titles += fmt::format("{}{}", kGroupGap, header_cells(kPlacementColumns, false));
    units += fmt::format("{}{}", kGroupGap, header_cells(kPlacementColumns, true));
    if (plan.show_faults) {
      titles += fmt::format(" {}", header_cells(kFaultColumns, false));
      units += fmt::format(" {}", header_cells(kFaultColumns, true));
    }
  }
  for (std::string* s : {&captions, &titles, &units}) {
    s->erase(s->find_last_not_of(' ') + 1);
    line(*s);
  }
  out_ << text << std::flush;
}

void ConsoleReporter::do_add(const std::vector<CaseResult>& results) {
  if (results.empty()) return;

  const CaseResult& first = results.front();
  const std::string redop = is_reduction(plan_.collective) ? first.op : "none";
  std::string row = "  " + cells(kCaseColumns, {std::to_string(first.bytes), std::to_string(first.count),
                                                first.dtype, redop, std::to_string(first.root)});
  for (Placement p : plan_.placements) {
    auto it = std::find_if(results.begin(), results.end(), [&](const CaseResult& r) { return r.placement == name(p); });
    const CaseResult* r = it == results.end() ? nullptr : &*it;
    row += kGroupGap;
    row += placement_cells(r);
    if (plan_.show_faults) row += fmt::format(" {}", fault_cells(r));
  }
  row.erase(row.find_last_not_of(' ') + 1);
  out_ << row << '\n' << std::flush;

  for (const CaseResult& r : results) {
    if (r.status != "ok") {
      auto it = std::find_if(skip_reasons_.begin(), skip_reasons_.end(),
                             [&](const auto& s) { return s.first == r.skip_reason; });
      if (it == skip_reasons_.end()) {
        skip_reasons_.emplace_back(r.skip_reason, 1);
      } else {
        ++it->second;
      }
      continue;
    }
    ++measured_;
    busbw_sum_ += r.busbw;
    if (r.wrong >= 0) {
      ++checked_;
      wrong_ += r.wrong;
    }
    if (!r.noise_target_met) ++noise_missed_;
  }
}

void ConsoleReporter::do_end(const RunInfo& info) {

  std::string text;
  auto line = [&text](std::string_view s) { (text += s) += '\n'; };
  if (measured_ > 0) {
    line(fmt::format("# Avg bus bandwidth: {:.2f} GB/s", busbw_sum_ / static_cast<double>(measured_)));
  } else {
    line("# Avg bus bandwidth: N/A (nothing measured)");
  }
  line(checked_ > 0 ? fmt::format("# Wrong elements: {}", wrong_) : std::string("# Wrong elements: not checked"));
  if (noise_missed_ > 0) {
    line(fmt::format("# Noise target not met: {} of {}; allow more time per case or relax the noise target",
                     noise_missed_, plural(measured_, "result", "results")));
  }
  for (const auto& [reason, n] : skip_reasons_) {
    line(fmt::format("# Skipped: {}: {}", plural(n, "result", "results"), reason.empty() ? "no reason given" : reason));
  }
  if (info.status == "failed") line(fmt::format("# Run failed: {}", info.error.empty() ? "unknown error" : info.error));
  out_ << text << std::flush;
}

}  // namespace distbench
