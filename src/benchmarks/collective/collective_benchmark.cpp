#include "benchmarks/collective/collective_benchmark.hpp"

#include "benchmarks/collective/aggregate.hpp"
#include "benchmarks/collective/bandwidth_floor.hpp"
#include "benchmarks/collective/collective_record.hpp"
#include "benchmarks/collective/collective_text.hpp"
#include "benchmarks/collective/sweep.hpp"
#include "benchmarks/collective/timing_method.hpp"
#include "core/error.hpp"
#include "core/report/json_model.hpp"
#include "core/report/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace distbench::collective {
namespace {

template <class E>
nlohmann::ordered_json names(const std::vector<E>& values) {
  auto a = nlohmann::ordered_json::array();
  for (E e : values) a.push_back(std::string(name(e)));
  return a;
}

// The backends whose calls run on a device (the Communicator's runs_on_device()), by name, for what is said before
// any communicator exists.
bool runs_on_device(std::string_view backend) { return backend == "nccl"; }

// --timing osu|imb on MPI: reduce-scatter is called as the peers call it (CallForm::vector).
bool peers_call_form(Timing timing, std::string_view backend) {
  return timing_method(timing).calls_as_peers() && !runs_on_device(backend);
}

std::string check_text(int iters) {
  if (iters == 0) return "off";
  return iters == 1 ? std::string("on") : fmt::format("{} times per case", iters);
}

std::string join_names(const std::vector<Timing>& timings) {
  std::string out;
  for (std::size_t i = 0; i < timings.size(); ++i) {
    out += fmt::format("{}{}", i == 0 ? "" : i + 1 == timings.size() ? " and " : ", ", name(timings[i]));
  }
  return out;
}

// The header's sampling line: one method's samples and warm-up, or each method's in turn.
// The statistic the time column shows (aggregate.hpp), in the header's words: each method's where several time.
std::string sampling_line(const SweepPlan& plan, const std::vector<Timing>& timings) {
  std::string statistic;
  for (Timing t : timings) {
    if (!statistic.empty()) statistic += "; ";
    if (timings.size() > 1) statistic += fmt::format("{}: ", name(t));
    statistic += time_statistic_text(name(t), plan.average);
  }
  const std::string rest = fmt::format("check: {}   time: {}{}", check_text(plan.check_iters), statistic,
                                       plan.cpu_time ? ", host clock (-C 1)" : "");
  if (timings.size() == 1) {
    const TimingMethod& method = timing_method(timings.front());
    return fmt::format("samples: {}   warm-up: {}   {}", method.samples_text(plan), method.warmup_text(plan), rest);
  }
  std::string each;
  for (Timing t : timings) {
    const TimingMethod& method = timing_method(t);
    each += fmt::format("{}: {}, warm-up {}; ", name(t), method.samples_text(plan), method.warmup_text(plan));
  }
  each.resize(each.size() - 2);  // the last "; "
  return fmt::format("samples: {}   {}", each, rest);
}

}  // namespace

