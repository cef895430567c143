#include "core/report/markdown_reporter.hpp"

#include "core/report/atomic_file.hpp"
#include "core/report/text.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace distbench {
namespace {

// A Markdown table row from its cells.
std::string row(const std::vector<std::string>& cells) {
  std::string line = "|";
  for (const auto& cell : cells) line += fmt::format(" {} |", cell);
  return line + "\n";
}

std::vector<std::string> placement_cells(const CaseResult* r, bool faults) {
  std::vector<std::string> cells;
  if (r == nullptr) {
    cells = {"-", "-", "-", "-"};
  } else if (r->status != "ok") {
    cells = {r->status, "", "", ""};
  } else {
    cells = {time_text(r->time_shown * 1e6), bandwidth_text(r->algbw), bandwidth_text(r->busbw),
             r->wrong < 0 ? std::string("N/A") : std::to_string(r->wrong)};
  }
  if (faults) {
    const bool ok = r != nullptr && r->status == "ok";
    cells.push_back(ok ? count_text(max_over_ranks(r->os_per_op, &OsCounters::faults)) : "");
    cells.push_back(ok ? count_text(max_over_ranks(r->os_per_op, &OsCounters::switches)) : "");
  }
  return cells;
}

}  // namespace

MarkdownReporter::MarkdownReporter(std::string path) : path_(std::move(path)) {}

void MarkdownReporter::do_begin(const RunInfo& info, const SweepPlan& plan) {
  plan_ = plan;
  measured_ = checked_ = 0;
  busbw_sum_ = 0;
  wrong_ = 0;
  text_ = fmt::format("## distbench {}\n\n", name(plan.collective));
  text_ += fmt::format("distbench {} (git {}) · backend {} · {} ranks, per host: {} · {} · {} · samples: {} · time: "
                       "{} (-a {})\n\n",
                       info.tool_version, info.git_sha, plan.backend, info.world_size,
                       ranks_per_host_text(info.ranks), group_text(plan, info.world_size), sweep_text(plan.sizes),
                       samples_text(plan.stopping), average_text(plan.average), name(plan.average));

  std::vector<std::string> titles = {"size (B)", "count", "type", "redop", "root"};
  std::vector<std::string> aligns = {"---:", "---:", ":---", ":---", "---:"};
  const bool both = plan.placements.size() > 1;
  for (Placement p : plan.placements) {
    const std::string prefix = both ? fmt::format("{} ", name(p)) : std::string();
    for (const char* title : {"time (us)", "algbw (GB/s)", "busbw (GB/s)", "#wrong"}) {
      titles.push_back(prefix + title);
      aligns.emplace_back("---:");
    }
    if (plan.show_faults) {
      for (const char* title : {"faults/op", "csw/op"}) {
        titles.push_back(prefix + title);
        aligns.emplace_back("---:");
      }
    }
  }
  text_ += row(titles);
  text_ += row(aligns);
  write_file_atomically(path_, text_, Durability::process);
}

void MarkdownReporter::do_add(const std::vector<CaseResult>& results) {
  if (results.empty()) return;
  const CaseResult& first = results.front();
  std::vector<std::string> cells = {std::to_string(first.bytes), std::to_string(first.count), first.dtype,
                                    is_reduction(plan_.collective) ? first.op : "none", std::to_string(first.root)};
  for (Placement p : plan_.placements) {
    auto it = std::find_if(results.begin(), results.end(), [&](const CaseResult& r) { return r.placement == name(p); });
    const auto placement = placement_cells(it == results.end() ? nullptr : &*it, plan_.show_faults);
    cells.insert(cells.end(), placement.begin(), placement.end());
  }
  text_ += row(cells);
  for (const CaseResult& r : results) {
    if (r.status != "ok") continue;
    ++measured_;
    busbw_sum_ += r.busbw;
    if (r.wrong >= 0) {
      ++checked_;
      wrong_ += r.wrong;
    }
  }
  write_file_atomically(path_, text_, Durability::process);
}

void MarkdownReporter::do_end(const RunInfo& info) {
  std::string footer = "\n";
  footer += measured_ > 0 ? fmt::format("**Avg bus bandwidth:** {:.2f} GB/s", busbw_sum_ / static_cast<double>(measured_))
                          : std::string("**Avg bus bandwidth:** N/A (nothing measured)");
  footer += checked_ > 0 ? fmt::format(" · **Wrong elements:** {}", wrong_) : std::string(" · **Wrong elements:** not checked");
  footer += fmt::format(" · **Status:** {}", info.status);
  if (info.status == "failed" && !info.error.empty()) footer += fmt::format(" ({})", info.error);
  footer += "\n";
  write_file_atomically(path_, text_ + footer, final_durability(info.status));
}

}  // namespace distbench
