// nccl-tests' JSON output (-J; file version 3 in nccl-tests 2.19) as a run. Facts of the format (nccl-tests
// src/util.cu): an object with version, start_time (local time, "%Y-%m-%d %H:%M:%S"), args (argv; args[0] the
// program), env, nccl_version, config {..., devices [{rank, hostname, device, device_info, ...}]} and results, one
// per row: size, count, type, redop, root (a string of "%6i"), out_of_place and in_place {time or cpu_time, alg_bw,
// bus_bw, nwrong (null: not checked)}, out_of_place null in a trace replay, and with -I the *_per_iter objects
// {skipped_iterations, p50_us, times_us, ...}. A double that is NaN is written as the string "nan".
#include "core/error.hpp"
#include "core/report/json_fields.hpp"
#include "core/report/json_model.hpp"
#include "core/sys/split.hpp"
#include "history/case_identity.hpp"
#include "history/nccl_tests_case.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>

namespace distbench::history {
namespace {

double json_figure(const JsonField& f) {
  if (f.json().is_string()) {
    const std::string s = f.text();
    if (s == "nan" || s == "-nan" || s == "inf" || s == "-inf") return kNotMeasured;
    f.fail("a number");
  }
  return f.number_or_nan();
}

std::int64_t json_root(const JsonField& f) {
  if (!f.json().is_string()) return f.integer(-1, std::numeric_limits<int>::max());
  const std::string_view s = trim_spaces(f.json().get_ref<const std::string&>());
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) f.fail("a root rank");
  return v;
}

NcclTiming json_timing(const JsonField& row, std::string_view placement) {
  NcclTiming t;
  const auto body = row.find(placement);
  if (!body || body->is_null()) return t;
  t.present = true;
  const auto time = body->find("time");
  t.time_us = json_figure(time ? *time : body->at("cpu_time"));
  t.algbw_gbps = json_figure(body->at("alg_bw"));
  t.busbw_gbps = json_figure(body->at("bus_bw"));
  t.wrong = json_figure(body->at("nwrong"));
  const auto iters = row.find(std::string(placement) + "_per_iter");
  if (!iters || iters->is_null()) return t;
  t.p50_us = json_figure(iters->at("p50_us"));
  if (const auto times = iters->find("times_us")) {
    const std::size_t skip = iters->find("skipped_iterations") ? iters->at("skipped_iterations").count() : 0;
    const std::vector<JsonField> all = times->elements();
    for (std::size_t i = skip; i < all.size(); ++i) t.iteration_us.push_back(json_figure(all[i]));
  }
  return t;
}

NcclRow json_row(const JsonField& r) {
  NcclRow row;
  row.bytes = static_cast<std::int64_t>(r.at("size").count());
  row.count = static_cast<std::int64_t>(r.at("count").count());
  row.type = r.at("type").text();
  row.redop = r.at("redop").text();
  row.root = json_root(r.at("root"));
  row.out_of_place = json_timing(r, "out_of_place");
  row.in_place = json_timing(r, "in_place");
  return row;
}

// The machine (the first device's name) and the world (one device per rank).
std::pair<std::string, int> json_devices(const JsonField& top) {
  const auto config = top.find("config");
  const auto devices = config ? config->find("devices") : std::nullopt;
  if (!devices) return {"", 0};
  const std::vector<JsonField> all = devices->elements();
  const auto info = all.empty() ? std::nullopt : all.front().find("device_info");
  return {info ? info->text_or_empty() : std::string(), static_cast<int>(all.size())};
}

// The run's facts: when (start_time, local time), the machine and world (its devices), what ran (the program's
// arguments, NCCL's version, nccl-tests' configuration; not the environment, which may hold secrets).
RunMeta json_meta(const JsonField& top, const SourceFile& file, const IngestOptions& options) {
  const auto [device, world] = json_devices(top);
  RunMeta m;
  const auto start = top.find("start_time");
  m.time = start ? start->text() : file.modified;
  std::replace(m.time.begin(), m.time.end(), ' ', 'T');
  m.machine = !options.machine.empty() ? options.machine : device.empty() ? "unknown machine" : device;
  m.benchmark = "nccl-tests";
  const auto distbench = top.find("distbench");  // written by distbench: the backend that ran
  const auto backend = distbench ? distbench->find("backend") : std::nullopt;
  m.backend = backend ? backend->text() : "nccl";
  m.world = world;
  const auto version = top.find("nccl_version");
  const auto config = top.find("config");
  m.config = ordered_json{{"args", top.at("args").json()},
                          {"nccl_version", version ? version->json() : ordered_json(nullptr)},
                          {"config", config ? config->json() : ordered_json(nullptr)}}
                 .dump(-1, ' ', false, ordered_json::error_handler_t::replace);
  return m;
}

}  // namespace

RunToStore read_nccl_tests_json(const SourceFile& file, const IngestOptions& options) {
  std::string problem;
  const auto parsed = parse_json_text(file.text, problem);
  if (!parsed) throw usage_error(fmt::format("'{}': {}", file.path, problem));
  RunToStore run;
  std::vector<NcclRow> rows;
  std::string collective;
  try {
    const JsonField top(*parsed, "");
    top.at("version").integer(1, 1000);
    const std::vector<JsonField> args = top.at("args").elements();
    const std::string program = args.empty() ? std::string() : args.front().text();
    collective = collective_of_program(program.empty() ? options.collective : program);
    // distbench's own -J: the program is distbench, the collective its first argument
    if (collective == "distbench" && args.size() > 1) collective = collective_of_program(args[1].text());
    if (collective.empty()) throw usage_error("no program in 'args'; name the collective with --collective NAME");
    const std::vector<JsonField> results = top.at("results").elements();
    if (results.size() > kIngestMaxCases) throw usage_error(fmt::format("more than {} results", kIngestMaxCases));
    for (const JsonField& r : results) rows.push_back(json_row(r));
    run.meta = json_meta(top, file, options);
  } catch (const Error& e) {
    throw usage_error(fmt::format("'{}': not nccl-tests' JSON output: {}", file.path, e.what()));
  }
  check_text_length(run.meta.machine, "the device's name", file.path);
  check_text_length(run.meta.time, "start_time", file.path);
  run.cases = nccl_cases(rows, collective, run.meta.machine, run.meta.world, file.path);
  return run;
}

}  // namespace distbench::history
