#include "cli/per_rank_options.hpp"

#include "cli/option_groups.hpp"
#include "cli/validators.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

namespace distbench::cli {

void add_per_rank_options(CLI::App& app, PerRankOptions& options) {
  app.add_option_function<std::string>(
         "--per-rank",
         [&options](const std::string& text) { options.form = parse_per_rank_form(text).value_or(options.form); },
         fmt::format("What each record keeps of every rank's own figures: all (every rank), summary (quantiles and "
                     "the 3 slowest and fastest ranks with their hosts), auto (all up to {} ranks, the summary above)",
                     kPerRankThreshold))
      ->group(groups::kReports)
      ->option_text("FORM")
      ->default_str(std::string(name(PerRankForm::automatic)))
      ->check(one_of({"auto", "all", "summary"}));
  app.add_option("--per-rank-file", options.file,
                 "Write every rank's figures here too, a JSON Lines line per record as it is measured "
                 "(reports/SCHEMA.md, 'Per-rank file')")
      ->group(groups::kReports)
      ->option_text("PATH")
      ->check(non_empty_path());
}

}  // namespace distbench::cli