nlohmann::ordered_json collective_config(const SweepPlan& plan, const std::string& backend) {
  nlohmann::ordered_json j;
  j["collective"] = std::string(name(plan.collective));
  j["backend"] = backend;
  j["sizes"] = plan.sizes;
  j["dtypes"] = names(plan.dtypes);
  j["ops"] = names(plan.ops);
  j["placements"] = names(plan.placements);
  j["tensors"] = plan.tensors;
  j["fusions"] = plan.tensors > 1 ? names(plan.fusions) : nlohmann::ordered_json::array();
  j["root"] = plan.root;
  j["group_size"] = plan.group_size;
  j["warmup_iters"] = plan.warmup_iters;
  j["stopping"] = stopping_json(plan.stopping);
  j["check"] = plan.check_iters > 0;
  j["check_iters"] = plan.check_iters;
  j["cycles"] = plan.cycles;
  j["timestamps"] = plan.timestamps;
  j["cpu_time"] = plan.cpu_time;
  if (plan.per_iter_timing) {  // -I (written only when asked, so that other reports keep their keys)
    j["per_iter_timing"] = true;
    j["per_iter_skip"] = plan.per_iter_skip;
  }
  const std::vector<Timing> timings = resolved_timings(plan, runs_on_device(backend));
  j["timing"] = std::string(name(timings.front()));  // the first method; all of them in "timings"
  j["timings"] = names(timings);
  j["call_form"] = peers_call_form(timings.front(), backend) ? "vector" : "block";
  j["block_iters"] = plan.block_iters;
  j["average"] = std::string(name(plan.average));
  j["timeout_s"] = plan.timeout_s;
  j["malloc_reuse"] = plan.malloc_reuse;
  j["bandwidth_floor"] = {{"min_busbw_gbps", plan.floor.min_busbw},
                          {"min_algbw_gbps", plan.floor.min_algbw},
                          {"at_bytes", plan.floor.at_bytes}};
  const BackendOptions& o = plan.backend_options;
  j["backend_options"] = {{"gpus_per_process", o.gpus_per_process},
                          {"device_index", o.device_index},
                          {"agg_iters", o.agg_iters},
                          {"graph_launches", o.graph_launches},
                          {"blocking", o.blocking},
                          {"register_buffers", o.register_buffers},
                          {"alloc", !runs_on_device(backend) ? "host"
                                    : o.nccl_mem_alloc       ? "ncclMemAlloc"
                                                             : "cudaMalloc"}};
  return j;
}

namespace {
// nccl-tests' groups, in its order: every row has both.
constexpr Placement kNcclTestsPlacements[] = {Placement::out_of_place, Placement::in_place};
// time, algbw, busbw, #wrong: a group's columns that are nccl-tests' own; the rest trail (TableLayout).
constexpr std::size_t kNcclTestsValueColumns = 4;
}  // namespace

namespace {
// --columns: statistics of the time phase's samples (-a over ranks), after nccl-tests' four.
void add_statistic_columns(TableLayout& t, const SweepPlan& plan) {
  std::vector<std::string> columns = plan.columns;
  if (plan.stopping.noise_mode() && std::find(columns.begin(), columns.end(), "noise") == columns.end()) {
    columns.emplace_back("noise");  // where the rows that missed the noise target are marked
  }
  for (const std::string& c : columns) {  // statistics of the time phase's samples (-a over ranks)
    if (c == "median")
      t.value_columns.push_back({"median_us", "median", "(us)", 10, CellFormat::time_us, "median (us)", false, "time"});
    if (c == "mean")  // the samples' mean: what the time column showed before the interquartile mean
      t.value_columns.push_back({"mean_us", "mean", "(us)", 10, CellFormat::time_us, "mean (us)", false, "time"});
    if (c == "p99")
      t.value_columns.push_back({"p99_us", "p99", "(us)", 10, CellFormat::time_us, "p99 (us)", false, "time"});
    if (c == "noise")
      t.value_columns.push_back({"noise_pct", "noise", "(+-%)", 6, CellFormat::noise, "noise (+-%)", false, "time"});
    if (c == "device") t.value_columns.push_back(metrics::device_time.column());
    if (c == "samples")
      t.value_columns.push_back({"samples", "samples", "", 7, CellFormat::integer, "samples", false, "time"});
  }
}
}  // namespace

