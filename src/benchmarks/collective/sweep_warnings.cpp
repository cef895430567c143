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

// "12%", "4.5%": a figure for the warning's line, or ">1000%" past what a reader can use (the detail keeps it whole).
std::string line_percent(double percent) {
  if (!(percent < 1000)) return ">1000%";
  return percent_text(percent, percent < 10 ? 1 : 0);
}

// "16 KiB to 128 KiB" (ascending whatever order the cases ran in), or "4 MiB" for one size.
std::string size_range(std::uint64_t smallest, std::uint64_t largest) {
  if (smallest == largest) return format_bytes(smallest);
  return fmt::format("{} to {}", format_bytes(smallest), format_bytes(largest));
}

std::string case_text(const CaseResult& r) {
  if (r.tensors > 1) {
    return fmt::format("{} {} {} as {} tensors, {}", r.collective, format_bytes(r.bytes), r.dtype, r.tensors, r.fusion);
  }
  return fmt::format("{} {} {} {}", r.collective, format_bytes(r.bytes), r.dtype, r.placement);
}

// A case's time pulled this far (percent) from its median by outlier samples (a preempted one) is noise worth a
// word; a few outliers that move it less change nothing a reader does.
constexpr double kPulledPercent = 25.0;

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

// Host-timed cases (the MPI backend, any method): a first and a last third of samples more than kHostSpeedChange
// apart, each third steady on its own. A shared machine switches between modes and stays in each a while, within
// one run too (docs/measurements/2026-11-27-allreduce-vs-peers.md); a case that met both has a time of two speeds,
// which neither a rerun nor a peer reproduces. The change in percent, 0 when none.
double host_levels_percent(const CaseResult& r) {
  if (r.moves_nothing || device_timed(r) || r.samples.size() < kHostSpeedChangeMinSamples) return 0;
  const auto t = thirds_change(r.samples);
  return t && t->change > kHostSpeedChange && t->levels ? t->change * 100 : 0;
}

// How far a case's figure may be off, by each test (percent), and whether any passes its bound.
struct CaseNoise {
  double median_ci = 0;  // the median's 95% confidence interval, half-width
  double pulled = 0;     // the table's time from the median, where outlier samples pulled it
  double levels = 0;     // two speeds within the case (host_levels_percent)

  bool noisy() const { return median_ci > kNoisyPercent || pulled > kPulledPercent || levels > 0; }
  double worst() const { return std::max({median_ci, pulled, levels}); }
};

CaseNoise case_noise(const CaseResult& r) {
  CaseNoise n;
  n.median_ci = r.time.median_ci;
  if (r.time.outliers > 0 && r.time.median > 0 && r.time_shown > 0) {
    n.pulled = std::abs(r.time_shown / r.time.median - 1) * 100;
  }
  n.levels = host_levels_percent(r);
  return n;
}

// The cases one test named: how many, the worst and its figure, the smallest and largest sizes.
struct Named {
  std::size_t count = 0;
  const CaseResult* worst = nullptr;
  double worst_figure = 0;
  std::uint64_t smallest = 0, largest = 0;

  void add(const CaseResult& r, double figure) {
    smallest = count == 0 ? r.bytes : std::min(smallest, r.bytes);
    largest = count == 0 ? r.bytes : std::max(largest, r.bytes);
    ++count;
    if (worst == nullptr || figure > worst_figure) {
      worst = &r;
      worst_figure = figure;
    }
  }
  std::string sizes() const { return size_range(smallest, largest); }
};

// The detail of the noise warning: each test's cases, with their full figures.
std::string noise_detail(const Named& uncertain, const Named& pulled, const Named& levels, std::size_t measured) {
  std::vector<std::string> parts;
  if (uncertain.count > 0) {
    parts.push_back(fmt::format(
        "{} of {} cases have a median uncertain by more than {:g}% (95% confidence interval; worst: {}, +/-{:.1f}% "
        "over {} samples)",
        uncertain.count, measured, kNoisyPercent, case_text(*uncertain.worst), uncertain.worst_figure,
        uncertain.worst->time.samples));
  }
  if (pulled.count > 0) {
    parts.push_back(fmt::format(
        "{} cases show a time more than {:g}% from their median, pulled by outlier samples (over 5 MADs from the "
        "median, e.g. a preempted sample; worst: {}, {:.1f}%); the median in the JSON report is robust to them",
        pulled.count, kPulledPercent, case_text(*pulled.worst), pulled.worst_figure));
  }
  if (levels.count > 0) {
    parts.push_back(fmt::format(
        "{} cases changed speed while they ran: the median of their first third of samples and of their last "
        "differed by up to {:.1f}% (sizes {}), each third steady on its own: the machine changed modes in the middle "
        "of the case (a shared host moving its CPUs; docs/methods.md, 'What is measured'), so their time mixes two "
        "speeds",
        levels.count, levels.worst_figure, levels.sizes()));
  }
  std::string out;
  for (const auto& part : parts) out += part + "; ";
  return out +
         "the machine was busy or the cases are unstable: rerun with a noise target (--max-noise 2, which samples "
         "for up to --max-time 10 s a case unless given) or on a quieter machine; compare with another tool by pairs "
         "of runs a second apart (bench/README.md)";
}

