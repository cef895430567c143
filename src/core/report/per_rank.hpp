// How much of each rank's own figures a record keeps. Up to a threshold of ranks (kPerRankThreshold) every rank's
// figures, as they always were; above it a summary of each figure over the ranks — quantiles and the three ranks at
// either end with their hosts (core/measure/rank_summary.hpp) — whose size does not grow with the ranks. Reporters
// condense each record so as it is added (core/report/reporter.hpp), so that what a run keeps on the root, and the
// report it writes, stay O(records) however many ranks ran; the full figures can go to a side file as they are made
// (core/report/per_rank_file.hpp).
#pragma once

#include "core/report/record.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace distbench {

// Above this many ranks a record keeps the summary (`--per-rank auto`, the default of every benchmark with per-rank
// figures): at 64 ranks the full form is ~300 B x 64 ≈ 19 KB per record.
inline constexpr std::size_t kPerRankThreshold = 64;

// --per-rank: auto (every rank up to the threshold, the summary above), all (every rank), summary (the summary).
enum class PerRankForm { automatic, all, summary };
std::string_view name(PerRankForm form);
std::optional<PerRankForm> parse_per_rank_form(std::string_view text);

struct PerRankPolicy {
  PerRankForm form = PerRankForm::all;  // a description that says nothing keeps records as they are (a replay)
  std::size_t threshold = kPerRankThreshold;

  // Whether a record of `ranks` ranks keeps every rank's figures.
  bool keeps_every_rank(std::size_t ranks) const;
};

// What a benchmark with per-rank figures is asked for: the form, and where the full figures go ("": nowhere).
struct PerRankOptions {
  PerRankForm form = PerRankForm::automatic;
  std::string file;  // --per-rank-file

  PerRankPolicy policy() const { return {form, kPerRankThreshold}; }
};

// Each figure of `ranks` over the ranks, in the order of the first rank's figures (the layout's); a figure a rank
// lacks counts as not measured there. The three ranks at either end are named with their hosts.
RankSummary summarize_ranks(const std::vector<RankFigures>& ranks);

// Replaces `r.ranks` by its summary when `policy` says so for its number of ranks, and frees them; a record already
// in the summary form, or without ranks, is left as it is.
void condense_ranks(Record& r, const PerRankPolicy& policy);

}  // namespace distbench