TableLayout collective_table(const SweepPlan& plan) {
  TableLayout t;  // nccl-tests' columns, widths and number formats, then distbench's own (--columns, --show-faults)
  t.nccl_tests_layout = true;
  t.key_columns = {{"bytes", "size", "(B)", 12, CellFormat::integer, "size (B)"},
                   {"count", "count", "(elements)", 12, CellFormat::integer, "count"},
                   {"dtype", "type", "", 8, CellFormat::nccl_type, "type"},
                   {"op", "redop", "", 6, CellFormat::text, "redop"},
                   {"root", "root", "", 6, CellFormat::integer, "root"}};
  if (plan.cycles > 1) {  // 7: the header's "# " sits over its padding; on the console a "# cycle N" line instead
    t.key_columns.insert(t.key_columns.begin(), {"cycle", "cycle", "", 7, CellFormat::integer, "cycle"});
    t.console_section_key = "cycle";
  }
  if (plan.tensors > 1) {  // a list is reduced in place: its columns are one per way of reducing it
    t.split_key = "fusion";
    for (Fusion f : plan.fusions) t.split_values.emplace_back(name(f));
  } else if (plan.timings.size() > 1) {  // a group per placement and method: "out-of-place osu"; on the console
    t.split_key = "placement+timing";    // the first method's two in nccl-tests' places, the others' after them
    for (Placement p : plan.placements) {
      for (Timing m : plan.timings) t.split_values.push_back(fmt::format("{} {}", name(p), name(m)));
    }
    for (Placement p : kNcclTestsPlacements) {
      t.nccl_tests_groups.push_back(fmt::format("{} {}", name(p), name(plan.timings.front())));
    }
  } else {
    t.split_key = "placement";
    for (Placement p : plan.placements) t.split_values.emplace_back(name(p));
    for (Placement p : kNcclTestsPlacements) t.nccl_tests_groups.emplace_back(name(p));  // both, whichever ran
  }
  ColumnSpec time = metrics::time.column();
  if (plan.cpu_time) {  // -C 1: the host clock's time, as nccl-tests titles it
    time.title = "cputime";
    time.md_title = "cputime (us)";
  }
  t.value_columns = {time, metrics::algbw.column(), metrics::busbw.column(), metrics::wrong.column()};
  add_statistic_columns(t, plan);
  if (plan.show_faults) {  // the most over ranks, per operation
    t.value_columns.push_back(metrics::faults.column());
    t.value_columns.push_back(metrics::switches.column());
  }
  for (std::size_t i = kNcclTestsValueColumns; i < t.value_columns.size(); ++i) t.value_columns[i].trailing = true;
  if (plan.timestamps) {  // when the row started (its first case), where nccl-tests' -S puts it: after both groups
    ColumnSpec stamp = metrics::start_time.column();
    stamp.trailing = true;
    stamp.width = 19;  // nccl-tests' "%Y-%m-%d %H:%M:%S" on the console (ColumnSpec: other views write ISO 8601)
    t.key_columns.push_back(stamp);
  }
  return t;
}

namespace {

std::string nccl_tests_footer_line(std::string_view label, std::string_view value) {
  return fmt::format("# {:<20} : {}", label, value);
}

// nccl-tests' "# Avg bus bandwidth    : 2.91667 " (printf's %g, GB/s; then its floor's OK or FAILED, or nothing) and
// the "#" that closes its footer.
std::string nccl_tests_busbw_lines(double avg, std::string_view verdict) {
  return fmt::format("{} {}\n#", nccl_tests_footer_line("Avg bus bandwidth", fmt::format("{:g}", avg)), verdict);
}

}  // namespace