void noise_warnings(const std::vector<CaseResult>& results, const SweepPlan& plan, std::vector<Warning>& out) {
  std::size_t missed = 0, measured = 0;
  Named uncertain, pulled, levels, noisy;
  for (const auto& r : results) {
    if (r.status != "ok") continue;
    ++measured;
    if (!r.noise_target_met) ++missed;
    const CaseNoise n = case_noise(r);
    if (n.median_ci > kNoisyPercent) uncertain.add(r, n.median_ci);
    if (n.pulled > kPulledPercent) pulled.add(r, n.pulled);
    if (n.levels > 0) levels.add(r, n.levels);
    if (n.noisy()) noisy.add(r, n.worst());
  }
  if (missed > 0) {
    out.push_back(Warning{
        "noise_target_missed",
        fmt::format("{} of {} cases missed the noise target (marked *): raise --max-time ({:g} s)", missed, measured,
                    plan.stopping.max_time_s),
        fmt::format(
            "{} of {} cases stopped at --max-time {:g} s before their median was known within the --max-noise target "
            "of {:g}% (marked * in the table's noise column); raise --max-time or accept more noise",
            missed, measured, plan.stopping.max_time_s, plan.stopping.max_noise)});
  } else if (noisy.count > 0) {
    out.push_back(Warning{
        "noisy_median",
        fmt::format("{} of {} cases noisy over {:g}% (worst {}: {}); rerun with --max-noise 2", noisy.count, measured,
                    kNoisyPercent, format_bytes(noisy.worst->bytes), line_percent(noisy.worst_figure)),
        noise_detail(uncertain, pulled, levels, measured)});
  }
}

void fault_warning(const std::vector<CaseResult>& results, const SweepPlan& plan, std::vector<Warning>& out) {
  std::size_t measured = 0;
  Named hit;
  for (const auto& r : results) {
    if (r.status != "ok") continue;
    ++measured;
    const double faults = max_over_ranks(r.os_per_op, &OsCounters::faults);
    if (faults_shape_time(faults, static_cast<double>(r.bytes))) hit.add(r, faults);
  }
  if (hit.count == 0) return;
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
  const std::string line =
      fmt::format("{} of {} cases took page faults in timed calls (from {}); {}", hit.count, measured,
                  format_bytes(hit.smallest), plan.malloc_reuse ? "see the report" : "add --malloc-reuse");
  out.push_back(Warning{
      "page_faults", line,
      fmt::format(
          "{} of {} cases took page faults inside the timed calls (sizes {}; worst: {}, {:.0f} per operation): the "
          "library's per-call temporary buffers come from malloc as fresh memory maps and are faulted in on every "
          "call, so these times include the kernel's fault handling; {}",
          hit.count, measured, hit.sizes(), case_text(*hit.worst), hit.worst_figure, remedy)});
}

