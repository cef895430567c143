#include "benchmarks/collective/sweep_warnings.hpp"

#include "core/measure/sizes.hpp"
#include "core/measure/stats.hpp"
#include "core/report/text.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

namespace distbench::collective {
namespace {

constexpr double kHostAboveDevice = 0.05;         // a host time this much above the device's is a finding
constexpr double kSpeedChange = 0.05;             // a case's first and last blocks this far apart is a finding
constexpr std::size_t kSpeedChangeMinBlocks = 6;  // its first third against its last, two blocks each at least
// On the host clock (MPI) samples scatter more: a level this far apart, three samples a third at least.
constexpr double kHostSpeedChange = 0.2;
constexpr std::size_t kHostSpeedChangeMinSamples = 9;

// A measured case that moved data, with the device's own time beside the host's (nccl-tests' timing on a device).
bool device_timed(const CaseResult& r) {
  return r.status == "ok" && !r.moves_nothing && std::isfinite(r.device_time_shown) && r.device_time_shown > 0;
}

std::string case_text(const CaseResult& r) {
  if (r.tensors > 1) {
    return fmt::format("{} {} {} as {} tensors, {}", r.collective, format_bytes(r.bytes), r.dtype, r.tensors, r.fusion);
  }
  return fmt::format("{} {} {} {}", r.collective, format_bytes(r.bytes), r.dtype, r.placement);
}

void noise_warnings(const std::vector<CaseResult>& results, const SweepPlan& plan, std::vector<Warning>& out) {
  std::size_t noisy = 0, missed = 0, with_outliers = 0, measured = 0;
  const CaseResult* worst = nullptr;
  for (const auto& r : results) {
    if (r.status != "ok") continue;
    ++measured;
    if (!r.noise_target_met) ++missed;
    if (r.time.outliers > 0) ++with_outliers;
    if (r.time.median_ci > kNoisyPercent) {
      ++noisy;
      if (worst == nullptr || r.time.median_ci > worst->time.median_ci) worst = &r;
    }
  }
  if (missed > 0) {
    out.push_back(Warning{
        "noise_target_missed",
        fmt::format(
            "{} of {} cases stopped at --max-time {:g} s before their median was known within the --max-noise target "
            "of {:g}% (marked * in the table's noise column); raise --max-time or accept more noise",
            missed, measured, plan.stopping.max_time_s, plan.stopping.max_noise)});
  } else if (noisy > 0 && worst != nullptr) {
    out.push_back(Warning{
        "noisy_median",
        fmt::format(
            "{} of {} cases have a median uncertain by more than {:g}% (95% confidence interval; worst: {}, +/-{} "
            "over {} samples): the machine was busy or the case is unstable; rerun with a noise target "
            "(--max-noise 2 --max-time 5) or on a quieter machine",
            noisy, measured, kNoisyPercent, case_text(*worst), percent_text(worst->time.median_ci),
            worst->time.samples)});
  }
  if (with_outliers > 0) {
    out.push_back(Warning{
        "outliers",
        fmt::format(
            "{} cases had outlier samples (over 5 MADs from the median, e.g. a preempted sample); medians in the JSON "
            "report are robust to them, the mean in the table is not",
            with_outliers)});
  }
}

void fault_warning(const std::vector<CaseResult>& results, const SweepPlan& plan, std::vector<Warning>& out) {
  std::size_t hit = 0, measured = 0;
  const CaseResult* worst = nullptr;
  double worst_faults = 0;
  for (const auto& r : results) {
    if (r.status != "ok") continue;
    ++measured;
    const double faults = max_over_ranks(r.os_per_op, &OsCounters::faults);
    if (!faults_shape_time(faults, static_cast<double>(r.bytes))) continue;
    ++hit;
    if (worst == nullptr || faults > worst_faults) {
      worst = &r;
      worst_faults = faults;
    }
  }
  if (worst == nullptr) return;
  std::string remedy =
      plan.malloc_reuse
          ? "--malloc-reuse is on, so the library maps this memory itself: look at its own buffer settings"
          : "rerun with --malloc-reuse (or GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold="
            "4294967296) to keep freed memory mapped, and --show-faults to see the counts";
  if (plan.huge_pages) {
    remedy +=
        "; --huge-pages on advises only distbench's own buffers: the library's temporaries come from malloc "
        "without that advice and fault in small pages";
  }
  out.push_back(Warning{
      "page_faults",
      fmt::format(
          "{} of {} cases took page faults inside the timed calls (worst: {}, {:.0f} per operation): the library's "
          "per-call temporary buffers come from malloc as fresh memory maps and are faulted in on every call, so these "
          "times include the kernel's fault handling; {}",
          hit, measured, case_text(*worst), worst_faults, remedy)});
}

// nccl-tests' timing on a device: the host clock around a block holds what the device's events around it do not,
// the latency from the host's first call to the device starting it and from the device finishing to the host seeing
// it, plus any time the device sat idle waiting for calls the host had not yet enqueued. Where that is a large part,
// the figure is the host's, not the transfer's: said once, with its size per block.
void host_bound_warning(const std::vector<CaseResult>& results, const SweepPlan& plan, std::vector<Warning>& out) {
  if (plan.cpu_time) return;  // -C 1: the host clock stops at the last enqueue, before the device is done
  std::size_t above = 0, compared = 0;
  const CaseResult* first = nullptr;
  const CaseResult* last = nullptr;
  double worst = 0;
  std::vector<double> extra_per_block;
  for (const auto& r : results) {
    if (!device_timed(r)) continue;
    ++compared;
    const double ratio = r.time_shown / r.device_time_shown;
    if (ratio <= 1 + kHostAboveDevice) continue;
    ++above;
    if (first == nullptr) first = &r;
    last = &r;
    worst = std::max(worst, ratio);
    extra_per_block.push_back((r.time_shown - r.device_time_shown) * r.ops_per_sample * 1e6);
  }
  if (above == 0) return;
  std::sort(extra_per_block.begin(), extra_per_block.end());
  out.push_back(Warning{
      "host_bound",
      fmt::format(
          "{} of {} cases read more than {:g}% above the device's own time on the host clock (up to {:.3g}x, sizes {} "
          "to {}; a median {:.1f} us more per block of {} operations): the host's latency to start a block and to see "
          "it finish, and any wait of the device for calls not yet enqueued, weigh there; nccl-tests' figures hold "
          "them "
          "too; the device's time is device_time_us in the reports (--columns device); CUDA graphs (-G) or aggregated "
          "calls (-m) shrink them",
          above, compared, kHostAboveDevice * 100, worst, format_bytes(first->bytes), format_bytes(last->bytes),
          extra_per_block[extra_per_block.size() / 2], first->ops_per_sample)});
}

// A case's first third of samples against its last: the change of their medians (the larger of early/late and
// late/early, minus 1), and whether each third sits at one level (all but one sample, a preempted one, within a
// third of the change of its own median). Nothing when a median is not positive.
struct ThirdsChange {
  double change = 0;
  bool levels = false;
};

std::optional<ThirdsChange> thirds_change(const std::vector<double>& xs) {
  const auto third = static_cast<std::ptrdiff_t>(xs.size() / 3);
  const std::vector<double> head(xs.begin(), xs.begin() + third);
  const std::vector<double> tail(xs.end() - third, xs.end());
  const double early = percentile(head, 50);
  const double late = percentile(tail, 50);
  if (!(early > 0) || !(late > 0)) return std::nullopt;
  const double change = std::max(early / late, late / early) - 1;
  const auto one_level = [band = change / 3](const std::vector<double>& part, double median) {
    return std::count_if(part.begin(), part.end(), [&](double x) { return std::abs(x / median - 1) > band; }) <= 1;
  };
  return ThirdsChange{change, one_level(head, early) && one_level(tail, late)};
}

// The cases a speed-change rule named: how many of how many it judged, the first and last sizes, the largest change.
struct SpeedChanges {
  std::size_t changed = 0, compared = 0;
  const CaseResult* first = nullptr;
  const CaseResult* last = nullptr;
  double worst = 0;