namespace {

// The busbw averaged over records: over all of them, or over one datatype and operator's.
struct Average {
  std::string dtype, op;
  double sum = 0;
  std::size_t n = 0;
};

// What the summary adds up over the measured records.
struct Totals {
  Average all;
  std::vector<Average> by_kind;  // per datatype and operator, in the order measured
  std::size_t checked = 0;       // records that were verified
  double wrong = 0;
};

Totals summary_totals(const std::vector<Record>& records) {
  Totals t;
  for (const Record& r : records) {
    if (!r.ok()) continue;
    if (const double w = r.metric(metrics::wrong.key); std::isfinite(w)) {
      ++t.checked;
      t.wrong += w;
    }
    const double busbw = r.metric(metrics::busbw.key);
    if (!std::isfinite(busbw)) continue;  // nothing moved (one rank, in place)
    t.all.sum += busbw;
    ++t.all.n;
    const std::string dtype = r.param_text("dtype"), op = r.param_text("op");
    auto it = std::find_if(t.by_kind.begin(), t.by_kind.end(),
                           [&](const Average& a) { return a.dtype == dtype && a.op == op; });
    if (it == t.by_kind.end()) it = t.by_kind.insert(t.by_kind.end(), {dtype, op});
    it->sum += busbw;
    ++it->n;
  }
  return t;
}

// nccl-tests' "Out of bounds values" line.
SummaryItem wrong_item(const Totals& t, const std::vector<Record>& records) {
  if (t.checked > 0) {
    const std::string text = fmt::format("{:.0f} {}", t.wrong, t.wrong == 0 ? "OK" : "FAILED");
    return {"wrong", "Wrong elements", t.wrong, text, nccl_tests_footer_line("Out of bounds values", text)};
  }
  // nccl-tests prints "0 OK" under -c 0 and scripts look for it: the same words where something was measured,
  // then that nothing was; "N/A" where nothing was measured at all.
  const bool measured = std::any_of(records.begin(), records.end(), [](const Record& r) { return r.ok(); });
  return {
      "wrong", "Wrong elements", kNotMeasured, "not checked",
      nccl_tests_footer_line("Out of bounds values", measured ? "0 OK (nothing was checked)" : "N/A (not checked)")};
}

// nccl-tests' "Avg bus bandwidth" line.
SummaryItem busbw_item(const Average& all) {
  if (all.n == 0) {
    return {"avg_busbw_gbps", "Avg bus bandwidth", kNotMeasured, "N/A (nothing measured)",
            nccl_tests_footer_line("Avg bus bandwidth", "N/A (nothing measured)") + "\n#"};
  }
  const double avg = all.sum / static_cast<double>(all.n);
  return {"avg_busbw_gbps", "Avg bus bandwidth", avg, fmt::format("{:.2f} GB/s", avg), nccl_tests_busbw_lines(avg, "")};
}

// distbench's own: one datatype and operator's average.
SummaryItem kind_item(const Average& a) {
  const double avg = a.sum / static_cast<double>(a.n);
  const bool reduces = a.op != "none";
  return {reduces ? fmt::format("avg_busbw_gbps.{}.{}", a.dtype, a.op) : fmt::format("avg_busbw_gbps.{}", a.dtype),
          // not "Avg bus bandwidth ...": scripts grep nccl-tests' footer line by those words
          reduces ? fmt::format("Average busbw, {} {}", a.dtype, a.op) : fmt::format("Average busbw, {}", a.dtype), avg,
          fmt::format("{:.2f} GB/s", avg)};
}

}  // namespace

std::vector<SummaryItem> collective_summary(const std::vector<Record>& records) {
  // The average over every measured record, then (with several datatypes or operators) one per datatype and
  // operator, in the order measured: an average over float64 and int8 together says little about either.
  const Totals totals = summary_totals(records);
  // nccl-tests' two footer lines first, as it prints them (scripts parse them), then distbench's own.
  std::vector<SummaryItem> items = {wrong_item(totals, records), busbw_item(totals.all)};
  if (totals.by_kind.size() > 1) {
    for (const Average& a : totals.by_kind) items.push_back(kind_item(a));
  }
  return items;
}

