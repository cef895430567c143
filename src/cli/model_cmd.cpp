// `distbench model REPORT.json... [--collective C] [--algorithm A|auto] [--predict-np 8,64] [--predict-sizes 1K:1G]
// [--fit-sizes MIN:MAX] [--link-gbps X] [--format text|md|json|csv|html] [--output PATH]`: a latency-bandwidth cost
// model fitted to collective sweeps (src/model). Exit 0: fitted; 2: bad input (no report, several collectives without
// --collective, one size only, --algorithm on a report of another backend), one error line, nothing written; 1: I/O
// failure.
#include "cli/command.hpp"
#include "cli/exit_codes.hpp"
#include "cli/option_groups.hpp"
#include "cli/size_specs.hpp"
#include "cli/validators.hpp"
#include "core/error.hpp"
#include "core/report/atomic_file.hpp"
#include "core/report/report_file.hpp"
#include "core/sys/text_file.hpp"
#include "model/model.hpp"
#include "model/model_views.hpp"

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace distbench::cli {
namespace {

constexpr long long kMostRanks = 1LL << 24;  // --predict-np's largest world

struct ModelArgs {
  std::vector<std::string> files;
  std::string collective;
  std::string algorithm = "auto";
  std::vector<int> predict_np;             // CLI11 split the list and checked each count
  std::vector<std::string> predict_sizes;  // items, each checked by size_list_item()
  std::string fit_sizes;                   // checked by size_range()
  double link_gbps = 0;
  std::string format = "text";
  std::string output;
};

model::ModelOptions options_of(const ModelArgs& a) {
  model::ModelOptions o;
  if (!a.collective.empty()) o.collective = parse_collective(a.collective);  // CLI11 checked the name
  if (a.algorithm != "auto") o.algorithm = model::parse_algorithm(a.algorithm);
  o.predict_ranks = a.predict_np;
  for (const std::string& item : a.predict_sizes) {
    for (const std::uint64_t s : sizes_of_item(item)) o.predict_sizes.push_back(static_cast<double>(s));
  }
  o.link_gbps = a.link_gbps;
  if (!a.fit_sizes.empty()) {
    const SizeBounds bounds = size_bounds(a.fit_sizes);
    if (bounds.min) o.fit_min_bytes = static_cast<double>(*bounds.min);
    if (bounds.max) o.fit_max_bytes = static_cast<double>(*bounds.max);
  }
  return o;
}

std::string view_of_model(const std::string& format, const model::ModelResult& r) {
  if (format == "json") return model::model_json(r);
  if (format == "csv") return model::model_csv(r);
  if (format == "markdown") return model::model_markdown(r);
  if (format == "html") return model::model_html(r);
  return model::model_text(r);
}

int run_model(const ModelArgs& a) {
  if (a.files.empty()) {
    throw usage_error("no report given; pass one or more JSON reports of a sweep: distbench model run.json");
  }
  const model::ModelOptions options = options_of(a);
  if (!a.output.empty()) {
    check_writable(a.output);
    std::vector<NamedPath> inputs;
    for (const std::string& f : a.files) inputs.push_back({"a report", f});
    check_distinct_files({{"--output", a.output}}, inputs);
  }
  std::vector<ParsedReport> reports;
  for (const std::string& f : a.files) reports.push_back(read_report_file(f));
  const model::ModelResult result = model::build_model(reports, a.files, options);
  if (const std::string w = model::link_rate_warning(result); !w.empty()) fmt::print(stderr, "warning: {}\n", w);
  const std::string text = view_of_model(a.format, result);
  if (a.output.empty()) {
    write_stdout(text);
  } else {
    write_file_atomically(a.output, text, Durability::disk);
  }
  return static_cast<int>(ExitCode::ok);
}

std::vector<std::string> collective_names() {
  std::vector<std::string> out;
  for (Collective c : all_collectives()) out.emplace_back(name(c));
  return out;
}

std::vector<std::string> algorithm_names() {
  std::vector<std::string> out{"auto"};
  for (model::Algorithm x : model::all_algorithms()) out.emplace_back(model::name(x));
  return out;
}

}  // namespace

void add_model_command(CLI::App& root, Commands& commands) {
  auto* app =
      root.add_subcommand("model", "Fit a latency-bandwidth cost model to sweeps; predict other sizes and ranks");
  app->group("Reports and tools");
  app->footer(
      help_footer("More: docs/model.md.", exit_code_lines({ExitCode::ok, ExitCode::failure, ExitCode::usage}, false)));
  auto a = std::make_shared<ModelArgs>();
  app->add_option("REPORTS", a->files, "JSON reports of collective sweeps (one or several world sizes)")
      ->check(non_empty_path());
  const char* fit = "Model";
  app->add_option("--collective", a->collective, "The collective to model, when the reports hold several")
      ->option_text("NAME")
      ->group(fit)
      ->check(one_of(collective_names()));
  app->add_option("--algorithm", a->algorithm,
                  "Cost formula: auto (as the report recorded, else ring) or an Open MPI algorithm's")
      ->option_text("NAME")
      ->group(fit)
      ->check(one_of(algorithm_names()));
  app->add_option("--predict-np", a->predict_np, "Predict at these rank counts, e.g. 8,64,512 (default: measured)")
      ->option_text("LIST")
      ->group(fit)
      ->delimiter(',')
      ->check(in_range(2, kMostRanks, "rank count"));
  app->add_option("--predict-sizes", a->predict_sizes,
                  "Predict at sizes MIN:MAX[:FACTOR] or a list (default: measured)")
      ->option_text("SIZES")
      ->group(fit)
      ->delimiter(',')
      ->check(size_list_item());
  app->add_option("--fit-sizes", a->fit_sizes, "Fit only the sizes MIN:MAX (MIN: or :MAX: one bound), e.g. 64K:")
      ->option_text("RANGE")
      ->group(fit)
      ->check(size_range());
  app->add_option("--link-gbps", a->link_gbps, "Link rate per rank and direction in GB/s, as busbw (100 Gbit/s = 12.5)")
      ->option_text("GBPS")
      ->default_str("none")
      ->group(fit)
      ->check(positive_number("GB/s"));
  app->add_option("--format", a->format, "text, md (markdown), json, csv or html")
      ->option_text("FORMAT")
      ->group(groups::kOutput)
      ->transform(one_of({"text", "markdown", "json", "csv", "html"}, {{"md", "markdown"}}));
  app->add_option("-o,--output", a->output, "Write it to this file (atomically) instead of stdout")
      ->option_text("PATH")
      ->group(groups::kOutput)
      ->check(non_empty_path());
  commands.push_back({app, [a](Invocation&) { return run_model(*a); }});
}

}  // namespace distbench::cli