// nccl-tests' timing on a device: the host clock around a block holds what the device's events around it do not,
// the latency from the host's first call to the device starting it and from the device finishing to the host seeing
// it, plus any time the device sat idle waiting for calls the host had not yet enqueued. Where that is a large part,
// the figure is the host's, not the transfer's: said once, with its size per block.
void host_bound_warning(const std::vector<CaseResult>& results, const SweepPlan& plan, std::vector<Warning>& out) {
  if (plan.cpu_time) return;  // -C 1: the host clock stops at the last enqueue, before the device is done
  std::size_t compared = 0;
  Named above;
  std::vector<double> extra_per_block;
  int ops_per_block = 0;
  for (const auto& r : results) {
    if (!device_timed(r)) continue;
    ++compared;
    const double ratio = r.time_shown / r.device_time_shown;
    if (ratio <= 1 + kHostAboveDevice) continue;
    if (above.count == 0) ops_per_block = r.ops_per_sample;
    above.add(r, ratio);
    extra_per_block.push_back((r.time_shown - r.device_time_shown) * r.ops_per_sample * 1e6);
  }
  if (above.count == 0) return;
  std::sort(extra_per_block.begin(), extra_per_block.end());
  out.push_back(Warning{
      "host_bound",
      fmt::format("{} of {} cases host-bound: {:g}%+ above the device's time (to {}); try -G or -m", above.count,
                  compared, kHostAboveDevice * 100, format_bytes(above.largest)),
      fmt::format(
          "{} of {} cases read more than {:g}% above the device's own time on the host clock (up to {:.3g}x, sizes {}; "
          "a median {:.1f} us more per block of {} operations): the host's latency to start a block and to see it "
          "finish, and any wait of the device for calls not yet enqueued, weigh there; nccl-tests' figures hold them "
          "too; the device's time is device_time_us in the reports (--columns device); CUDA graphs (-G) or "
          "aggregated calls (-m) shrink them",
          above.count, compared, kHostAboveDevice * 100, above.worst_figure, above.sizes(),
          extra_per_block[extra_per_block.size() / 2], ops_per_block)});
}

// nccl-tests' timing on a device: the device's own time of a case's first blocks against its last. With
// ncclMemAlloc's buffers a GPU can run the same block slower until enough work has passed, then at full speed for
// the rest of the run (docs/gpu.md): a figure then depends on what ran before it, and all_reduce_perf's one block per
// size reads whichever state it meets. Judged only where the device, not the host, sets the pace. Said once.
void speed_change_warning(const std::vector<CaseResult>& results, const SweepPlan& plan, std::vector<Warning>& out) {
  std::size_t compared = 0;
  Named changed;
  for (const auto& r : results) {
    if (!device_timed(r) || r.timing != "nccl-tests" || r.time_shown > r.device_time_shown * (1 + kHostAboveDevice)) {
      continue;
    }
    const auto device =
        std::find_if(r.phases.begin(), r.phases.end(), [](const PhaseStats& p) { return p.name == "device"; });
    if (device == r.phases.end() || device->samples.size() < kSpeedChangeMinBlocks) continue;
    ++compared;
    const auto t = thirds_change(device->samples);
    if (t && t->change > kSpeedChange) changed.add(r, t->change * 100);
  }
  if (changed.count == 0) return;
  out.push_back(Warning{
      "speed_changed",
      fmt::format("{} of {} cases changed speed on the GPU (worst {}: {}); raise -w", changed.count, compared,
                  format_bytes(changed.worst->bytes), line_percent(changed.worst_figure)),
      fmt::format(
          "{} of {} cases changed speed while they ran: the device's time of their first blocks and of their last "
          "differed by up to {:.1f}% (sizes {}), so the GPU was not in one steady state (an H200 ran ncclMemAlloc's "
          "buffers 10% slower until enough work had passed; docs/gpu.md). A single block, as all_reduce_perf times "
          "each size, reads whichever state it meets: {} reproduces its figures; more blocks or a longer warm-up (-w) "
          "measure the steady state",
          changed.count, compared, changed.worst_figure, changed.sizes(),
          plan.backend_options.nccl_mem_alloc ? "--blocks 1" : "--blocks 1 with --alloc ncclMemAlloc")});
}

void nothing_moved_warning(const std::vector<CaseResult>& results, std::vector<Warning>& out) {
  std::size_t none = 0;
  for (const auto& r : results) none += r.status == "ok" && r.moves_nothing ? 1 : 0;
  if (none == 0) return;
  out.push_back(Warning{
      "nothing_moved",
      fmt::format("{} in-place cases ran on one rank: nothing moves, so no bandwidth (- in the table)", none),
      fmt::format("{} in-place cases ran on one rank, where the result is already in place and nothing moves: their "
                  "time is the call's own cost and they have no bandwidth (- in the table, null in the reports)",
                  none)});
}

}  // namespace

std::vector<Warning> sweep_warnings(const std::vector<CaseResult>& results, const SweepPlan& plan) {
  std::vector<Warning> warnings;
  noise_warnings(results, plan, warnings);
  fault_warning(results, plan, warnings);
  host_bound_warning(results, plan, warnings);
  speed_change_warning(results, plan, warnings);
  nothing_moved_warning(results, warnings);
  return warnings;
}

}  // namespace distbench::collective