void CollectiveBenchmark::check(World& world) const {
  Connector& connector = world.connector();
  if (connector.is_root()) per_rank_file_->claim();
  const int nranks = static_cast<int>(sweep_partition(plan_, connector.size()).groups.front().size());
  check_root(plan_, nranks);
  check_some_size_fits(plan_, nranks);
  const SweepNeeds needs = sweep_needs(plan_, nranks, world.backend());
  if (const auto limit = world.backend().max_count_per_call(); limit && needs.max_count > *limit) {
    throw usage_error(
        fmt::format("the largest case passes {} elements to one call, over the {} backend's limit of "
                    "{}; lower -e/--maxbytes or use a wider -d/--datatype",
                    needs.max_count, world.backend().name(), *limit));
  }
  if (const auto why = memory_shortfall(needs.memory, memory_share(world.device(), connector.local_size()))) {
    throw usage_error(fmt::format("the sweep {} ({} ranks on {}); lower -e/--maxbytes", *why, connector.local_size(),
                                  connector.hostname()));
  }
}

namespace {

// The console's first lines: what runs where, and how it is sampled.
std::vector<std::string> run_lines(const SweepPlan& plan, const RunInfo& info, const std::vector<Timing>& timings) {
  return {fmt::format("collective: {}   backend: {}   world size: {}   ranks per host: {}{}", name(plan.collective),
                      info.backend, info.world_size, ranks_per_host_text(info.ranks), mpi_threads_text(info)),
          fmt::format("group: {}", group_text(plan, info.world_size)), fmt::format("sweep: {}", sweep_text(plan.sizes)),
          sampling_line(plan, timings)};
}

// Each method's own line, and what several of them, or the peers' call, change.
std::vector<std::string> method_lines(const SweepPlan& plan, const RunInfo& info, const std::vector<Timing>& timings) {
  const bool on_device = runs_on_device(info.backend);
  std::vector<std::string> lines;
  for (Timing timing : timings) lines.push_back(timing_method(timing).timing_text(plan, on_device));
  if (timings.size() > 1) {
    lines.push_back(
        fmt::format("methods: each case timed {} in turn, one after the other on the same buffers; a column group each",
                    join_names(timings)));
  }
  if (plan.collective == Collective::reduce_scatter &&
      std::any_of(timings.begin(), timings.end(), [&](Timing t) { return peers_call_form(t, info.backend); })) {
    lines.emplace_back(
        "call: MPI_Reduce_scatter with equal counts, as the peers call it (distbench's own "
        "timing calls MPI_Reduce_scatter_block, NCCL's shape; Open MPI runs the two "
        "through different algorithms)");
  }
  return lines;
}

// The lines of the options that change what a run is: cycles, a list of tensors, memory, malloc.
std::vector<std::string> option_lines(const SweepPlan& plan, const RunInfo& info) {
  std::vector<std::string> lines;
  if (plan.cycles > 1) lines.push_back(fmt::format("cycles: the sweep {} times (-N)", plan.cycles));
  if (plan.tensors > 1) {
    lines.push_back(fmt::format(
        "tensors: a list of {} tensors of S/{} per operation, in place: per-tensor = one allreduce each; fused = "
        "packed into one buffer, one allreduce, unpacked (pack and unpack timed as phases in the reports)",
        plan.tensors, plan.tensors));
  }
  const std::uint64_t largest = plan.sizes.empty() ? 0 : *std::max_element(plan.sizes.begin(), plan.sizes.end());
  if (std::string memory = host_memory_text(info, largest); !memory.empty()) lines.push_back(std::move(memory));
  if (plan.malloc_reuse) lines.emplace_back("malloc: --malloc-reuse (M_MMAP_MAX=0: freed memory stays mapped)");
  return lines;
}

// The summary: nccl-tests' footer, and the floor's verdict where its word goes (NCCL_TESTS_MIN_BW's place).
std::vector<SummaryItem> summary_with_floor(const std::vector<Record>& records, const BandwidthFloor& floor) {
  std::vector<SummaryItem> items = collective_summary(records);
  if (!floor.active()) return items;
  const FloorVerdict v = judge_floor(records, floor);
  for (SummaryItem& item : items) {
    if (item.key == "avg_busbw_gbps" && std::isfinite(item.value)) {
      item.console = nccl_tests_busbw_lines(item.value, v.ok ? "OK" : "FAILED");
    }
  }
  items.push_back({"bandwidth_floor_ok", "Bandwidth floor", v.ok ? 1.0 : 0.0,
                   fmt::format("{}: {}", v.ok ? "OK" : "FAILED", v.text)});
  return items;
}

}  // namespace

