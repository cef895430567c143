#include "benchmarks/collective/sweep.hpp"

#include "benchmarks/collective/aggregate.hpp"
#include "benchmarks/collective/case_geometry.hpp"
#include "benchmarks/collective/measure.hpp"
#include "benchmarks/collective/sweep_checker.hpp"
#include "benchmarks/collective/sweep_warnings.hpp"
#include "benchmarks/collective/timing_method.hpp"
#include "core/comm/buffer_pages.hpp"
#include "core/comm/phase_over_ranks.hpp"
#include "core/error.hpp"
#include "core/measure/sizes.hpp"
#include "core/sys/deadline.hpp"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <optional>

namespace distbench::collective {
namespace {

// One row of the table: a (dtype, op, size, root) the sweep measures, with its sizes worked out once.
struct Row {
  DType dtype;
  ReduceOp op;
  int root;           // group rank; -1 for collectives without one
  CaseGeometry size;  // this rank's
};

// The roots a row runs with: the plan's, every rank of the group in turn (-r -1), or none (-1) when unrooted.
std::vector<int> plan_roots(const SweepPlan& plan, int nranks) {
  if (!is_rooted(plan.collective)) return {-1};
  if (plan.root != kAllRoots) return {plan.root};
  std::vector<int> roots(static_cast<std::size_t>(nranks));
  for (int r = 0; r < nranks; ++r) roots[static_cast<std::size_t>(r)] = r;
  return roots;
}

// One column group of a row: a placement, or for a --tensors list (in place) a way of reducing it; with several
// methods (--timing a,b), each placement once per method, the methods next to each other.
struct Variant {
  Placement placement = Placement::in_place;
  std::optional<Fusion> fusion;
  Timing timing = Timing::sampled;  // resolved
};

std::vector<Variant> plan_variants(const SweepPlan& plan, bool runs_on_device) {
  std::vector<Variant> out;
  if (plan.tensors > 1) {
    for (Fusion f : plan.fusions) out.push_back({Placement::in_place, f, Timing::sampled});
  } else {
    const std::vector<Timing> timings = resolved_timings(plan, runs_on_device);
    for (Placement p : plan.placements) {
      for (Timing t : timings) out.push_back({p, std::nullopt, t});
    }
  }
  return out;
}

// The rows of the plan as rank `rank` of a group of `nranks` runs them (the sizes too small to give every rank an
// element, or each tensor of a list one, left out).
std::vector<Row> plan_rows(const SweepPlan& plan, int nranks, int rank) {
  std::vector<Row> rows;
  const bool reduces = is_reduction(plan.collective);
  for (DType dtype : plan.dtypes) {
    const std::vector<ReduceOp> ops = reduces ? plan.ops : std::vector<ReduceOp>{ReduceOp::sum};
    for (ReduceOp op : ops) {
      if (reduces && !defined_for(op, dtype)) continue;
      for (std::uint64_t asked : plan.sizes) {
        const CaseGeometry size = case_geometry(plan.collective, dtype, asked, nranks, rank);
        if (size.count == 0 || size.count < static_cast<std::size_t>(plan.tensors)) continue;
        for (int root : plan_roots(plan, nranks)) rows.push_back({dtype, op, root, size});
      }
    }
  }
  return rows;
}

bool has_placement(const SweepPlan& plan, Placement p) {
  return std::find(plan.placements.begin(), plan.placements.end(), p) != plan.placements.end();
}

// Largest send and one-buffer (in-place) extents in bytes over the plan's rows.
struct Extents {
  std::size_t send = 0;
  std::size_t recv = 0;
};

Extents buffer_extents(const SweepPlan& plan, const std::vector<Row>& rows) {
  Extents e;
  const bool in_place = has_placement(plan, Placement::in_place);
  const bool out_of_place = has_placement(plan, Placement::out_of_place);
  for (const auto& row : rows) {
    if (out_of_place) e.send = std::max(e.send, row.size.send_bytes());
    e.recv = std::max(e.recv, in_place ? row.size.in_place_bytes() : row.size.recv_bytes());
  }
  return e;
}

std::uint64_t buffer_bytes(const Extents& e) { return add_saturating(e.send, e.recv); }

// Whether the in-place positions differ from rank to rank (one buffer position cannot serve several GPUs then).
bool in_place_moves_with_rank(Collective c) {
  const auto first = buffer_shape(c, 1, 2, 0);
  const auto second = buffer_shape(c, 1, 2, 1);
  return first.in_place_send_offset != second.in_place_send_offset ||
         first.in_place_recv_offset != second.in_place_recv_offset;
}

std::string case_label(const SweepPlan& plan, const Row& row, const Variant& variant) {
  std::string label = fmt::format("{} {} {}", name(plan.collective), format_bytes(row.size.asked), name(row.dtype));
  if (is_reduction(plan.collective)) label += fmt::format(" {}", name(row.op));
  if (plan.root == kAllRoots && row.root >= 0) label += fmt::format(" root {}", row.root);
  if (variant.fusion) return fmt::format("{} as {} tensors, {}", label, plan.tensors, name(*variant.fusion));
  if (plan.timings.size() > 1) {
    return fmt::format("{} {}, {} timing", label, name(variant.placement), name(variant.timing));
  }
  return fmt::format("{} {}", label, name(variant.placement));
}

// A case's result before it is measured: what it is (the record's parameters).
CaseResult blank_result(const SweepPlan& plan, const Row& row, const Variant& variant, std::string_view backend,
                        const Partition& partition, int nranks) {
  CaseResult r;
  r.collective = std::string(name(plan.collective));
  r.backend = std::string(backend);
  r.dtype = std::string(name(row.dtype));
  r.op = is_reduction(plan.collective) ? std::string(name(row.op)) : "none";
  r.placement = std::string(name(variant.placement));
  r.root = row.root;
  r.count = row.size.count;
  r.bytes = row.size.message;
  r.nranks = nranks;
  r.group = partition.label;
  r.groups = static_cast<int>(partition.groups.size());
  if (variant.fusion) {
    r.tensors = plan.tensors;
    r.fusion = std::string(name(*variant.fusion));
  }
  r.timing = std::string(name(variant.timing));
  r.timing_param = plan.timings.size() > 1;
  return r;
}

// The call's buffers: in place both positions in the receive buffer, the whole region it uses poisoned before a
// check; out of place each buffer from its start.
void place_buffers(CaseSetup& s, Placement placement, Buffer* send_buffer, Buffer* recv_buffer) {
  const CaseGeometry& g = s.size;
  if (placement == Placement::in_place) {
    s.call.send = {recv_buffer, g.shape.in_place_send_offset * g.elem};
    s.call.recv = {recv_buffer, g.shape.in_place_recv_offset * g.elem};
    s.poison_at = {recv_buffer, 0};
    s.recv_bytes = g.in_place_bytes();
  } else {
    s.call.send = {send_buffer, 0};
    s.call.recv = {recv_buffer, 0};
    s.poison_at = s.call.recv;
    s.recv_bytes = g.recv_bytes();
  }
}

CaseSetup make_setup(const SweepPlan& plan, const Row& row, const Variant& variant, Buffer* send_buffer,
                     Buffer* recv_buffer, int nranks) {
  CaseSetup s;
  s.call.collective = plan.collective;
  s.call.count = row.size.count;
  s.call.dtype = row.dtype;
  s.call.op = row.op;
  s.call.root = std::max(row.root, 0);
  s.size = row.size;
  s.pattern = make_pattern(plan.collective, row.op, row.dtype, nranks);
  s.label = case_label(plan, row, variant);
  s.timing = variant.timing;
  if (variant.fusion) {
    s.tensors = plan.tensors;
    s.fused = *variant.fusion == Fusion::fused;
  }
  place_buffers(s, variant.placement, send_buffer, recv_buffer);
  return s;
}

// The cases nccl-tests' timing warms up before the rows of one element type and operator that start at `first`:
// every size from their smallest to their largest, doubling (all_reduce_perf's warm-up, whatever -f), at the first
// buffer position, out of place unless the plan runs in place only. None where that placement cannot run.
std::vector<CaseSetup> warm_up_setups(const SweepPlan& plan, const std::vector<Row>& rows, std::size_t first,
                                      const Communicator& comm, Buffer* send_buffer, Buffer* recv_buffer, int nranks) {
  const Row& head = rows[first];
  const bool out_of_place = has_placement(plan, Placement::out_of_place);
  const Variant variant{out_of_place ? Placement::out_of_place : Placement::in_place, std::nullopt};
  if (comm.unsupported(plan.collective, head.dtype, head.op) ||
      (!out_of_place && comm.local_parts() > 1 && in_place_moves_with_rank(plan.collective))) {
    return {};
  }
  std::uint64_t smallest = head.size.asked, largest = head.size.asked;
  for (std::size_t i = first; i < rows.size() && rows[i].dtype == head.dtype && rows[i].op == head.op; ++i) {
    smallest = std::min(smallest, rows[i].size.asked);
    largest = std::max(largest, rows[i].size.asked);
  }
  std::vector<CaseSetup> out;
  for (const std::uint64_t asked : size_sweep(smallest, largest, 2.0, 0)) {
    Row row = head;
    row.size = case_geometry(plan.collective, head.dtype, asked, nranks, comm.rank());
    if (row.size.count > 0) out.push_back(make_setup(plan, row, variant, send_buffer, recv_buffer, nranks));
  }
  return out;
}

// "cycle 2/3: allreduce ..." when the sweep runs several times.
std::string cycle_label(const SweepPlan& plan, int cycle, std::string label) {
  if (plan.cycles <= 1) return label;
  return fmt::format("cycle {}/{}: {}", cycle + 1, plan.cycles, label);
}

double unix_seconds_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

std::string_view name(Fusion f) { return f == Fusion::fused ? "fused" : "per-tensor"; }

std::string_view name(Timing t) {
  switch (t) {
    case Timing::sampled: return "sampled";
    case Timing::nccl_tests: return "nccl-tests";
    case Timing::osu: return "osu";
    case Timing::imb: return "imb";
    case Timing::automatic: break;
  }
  return "auto";
}

Timing resolve(Timing asked, bool runs_on_device) {
  if (asked != Timing::automatic) return asked;
  return runs_on_device ? Timing::nccl_tests : Timing::sampled;
}

HostPlacement buffer_placement(const SweepPlan& plan) {
  const bool page_aligned = std::any_of(plan.timings.begin(), plan.timings.end(), [](Timing t) {
    return t != Timing::automatic && timing_method(t).page_aligned_buffers();
  });
  return page_aligned ? HostPlacement::page_start : HostPlacement::malloc;
}

std::vector<Timing> resolved_timings(const SweepPlan& plan, bool runs_on_device) {
  std::vector<Timing> out;
  for (Timing t : plan.timings) out.push_back(resolve(t, runs_on_device));
  return out;
}

bool times_by(const SweepPlan& plan, Timing t, bool runs_on_device) {
  const std::vector<Timing> all = resolved_timings(plan, runs_on_device);
  return std::find(all.begin(), all.end(), t) != all.end();
}

Partition sweep_partition(const SweepPlan& plan, int world_size) {
  return plan.group_size > 0 ? consecutive_partition(world_size, plan.group_size) : world_partition(world_size);
}

void check_root(const SweepPlan& plan, int nranks) {
  if (is_rooted(plan.collective) && plan.root != kAllRoots && (plan.root < 0 || plan.root >= nranks)) {
    throw usage_error(fmt::format(
        "-r/--root {} is outside the group of {} ranks; pick a root in 0..{}, or -1 for each of them in turn",
        plan.root, nranks, nranks - 1));
  }
}

void check_some_size_fits(const SweepPlan& plan, int nranks) {
  if (plan.sizes.empty() || !plan_rows(plan, nranks, 0).empty()) return;
  SweepPlan one = plan;
  one.sizes = {1};
  while (plan_rows(one, nranks, 0).empty() && one.sizes[0] < (std::uint64_t{1} << 40)) one.sizes[0] *= 2;
  throw usage_error(
      fmt::format("every size from {} B to {} B is too small to give each of the {} ranks {}; the "
                  "smallest that does is {} B: raise -e/--maxbytes",
                  plan.sizes.front(), plan.sizes.back(), nranks,
                  plan.tensors > 1 ? "an element of each tensor" : "an element", one.sizes[0]));
}

std::uint64_t sweep_buffer_bytes(const SweepPlan& plan, int nranks) {
  return buffer_bytes(buffer_extents(plan, plan_rows(plan, nranks, 0)));
}

SweepNeeds sweep_needs(const SweepPlan& plan, int nranks, const Backend& backend) {
  SweepNeeds needs;
  const auto rows = plan_rows(plan, nranks, 0);  // the counts are every rank's
  std::uint64_t largest = 0;
  for (const auto& row : rows) {
    needs.max_count = std::max(needs.max_count, row.size.count);
    largest = std::max<std::uint64_t>(largest, row.size.asked);
    for (const Placement p : plan.placements) {
      needs.memory.library =
          std::max(needs.memory.library,
                   backend.library_scratch_bytes(plan.collective, p == Placement::in_place, row.size.asked, nranks));
    }
  }
  needs.memory.buffers = buffer_bytes(buffer_extents(plan, rows));
  // the fused variant of --tensors packs the list into one more buffer of S
  if (plan.tensors > 1) needs.memory.buffers = add_saturating(needs.memory.buffers, largest);
  return needs;
}

namespace {

// What the sweep runs on: its group, its rows, its buffers and communicator, the column groups of every row.
struct SweepSetup {
  Partition partition;
  int nranks = 0;
  std::vector<Row> rows;
  std::unique_ptr<Buffer> send_buffer, recv_buffer;
  Communicator* comm = nullptr;
  std::vector<Variant> variants;
  bool root = false;  // this rank reports
};

// The buffers before the communicators, in all_reduce_perf's order, so that on a GPU both tools' buffers and the
// library's own memory are allocated alike (where memory lies can move a GPU's times by several percent).
// Host buffers at a page boundary where OSU's method times them, as osu_* allocates its buffers (posix_memalign at
// the page size); else 16 B past one, as malloc places IMB's: the offset alone moves small messages' times.
SweepSetup allocate_sweep(World& world, const SweepPlan& plan, Watchdog& watchdog) {
  Connector& connector = world.connector();
  SweepSetup s;
  s.partition = sweep_partition(plan, connector.size());
  s.nranks = static_cast<int>(s.partition.members_of(connector.rank()).size());
  check_root(plan, s.nranks);
  // The group rank here is the communicator's (only the in-place offsets depend on it; where they differ between
  // ranks, a process driving several GPUs skips in place).
  s.rows = plan_rows(plan, s.nranks, s.partition.rank_in_group(connector.rank()));
  const Extents extents = buffer_extents(plan, s.rows);
  const HostPlacement placement = buffer_placement(plan);
  s.send_buffer = world.device().allocate_placed(extents.send, placement);
  s.recv_buffer = world.device().allocate_placed(extents.recv, placement);
  {
    const ArmedStep step =
        watchdog.arm(StepKind::setup, fmt::format("creating the {} communicators", s.partition.label));
    s.comm = &world.communicator(s.partition, step);
  }
  s.variants = plan_variants(plan, s.comm->runs_on_device());
  s.root = connector.is_root();
  return s;
}

// The outcome before any case: the buffers' huge pages, and on the root what the user should know already.
SweepOutcome sweep_opening(World& world, const SweepPlan& plan, Watchdog& watchdog, const SweepSetup& s) {
  SweepOutcome outcome;
  outcome.facts = buffer_huge_pages_fact(world, {s.send_buffer.get(), s.recv_buffer.get()}, watchdog);
  if (!s.root) return outcome;
  outcome.warnings.insert(outcome.warnings.end(), plan.ignored_options.begin(), plan.ignored_options.end());
  if (s.rows.size() < plan.sizes.size() * plan.dtypes.size() * plan_roots(plan, s.nranks).size()) {
    outcome.warnings.push_back(
        {"small_sizes_skipped",
         fmt::format("sizes too small to give every one of the {} ranks an element were skipped", s.nranks)});
  }
  return outcome;
}

// nccl-tests' warm-up of every size, before the first row of each element type and operator (first cycle only).
void warm_up_sizes_first(const SweepPlan& plan, Watchdog& watchdog, const SweepSetup& s, std::size_t i) {
  const std::vector<Timing> timings = resolved_timings(plan, s.comm->runs_on_device());
  const bool sweep_warm_up = plan.tensors <= 1 && std::any_of(timings.begin(), timings.end(), [](Timing t) {
                               return timing_method(t).warms_up_sizes();
                             });
  const std::vector<Row>& rows = s.rows;
  if (!sweep_warm_up || i >= rows.size()) return;
  if (i > 0 && rows[i - 1].dtype == rows[i].dtype && rows[i - 1].op == rows[i].op) return;
  warm_up_sizes(*s.comm, plan, watchdog,
                warm_up_setups(plan, rows, i, *s.comm, s.send_buffer.get(), s.recv_buffer.get(), s.nranks));
}

// Why a case cannot run here, if it cannot.
std::optional<std::string> case_skip_reason(const SweepPlan& plan, const SweepSetup& s, const Row& row,
                                            const Variant& variant) {
  if (variant.placement == Placement::in_place && s.comm->local_parts() > 1 &&
      in_place_moves_with_rank(plan.collective)) {
    return "in-place with several GPUs per process (-g) is not supported for this collective";
  }
  return s.comm->unsupported(plan.collective, row.dtype, row.op);
}

// One case's figures on the root: each phase's samples reduced along a tree, and each rank's OS counters.
struct GatheredCase {
  ReducedPhase time;
  std::vector<std::vector<OsCounters>> os_by_rank;
  std::vector<ReducedPhase> list_phases;  // fused lists
  std::optional<ReducedPhase> device;     // nccl-tests' timing: the device's events beside
};

// What reaches the root is O(ranks) small figures (each rank's means and OS counters) and each phase's samples
// reduced along a tree, never every rank's samples: the law is in docs/reports.md,
// "Large jobs: what a record keeps of each rank".
GatheredCase gather_case(Connector& connector, const SweepPlan& plan, Watchdog& watchdog, const std::string& label,
                         const Sampling& sampling) {
  static constexpr const char* kListPhases[] = {"pack", "allreduce", "unpack"};
  GatheredCase g;
  const ArmedStep step = watchdog.arm(StepKind::gather, label + ": gathering samples");
  const int to = connector.root_rank();
  // past the watchdog's own bound, so that a rank that stops answering is named by the watchdog
  const auto deadline = deadline_after(2 * watchdog.timeout_s());
  g.time = reduce_phase_over_ranks(connector, "time", sampling.samples, plan.average, to, step, deadline);
  g.os_by_rank = gather_vector<OsCounters>(connector, std::span(&sampling.os_per_op, 1), to, step);
  for (std::size_t p = 0; p < sampling.phase_samples.size() && p < std::size(kListPhases); ++p) {
    g.list_phases.push_back(reduce_phase_over_ranks(connector, kListPhases[p], sampling.phase_samples[p], plan.average,
                                                    to, step, deadline));
  }
  if (!sampling.beside_samples.empty()) {  // every rank times the same way
    g.device = reduce_phase_over_ranks(connector, "device", sampling.beside_samples, plan.average, to, step, deadline);
  }
  return g;
}

// The root's result of a measured case, from what was gathered.
void aggregate_case(const SweepPlan& plan, const SweepSetup& s, const Variant& variant, const Measured& m,
                    GatheredCase g, CaseResult& result) {
  result.ops_per_sample = m.sampling.ops_per_sample;
  result.wrong = m.wrong;
  result.noise_target_met = m.sampling.noise_target_met;
  result.moves_nothing = s.nranks == 1 && variant.placement == Placement::in_place && !variant.fusion &&
                         !s.comm->copies_in_place(plan.collective);
  aggregate_phase(std::move(g.time), plan.average, plan.collective, result);
  if (g.device) {
    result.device_time_shown = pick(plan.average, g.device->stats.rank_spread);
    result.phases.push_back(std::move(g.device->stats));
  }
  for (const auto& counters : g.os_by_rank) result.os_per_op.push_back(counters.at(0));
  for (ReducedPhase& phase : g.list_phases) result.phases.push_back(std::move(phase.stats));
}

// One row: each column group skipped with its reason or measured, gathered and (on the root) aggregated.
std::vector<CaseResult> measure_row(World& world, const SweepPlan& plan, Watchdog& watchdog, const SweepSetup& s,
                                    const Row& row, int cycle, std::int64_t& wrong) {
  std::vector<CaseResult> done;
  for (const Variant& variant : s.variants) {
    CaseResult result = blank_result(plan, row, variant, s.comm->backend(), s.partition, s.nranks);
    if (plan.cycles > 1) result.cycle = cycle + 1;
    if (plan.timestamps) result.start_time_s = unix_seconds_now();
    if (auto reason = case_skip_reason(plan, s, row, variant)) {
      result.status = "skipped";
      result.skip_reason = std::move(*reason);
      done.push_back(std::move(result));
      continue;
    }
    const CaseSetup setup = make_setup(plan, row, variant, s.send_buffer.get(), s.recv_buffer.get(), s.nranks);
    const Measured m = measure_case(world, *s.comm, plan, watchdog, setup);
    GatheredCase gathered = gather_case(world.connector(), plan, watchdog, setup.label, m.sampling);
    wrong += std::max<std::int64_t>(m.wrong, 0);
    if (!s.root) continue;
    aggregate_case(plan, s, variant, m, std::move(gathered), result);
    done.push_back(std::move(result));
  }
  return done;
}

// The root hands the row to the reporters and keeps each case without its ranks' figures for the warnings at the
// end, so that it holds O(cases).
void report_row(Watchdog& watchdog, const RowFn& on_row, const std::string& label, std::vector<CaseResult> done,
                SweepOutcome& outcome) {
  const ArmedStep step = watchdog.arm(StepKind::report, label + ": writing the results");
  if (on_row) on_row(done);
  for (CaseResult& r : done) outcome.results.push_back(without_rank_figures(std::move(r)));
}

}  // namespace

SweepOutcome run_sweep(World& world, const SweepPlan& plan, Watchdog& watchdog, const RowFn& on_row,
                       const ProgressFn& progress) {
  const SweepSetup s = allocate_sweep(world, plan, watchdog);
  check_sweep_checker(world, plan, watchdog, s.nranks, s.comm->rank());
  SweepOutcome outcome = sweep_opening(world, plan, watchdog, s);
  const std::size_t total = s.rows.size() * static_cast<std::size_t>(plan.cycles);
  for (std::size_t i = 0; i < total; ++i) {
    const Row& row = s.rows[i % s.rows.size()];
    const int cycle = static_cast<int>(i / s.rows.size());
    const std::string label = cycle_label(plan, cycle, case_label(plan, row, s.variants.front()));
    if (s.root && progress) progress(i, total, label);
    warm_up_sizes_first(plan, watchdog, s, i);
    std::vector<CaseResult> done = measure_row(world, plan, watchdog, s, row, cycle, outcome.wrong);
    if (s.root) report_row(watchdog, on_row, label, std::move(done), outcome);
  }
  if (s.root && progress) progress(total, total, "");
  if (s.root) {
    const auto warnings = sweep_warnings(outcome.results, plan);
    outcome.warnings.insert(outcome.warnings.end(), warnings.begin(), warnings.end());
  }
  return outcome;
}

}  // namespace distbench::collective
