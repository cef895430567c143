#include "cli/per_rank_options.hpp"

#include "cli/option_groups.hpp"
#include "cli/validators.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <string>

namespace distbench::cli {

void add_per_rank_options(CLI::App& app, PerRankOptions& options) {
  app.add_option_function<std::string>(
         "--per-rank",
         [&options](const std::string& text) { options.form = parse_per_rank_form(text).value_or(options.form); },
         fmt::format("Ranks' figures: all, summary, auto (all to {} ranks)", kPerRankThreshold))
      ->group(groups::kReports)
      ->option_text("FORM")
      ->default_str(std::string(name(PerRankForm::automatic)))
      ->check(one_of({"auto", "all", "summary"}));
  app.add_option("--per-rank-file", options.file, "Write every rank's figures here too (JSON Lines)")
      ->group(groups::kReports)
      ->option_text("PATH")
      ->check(non_empty_path());
}

}  // namespace distbench::cli