RunDescription CollectiveBenchmark::describe(const RunInfo& info) const {
  const SweepPlan& plan = plan_;
  RunDescription d;
  d.benchmark = "collective";
  d.title = std::string(name(plan.collective));
  d.config = collective_config(plan, info.backend);
  const bool on_device = runs_on_device(info.backend);
  const std::vector<Timing> timings = resolved_timings(plan, on_device);
  d.records = collective_record_layout({.tensor_list = plan.tensors > 1,
                                        .cycles = plan.cycles > 1,
                                        .timings = timings.size() > 1,
                                        .timestamps = plan.timestamps,
                                        .device_beside = times_by(plan, Timing::nccl_tests, on_device) && on_device});
  d.table = collective_table(plan);
  d.plots = {{metrics::busbw.key, ""}, {metrics::time.key, "time"}};
  d.per_rank = plan.per_rank.policy();
  for (auto lines : {run_lines(plan, info, timings), method_lines(plan, info, timings), option_lines(plan, info)}) {
    d.console_preamble.insert(d.console_preamble.end(), lines.begin(), lines.end());
  }
  d.facts = {fmt::format("backend {}", info.backend),
             fmt::format("{} ranks, per host: {}", info.world_size, ranks_per_host_text(info.ranks)),
             group_text(plan, info.world_size),
             sweep_text(plan.sizes),
             fmt::format("samples: {}", samples_text(plan.stopping)),
             fmt::format("time: {}", time_statistic_text(name(timings.front()), plan.average))};
  d.summarize = [floor = plan.floor](const std::vector<Record>& records) { return summary_with_floor(records, floor); };
  return d;
}

BenchmarkOutcome CollectiveBenchmark::run(World& world, Watchdog& watchdog, Reporter* reporter,
                                          const ProgressFn& progress) {
  Connector& connector = world.connector();
  std::vector<std::string> hosts;
  {
    const ArmedStep step = watchdog.arm(StepKind::setup, "gathering the ranks' hosts");
    hosts = allgather_string(connector, connector.hostname(), step);
  }
  if (connector.is_root()) per_rank_file_->begin("collective", hosts);
  // Root rank: every row's records for the floor, without their ranks' figures (the reporters keep what --per-rank
  // asks for, the side file all of them).
  std::vector<Record> records;
  auto on_row = [this, reporter, &hosts, &records](const std::vector<CaseResult>& row) {
    std::vector<Record> made = collective_records(row, hosts);
    per_rank_file_->add(made);
    if (reporter != nullptr) reporter->add(made);
    for (Record& r : made) {
      std::vector<RankFigures>().swap(r.ranks);
      records.push_back(std::move(r));
    }
  };
  SweepOutcome sweep = run_sweep(world, plan_, watchdog, on_row, progress);
  if (connector.is_root()) per_rank_file_->finish();
  BenchmarkOutcome outcome;
  outcome.wrong = sweep.wrong;
  outcome.warnings = std::move(sweep.warnings);
  outcome.facts = std::move(sweep.facts);
  if (connector.is_root() && plan_.blocks_given &&
      !times_by(plan_, Timing::nccl_tests, runs_on_device(world.backend().name()))) {
    outcome.warnings.push_back({"option_ignored", fmt::format("--blocks ignored: the {} backend's cases were timed by "
                                                              "samples (--timing sampled); add --timing nccl-tests to "
                                                              "time them in blocks",
                                                              world.backend().name())});
  }
  if (connector.is_root() && plan_.floor.active()) {
    const FloorVerdict v = judge_floor(records, plan_.floor);
    if (!v.ok) outcome.below_floor = v.text;
  }
  return outcome;
}

}  // namespace distbench::collective
