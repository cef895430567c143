#include "benchmarks/collective/sweep.hpp"

#include "benchmarks/collective/aggregate.hpp"
#include "benchmarks/collective/measure.hpp"
#include "benchmarks/collective/sweep_warnings.hpp"
#include "core/comm/deadline.hpp"
#include "core/comm/phase_over_ranks.hpp"
#include "core/device/buffer_pages.hpp"
#include "core/error.hpp"
#include "core/measure/sizes.hpp"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <optional>

namespace distbench::collective {
namespace {

struct Row {
  DType dtype;
  ReduceOp op;
  std::uint64_t size;  // bytes asked for
  std::size_t count;   // call count
  int root;            // group rank; -1 for collectives without one
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

std::vector<Row> plan_rows(const SweepPlan& plan, int nranks) {
  std::vector<Row> rows;
  const bool reduces = is_reduction(plan.collective);
  for (DType dtype : plan.dtypes) {
    const std::vector<ReduceOp> ops = reduces ? plan.ops : std::vector<ReduceOp>{ReduceOp::sum};
    for (ReduceOp op : ops) {
      if (reduces && !defined_for(op, dtype)) continue;
      for (std::uint64_t size : plan.sizes) {
        const std::size_t count = call_count(plan.collective, size / size_of(dtype), nranks);
        if (count == 0 || count < static_cast<std::size_t>(plan.tensors)) continue;
        for (int root : plan_roots(plan, nranks)) rows.push_back({dtype, op, size, count, root});
      }
    }
  }
  return rows;
}

// Largest send and one-buffer (in-place) extents in bytes over the plan's rows.
struct Extents {
  std::size_t send = 0;
  std::size_t recv = 0;
};

Extents buffer_extents(const SweepPlan& plan, const std::vector<Row>& rows, int nranks) {
  Extents e;
  const bool in_place =
      std::find(plan.placements.begin(), plan.placements.end(), Placement::in_place) != plan.placements.end();
  const bool out_of_place =
      std::find(plan.placements.begin(), plan.placements.end(), Placement::out_of_place) != plan.placements.end();
  for (const auto& row : rows) {
    const auto shape = buffer_shape(plan.collective, row.count, nranks, 0);
    const std::size_t elem = size_of(row.dtype);
    if (out_of_place) e.send = std::max(e.send, shape.send_count * elem);
    e.recv = std::max(e.recv, (in_place ? std::max(shape.send_count, shape.recv_count) : shape.recv_count) * elem);
  }
  return e;
}

// Whether the in-place positions differ from rank to rank (one buffer position cannot serve several GPUs then).
bool in_place_moves_with_rank(Collective c) {
  const auto first = buffer_shape(c, 1, 2, 0);
  const auto second = buffer_shape(c, 1, 2, 1);
  return first.in_place_send_offset != second.in_place_send_offset ||
         first.in_place_recv_offset != second.in_place_recv_offset;
}

std::string case_label(const SweepPlan& plan, const Row& row, const Variant& variant) {
  std::string label = fmt::format("{} {} {}", name(plan.collective), format_bytes(row.size), name(row.dtype));
  if (is_reduction(plan.collective)) label += fmt::format(" {}", name(row.op));
  if (plan.root == kAllRoots && row.root >= 0) label += fmt::format(" root {}", row.root);
  if (variant.fusion) return fmt::format("{} as {} tensors, {}", label, plan.tensors, name(*variant.fusion));
  if (plan.timings.size() > 1) {
    return fmt::format("{} {}, {} timing", label, name(variant.placement), name(variant.timing));
  }
  return fmt::format("{} {}", label, name(variant.placement));
}

CaseResult describe(const SweepPlan& plan, const Row& row, const Variant& variant, std::string_view backend,
                    const Partition& partition, int nranks) {
  const Placement placement = variant.placement;
  CaseResult r;
  r.collective = std::string(name(plan.collective));
  r.backend = std::string(backend);
  r.dtype = std::string(name(row.dtype));
  r.op = is_reduction(plan.collective) ? std::string(name(row.op)) : "none";
  r.placement = std::string(name(placement));
  r.root = row.root;
  r.count = row.count;
  r.bytes = message_elements(plan.collective, row.count, nranks) * size_of(row.dtype);
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

CaseSetup make_setup(const SweepPlan& plan, const Row& row, const Variant& variant, Buffer* send_buffer,
                     Buffer* recv_buffer, int rank, int nranks) {
  const Placement placement = variant.placement;
  const std::size_t elem = size_of(row.dtype);
  const auto shape = buffer_shape(plan.collective, row.count, nranks, rank);
  CaseSetup s;
  s.call.collective = plan.collective;
  s.call.count = row.count;
  s.call.dtype = row.dtype;
  s.call.op = row.op;
  s.call.root = std::max(row.root, 0);
  s.send_count = shape.send_count;
  s.pattern = make_pattern(plan.collective, row.op, row.dtype, nranks);
  s.label = case_label(plan, row, variant);
  s.bytes = row.size;
  s.timing = variant.timing;
  if (variant.fusion) {
    s.tensors = plan.tensors;
    s.fused = *variant.fusion == Fusion::fused;
  }
  if (placement == Placement::in_place) {
    s.call.send = {recv_buffer, shape.in_place_send_offset * elem};
    s.call.recv = {recv_buffer, shape.in_place_recv_offset * elem};
    s.poison_at = {recv_buffer, 0};
    s.recv_bytes = std::max(shape.send_count, shape.recv_count) * elem;
  } else {
    s.call.send = {send_buffer, 0};
    s.call.recv = {recv_buffer, 0};
    s.poison_at = s.call.recv;
    s.recv_bytes = shape.recv_count * elem;
  }
  return s;
}

// The cases nccl-tests' timing warms up before the rows of one element type and operator that start at `first`:
// every size from their smallest to their largest, doubling (all_reduce_perf's warm-up, whatever -f), at the first
// buffer position, out of place unless the plan runs in place only. None where that placement cannot run.
std::vector<CaseSetup> warm_up_setups(const SweepPlan& plan, const std::vector<Row>& rows, std::size_t first,
                                      const Communicator& comm, Buffer* send_buffer, Buffer* recv_buffer,
                                      int nranks) {
  const Row& head = rows[first];
  const bool out_of_place = std::find(plan.placements.begin(), plan.placements.end(), Placement::out_of_place) !=
                            plan.placements.end();
  const Variant variant{out_of_place ? Placement::out_of_place : Placement::in_place, std::nullopt};
  if (comm.unsupported(plan.collective, head.dtype, head.op) ||
      (!out_of_place && comm.local_parts() > 1 && in_place_moves_with_rank(plan.collective))) {
    return {};
  }
  std::uint64_t smallest = head.size, largest = head.size;
  for (std::size_t i = first; i < rows.size() && rows[i].dtype == head.dtype && rows[i].op == head.op; ++i) {
    smallest = std::min(smallest, rows[i].size);
    largest = std::max(largest, rows[i].size);
  }
  std::vector<CaseSetup> out;
  for (const std::uint64_t size : size_sweep(smallest, largest, 2.0, 0)) {
    Row row = head;
    row.size = size;
    row.count = call_count(plan.collective, size / size_of(head.dtype), nranks);
    if (row.count > 0) out.push_back(make_setup(plan, row, variant, send_buffer, recv_buffer, comm.rank(), nranks));
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
  const bool osu = std::find(plan.timings.begin(), plan.timings.end(), Timing::osu) != plan.timings.end();
  return osu ? HostPlacement::page_start : HostPlacement::malloc;
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

std::uint64_t sweep_buffer_bytes(const SweepPlan& plan, int nranks) {
  const auto e = buffer_extents(plan, plan_rows(plan, nranks), nranks);
  return add_saturating(e.send, e.recv);
}

SweepNeeds sweep_needs(const SweepPlan& plan, int nranks, const Backend& backend) {
  SweepNeeds needs;
  const auto rows = plan_rows(plan, nranks);
  std::uint64_t largest = 0;
  for (const auto& row : rows) {
    needs.max_count = std::max(needs.max_count, row.count);
    largest = std::max<std::uint64_t>(largest, row.size);
    for (const Placement p : plan.placements) {
      needs.memory.library = std::max(needs.memory.library, backend.library_scratch_bytes(
                                                                plan.collective, p == Placement::in_place, row.size,
                                                                nranks));
    }
  }
  needs.memory.buffers = sweep_buffer_bytes(plan, nranks);
  // the fused variant of --tensors packs the list into one more buffer of S
  if (plan.tensors > 1) needs.memory.buffers = add_saturating(needs.memory.buffers, largest);
  return needs;
}

SweepOutcome run_sweep(World& world, const SweepPlan& plan, Watchdog& watchdog, const RowFn& on_row,
                       const ProgressFn& progress) {
  Connector& connector = world.connector();
  const Partition partition = sweep_partition(plan, connector.size());
  const int nranks = static_cast<int>(partition.members_of(connector.rank()).size());
  check_root(plan, nranks);

  const auto rows = plan_rows(plan, nranks);
  const auto extents = buffer_extents(plan, rows, nranks);
  // The buffers before the communicators, in all_reduce_perf's order, so that on a GPU both tools' buffers and the
  // library's own memory are allocated alike (where memory lies can move a GPU's times by several percent).
  // Host buffers at a page boundary where OSU's method times them, as osu_* allocates its buffers (posix_memalign at
  // the page size); else 16 B past one, as malloc places IMB's: the offset alone moves small messages' times.
  const HostPlacement placement = buffer_placement(plan);
  auto send_buffer = world.device().allocate_placed(extents.send, placement);
  auto recv_buffer = world.device().allocate_placed(extents.recv, placement);
  Communicator* comm = nullptr;
  {
    const ArmedStep step = watchdog.arm(StepKind::setup, fmt::format("creating the {} communicators", partition.label));
    comm = &world.communicator(partition, step);
  }
  const auto variants = plan_variants(plan, comm->runs_on_device());

  SweepOutcome outcome;
  outcome.facts = buffer_huge_pages_fact(world, {send_buffer.get(), recv_buffer.get()}, watchdog);
  const bool root = connector.is_root();
  if (root) {
    outcome.warnings.insert(outcome.warnings.end(), plan.ignored_options.begin(), plan.ignored_options.end());
  }
  if (rows.size() < plan.sizes.size() * plan.dtypes.size() * plan_roots(plan, nranks).size() && root) {
    outcome.warnings.push_back(
        {"small_sizes_skipped",
         fmt::format("sizes too small to give every one of the {} ranks an element were skipped", nranks)});
  }
  const bool sweep_warm_up = plan.tensors <= 1 && times_by(plan, Timing::nccl_tests, comm->runs_on_device());
  const std::size_t total = rows.size() * static_cast<std::size_t>(plan.cycles);
  for (std::size_t i = 0; i < total; ++i) {
    const Row& row = rows[i % rows.size()];
    const int cycle = static_cast<int>(i / rows.size());
    if (root && progress) progress(i, total, cycle_label(plan, cycle, case_label(plan, row, variants.front())));
    if (sweep_warm_up && i < rows.size() && (i == 0 || rows[i - 1].dtype != row.dtype || rows[i - 1].op != row.op)) {
      warm_up_sizes(*comm, plan, watchdog,
                    warm_up_setups(plan, rows, i, *comm, send_buffer.get(), recv_buffer.get(), nranks));
    }
    std::vector<CaseResult> done;
    for (const Variant& variant : variants) {
      const Placement placement = variant.placement;
      CaseResult result = describe(plan, row, variant, comm->backend(), partition, nranks);
      if (plan.cycles > 1) result.cycle = cycle + 1;
      if (plan.timestamps) result.start_time_s = unix_seconds_now();
      if (placement == Placement::in_place && comm->local_parts() > 1 && in_place_moves_with_rank(plan.collective)) {
        result.status = "skipped";
        result.skip_reason = "in-place with several GPUs per process (-g) is not supported for this collective";
        done.push_back(std::move(result));
        continue;
      }
      if (const auto reason = comm->unsupported(plan.collective, row.dtype, row.op)) {
        result.status = "skipped";
        result.skip_reason = *reason;
        done.push_back(std::move(result));
        continue;
      }
      const CaseSetup setup =
          make_setup(plan, row, variant, send_buffer.get(), recv_buffer.get(), comm->rank(), nranks);
      const Measured m = measure_case(world, *comm, plan, watchdog, setup);
      // What reaches the root is O(ranks) small figures (each rank's means and OS counters) and each phase's
      // samples reduced along a tree, never every rank's samples: the law is in docs/reports.md,
      // "Large jobs: what a record keeps of each rank".
      static constexpr const char* kListPhases[] = {"pack", "allreduce", "unpack"};
      ReducedPhase time_phase;
      std::vector<std::vector<OsCounters>> os_by_rank;
      std::vector<ReducedPhase> list_phases;  // fused lists
      std::optional<ReducedPhase> device;     // nccl-tests' timing: the device's events beside
      {
        const ArmedStep step = watchdog.arm(StepKind::gather, setup.label + ": gathering samples");
        const int to = connector.root_rank();
        // past the watchdog's own bound, so that a rank that stops answering is named by the watchdog
        const auto deadline = deadline_after(2 * watchdog.timeout_s());
        time_phase = reduce_phase_over_ranks(connector, "time", m.sampling.samples, plan.average, to, step, deadline);
        os_by_rank = gather_vector<OsCounters>(connector, std::span(&m.sampling.os_per_op, 1), to, step);
        for (std::size_t p = 0; p < m.sampling.phase_samples.size() && p < std::size(kListPhases); ++p) {
          list_phases.push_back(reduce_phase_over_ranks(connector, kListPhases[p], m.sampling.phase_samples[p],
                                                        plan.average, to, step, deadline));
        }
        if (!m.sampling.beside_samples.empty()) {  // every rank times the same way
          device = reduce_phase_over_ranks(connector, "device", m.sampling.beside_samples, plan.average, to, step,
                                           deadline);
        }
      }
      outcome.wrong += std::max<std::int64_t>(m.wrong, 0);
      if (!root) continue;
      result.ops_per_sample = m.sampling.ops_per_sample;
      result.wrong = m.wrong;
      result.noise_target_met = m.sampling.noise_target_met;
      result.moves_nothing = nranks == 1 && placement == Placement::in_place && !variant.fusion &&
                             !comm->copies_in_place(plan.collective);
      aggregate_phase(std::move(time_phase), plan.average, plan.collective, result);
      if (device) {
        result.device_time_shown = pick(plan.average, device->stats.rank_spread);
        result.phases.push_back(std::move(device->stats));
      }
      for (const auto& counters : os_by_rank) result.os_per_op.push_back(counters.at(0));
      for (ReducedPhase& phase : list_phases) result.phases.push_back(std::move(phase.stats));
      done.push_back(std::move(result));
    }
    if (root) {
      const ArmedStep step = watchdog.arm(StepKind::report, cycle_label(plan, cycle, case_label(plan, row, variants.front())) +
                                                                ": writing the results");
      if (on_row) on_row(done);
      // Kept for the warnings at the end: each case without its ranks' figures, so that the root holds O(cases).
      for (CaseResult& r : done) outcome.results.push_back(without_rank_figures(std::move(r)));
    }
  }
  if (root && progress) progress(total, total, "");
  if (root) {
    const auto warnings = sweep_warnings(outcome.results, plan);
    outcome.warnings.insert(outcome.warnings.end(), warnings.begin(), warnings.end());
  }
  return outcome;
}

}  // namespace distbench::collective