  void add(const CaseResult& r, double change) {
    ++changed;
    if (first == nullptr) first = &r;
    last = &r;
    worst = std::max(worst, change);
  }
  // "3 of 20 cases changed speed while they ran: <how>, differed by up to 11% (sizes 1 MiB to 8 MiB)"
  std::string text(std::string_view how) const {
    return fmt::format("{} of {} cases changed speed while they ran: {} differed by up to {} (sizes {} to {})", changed,
                       compared, how, percent_text(worst * 100, 0), format_bytes(first->bytes),
                       format_bytes(last->bytes));
  }
};

// nccl-tests' timing on a device: the device's own time of a case's first blocks against its last. With
// ncclMemAlloc's buffers a GPU can run the same block slower until enough work has passed, then at full speed for
// the rest of the run (docs/gpu.md): a figure then depends on what ran before it, and all_reduce_perf's one block per
// size reads whichever state it meets. Judged only where the device, not the host, sets the pace. Said once.
void speed_change_warning(const std::vector<CaseResult>& results, const SweepPlan& plan, std::vector<Warning>& out) {
  SpeedChanges c;
  for (const auto& r : results) {
    if (!device_timed(r) || r.timing != "nccl-tests" || r.time_shown > r.device_time_shown * (1 + kHostAboveDevice)) {
      continue;
    }
    const auto device =
        std::find_if(r.phases.begin(), r.phases.end(), [](const PhaseStats& p) { return p.name == "device"; });
    if (device == r.phases.end() || device->samples.size() < kSpeedChangeMinBlocks) continue;
    ++c.compared;
    const auto t = thirds_change(device->samples);
    if (t && t->change > kSpeedChange) c.add(r, t->change);
  }
  if (c.changed == 0) return;
  out.push_back(Warning{
      "speed_changed",
      fmt::format(
          "{}, so the GPU was not in one steady state (an H200 ran ncclMemAlloc's buffers 10% slower until enough work "
          "had passed; docs/gpu.md). A single block, as all_reduce_perf times each size, reads whichever state it "
          "meets: "
          "{} reproduces its figures; more blocks or a longer warm-up (-w) measure the steady state",
          c.text("the device's time of their first blocks and of their last"),
          plan.backend_options.nccl_mem_alloc ? "--blocks 1" : "--blocks 1 with --alloc ncclMemAlloc")});
}

// Host-timed cases (the MPI backend, any method): the same thirds, with a larger change and each third steady on its
// own. A shared machine switches between modes and stays in each a while, within one run too
// (docs/measurements/2026-11-27-allreduce-vs-peers.md); a case that met both has a mean of two speeds, which neither
// a rerun nor a peer reproduces. Said once, with the sizes.
void host_speed_change_warning(const std::vector<CaseResult>& results, std::vector<Warning>& out) {
  SpeedChanges c;
  for (const auto& r : results) {
    if (r.status != "ok" || r.moves_nothing || device_timed(r) || r.samples.size() < kHostSpeedChangeMinSamples) {
      continue;
    }
    ++c.compared;
    const auto t = thirds_change(r.samples);
    if (t && t->change > kHostSpeedChange && t->levels) c.add(r, t->change);
  }
  if (c.changed == 0) return;
  out.push_back(
      Warning{"speed_changed", fmt::format("{}, each third steady on its own: the machine changed modes in the middle "
                                           "of the case (a shared host moving its "
                                           "CPUs; docs/methods.md, 'What is measured'), so the table's mean mixes two "
                                           "speeds; rerun those sizes, or compare "
                                           "with another tool by pairs of runs a second apart (bench/README.md)",
                                           c.text("the median of their first third of samples and of their last"))});
}

void nothing_moved_warning(const std::vector<CaseResult>& results, std::vector<Warning>& out) {
  std::size_t none = 0;
  for (const auto& r : results) none += r.status == "ok" && r.moves_nothing ? 1 : 0;
  if (none == 0) return;
  out.push_back(Warning{"nothing_moved",
                        fmt::format("{} in-place cases ran on one rank, where the result is already in place and "
                                    "nothing moves: their time is the "
                                    "call's own cost and they have no bandwidth (- in the table, null in the reports)",
                                    none)});
}

}  // namespace

std::vector<Warning> sweep_warnings(const std::vector<CaseResult>& results, const SweepPlan& plan) {
  std::vector<Warning> warnings;
  noise_warnings(results, plan, warnings);
  fault_warning(results, plan, warnings);
  host_bound_warning(results, plan, warnings);
  speed_change_warning(results, plan, warnings);
  host_speed_change_warning(results, warnings);
  nothing_moved_warning(results, warnings);
  return warnings;
}

}  // namespace distbench::collective
