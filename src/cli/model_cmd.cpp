// `distbench model REPORT.json... [--collective C] [--algorithm A|auto] [--predict-np 8,64] [--predict-sizes 1K:1G]
// [--fit-sizes MIN:MAX] [--link-gbps X] [--format text|md|json|csv|html] [--output PATH]`: a latency-bandwidth cost model fitted to
// collective sweeps (src/model). Exit 0: fitted; 2: bad input (no report, several collectives without --collective,
// one size only, --algorithm on a report of another backend), one error line, nothing written; 1: I/O failure.
#include "cli/command.hpp"
#include "cli/exit_codes.hpp"
#include "cli/option_groups.hpp"
#include "cli/validators.hpp"
#include "core/error.hpp"
#include "core/quote.hpp"
#include "core/report/atomic_file.hpp"
#include "core/report/report_file.hpp"
#include "core/sizes.hpp"
#include "core/text_file.hpp"
#include "model/model.hpp"
#include "model/model_views.hpp"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <charconv>
#include <memory>
#include <string>
#include <vector>

namespace distbench::cli {
namespace {

struct ModelArgs {
  std::vector<std::string> files;
  std::string collective;
  std::string algorithm = "auto";
  std::string predict_np;
  std::string predict_sizes;
  std::string fit_sizes;
  double link_gbps = 0;
  std::string format = "text";
  std::string output;
};

std::vector<std::string> split_on(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const auto end = text.find(sep, start);
    out.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

// "8,64,512": rank counts of 2 .. 2^24.
std::vector<int> parse_rank_list(const std::string& text) {
  std::vector<int> out;
  if (text.empty()) return out;
  for (const std::string& item : split_on(text, ',')) {
    int v = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec != std::errc() || end != item.data() + item.size() || v < 2 || v > (1 << 24)) {
      throw usage_error(fmt::format("--predict-np: '{}' is not a rank count from 2 to 16777216; give a list such as "
                                    "8,64,512",
                                    escape_text(item)));
    }
    out.push_back(v);
  }
  return out;
}

// "1K:1G" (by factor 2), "1K:1G:4" (by factor 4) or a list "64K,1M".
std::vector<double> parse_size_spec(const std::string& text) {
  std::vector<double> out;
  if (text.empty()) return out;
  if (text.find(':') != std::string::npos) {
    const auto parts = split_on(text, ':');
    if (parts.size() > 3) throw usage_error("--predict-sizes: give MIN:MAX or MIN:MAX:FACTOR, e.g. 1K:1G");
    double factor = 2;
    if (parts.size() == 3) {
      const auto [end, ec] = std::from_chars(parts[2].data(), parts[2].data() + parts[2].size(), factor);
      if (ec != std::errc() || end != parts[2].data() + parts[2].size() || !(factor > 1) || factor > 1024) {
        throw usage_error(fmt::format("--predict-sizes: factor '{}' must be a number above 1, e.g. 1K:1G:4",
                                      escape_text(parts[2])));
      }
    }
    for (std::uint64_t s : size_sweep(parse_size_option("--predict-sizes", parts[0]),
                                      parse_size_option("--predict-sizes", parts[1]), factor, 0)) {
      out.push_back(static_cast<double>(s));
    }
    return out;
  }
  for (const std::string& item : split_on(text, ',')) {
    const std::uint64_t s = parse_size_option("--predict-sizes", item);
    if (s == 0) throw usage_error("--predict-sizes: sizes must be at least 1 byte");
    out.push_back(static_cast<double>(s));
  }
  return out;
}

model::ModelOptions options_of(const ModelArgs& a) {
  model::ModelOptions o;
  if (!a.collective.empty()) o.collective = parse_collective(a.collective);  // CLI11 checked the name
  if (a.algorithm != "auto") o.algorithm = model::parse_algorithm(a.algorithm);
  o.predict_ranks = parse_rank_list(a.predict_np);
  o.predict_sizes = parse_size_spec(a.predict_sizes);
  o.link_gbps = a.link_gbps;
  if (!a.fit_sizes.empty()) {
    const auto parts = split_on(a.fit_sizes, ':');
    if (parts.size() != 2 || (parts[0].empty() && parts[1].empty())) {
      throw usage_error("--fit-sizes: give MIN:MAX, MIN: or :MAX, e.g. 64K:64M");
    }
    if (!parts[0].empty()) o.fit_min_bytes = static_cast<double>(parse_size_option("--fit-sizes", parts[0]));
    if (!parts[1].empty()) o.fit_max_bytes = static_cast<double>(parse_size_option("--fit-sizes", parts[1]));
    if (o.fit_max_bytes > 0 && o.fit_min_bytes > o.fit_max_bytes) {
      throw usage_error(fmt::format("--fit-sizes {}: the smallest size is above the largest", escape_text(a.fit_sizes)));
    }
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
  auto* app = root.add_subcommand("model", "Fit a latency-bandwidth cost model to sweeps; predict other sizes and ranks");
  app->group("Reports and tools");
  app->footer(help_footer("More: docs/model.md.",
                          exit_code_lines({ExitCode::ok, ExitCode::failure, ExitCode::usage}, false)));
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
      ->group(fit);
  app->add_option("--predict-sizes", a->predict_sizes, "Predict at sizes MIN:MAX[:FACTOR] or a list (default: measured)")
      ->option_text("SIZES")
      ->group(fit);
  app->add_option("--fit-sizes", a->fit_sizes, "Fit only the sizes MIN:MAX (MIN: or :MAX: one bound), e.g. 64K:")
      ->option_text("RANGE")
      ->group(fit);
  app->add_option("--link-gbps", a->link_gbps, "Link rate per rank and direction in GB/s, as busbw (100 Gbit/s = 12.5)")
      ->option_text("GBPS")
      ->default_str("none")
      ->group(fit)
      ->check(positive_number("GB/s"));
  app->add_option("--format", a->format, "text, markdown (md), json, csv or html")
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
