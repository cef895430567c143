#include "benchmarks/collective/plan_rules.hpp"

#include "benchmarks/collective/timing_method.hpp"
#include "core/error.hpp"
#include "core/measure/sizes.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace distbench::collective {
namespace {

bool named(const std::vector<std::string>& names, std::string_view method) {
  return std::find(names.begin(), names.end(), method) != names.end();
}

Timing timing_named(std::string_view t) {
  return t == "sampled"      ? Timing::sampled
         : t == "nccl-tests" ? Timing::nccl_tests
         : t == "osu"        ? Timing::osu
         : t == "imb"        ? Timing::imb
                             : Timing::automatic;
}

// The smallest element type asked for: the most elements a size holds.
DType smallest_type(const std::vector<DType>& dtypes) {
  DType smallest = dtypes.front();
  for (DType t : dtypes) smallest = size_of(t) < size_of(smallest) ? t : smallest;
  return smallest;
}

}  // namespace

std::vector<std::uint64_t> sweep_sizes(const SizeSpec& spec) {
  const bool stepped = spec.step_text.has_value();
  if (spec.factor_given && stepped) {
    throw usage_error("-f/--stepfactor and -i/--stepbytes both given; use one: a factor (-f 2) or a step (-i 1M)");
  }
  const std::uint64_t step = stepped ? parse_size_option("-i/--stepbytes", *spec.step_text) : 0;
  if (stepped && step == 0) throw usage_error("-i/--stepbytes must be a positive number of bytes, e.g. -i 1M");
  if (!stepped && !(spec.factor > 1.0)) {
    throw usage_error(
        fmt::format("-f/--stepfactor {:g} must be greater than 1; for additive steps use -i/--stepbytes", spec.factor));
  }
  return size_sweep(parse_size_option("-b/--minbytes", spec.min_text),
                    parse_size_option("-e/--maxbytes", spec.max_text), stepped ? 1.0 : spec.factor, step);
}

void check_ops_defined(const std::vector<ReduceOp>& ops, const std::vector<DType>& dtypes) {
  for (ReduceOp op : ops) {
    for (DType t : dtypes) {
      if (defined_for(op, t)) continue;
      throw usage_error(
          fmt::format("operator '{}' is not defined for datatype '{}' (bitwise operators need an "
                      "integer type); pick an integer -d/--datatype or another -o/--op",
                      name(op), name(t)));
    }
  }
}

void set_tensor_list(SweepPlan& plan, int tensors, std::vector<Fusion> fusions) {
  if (plan.collective != Collective::allreduce) {
    throw usage_error(fmt::format("--tensors {} reduces a list of tensors: it is an allreduce option, not {}'s",
                                  tensors, name(plan.collective)));
  }
  if (plan.placements == std::vector<Placement>{Placement::out_of_place}) {
    throw usage_error("--tensors reduces each tensor in place (as gradients are); drop --placement out-of-place");
  }
  // Each tensor holds an element at least: a list longer than the largest size holds elements measures nothing.
  const DType smallest = smallest_type(plan.dtypes);
  const std::uint64_t most = plan.sizes.back() / size_of(smallest);
  if (static_cast<std::uint64_t>(tensors) > most) {
    throw usage_error(
        fmt::format("--tensors {} asks for more tensors than the largest size holds elements ({} of "
                    "{} in -e/--maxbytes {}): give --tensors {} or fewer, or -e {} or more",
                    tensors, most, name(smallest), format_bytes(plan.sizes.back()), std::max<std::uint64_t>(most, 1),
                    format_bytes(static_cast<std::uint64_t>(tensors) * size_of(smallest))));
  }
  plan.tensors = tensors;
  plan.placements = {Placement::in_place};
  plan.fusions = std::move(fusions);
}

std::vector<Timing> parse_timings(const std::vector<std::string>& names) {
  if (names.empty()) return {Timing::automatic};
  std::vector<Timing> out;
  for (const std::string& t : names) {
    if (names.size() > 1 && t == "auto") {
      throw usage_error(fmt::format("--timing {}: auto stands alone; name the methods, e.g. --timing sampled,osu",
                                    fmt::join(names, ",")));
    }
    const Timing m = timing_named(t);
    if (std::find(out.begin(), out.end(), m) != out.end()) {
      throw usage_error(fmt::format("--timing {}: {} is named twice; name each method once", fmt::join(names, ","), t));
    }
    out.push_back(m);
  }
  return out;
}

int default_warmup(const std::vector<Timing>& timings, int warmup) {
  return timings == std::vector<Timing>{Timing::nccl_tests} ? 1 : warmup;
}

void check_blocks(const std::vector<Timing>& timings, const std::vector<std::string>& names) {
  const auto counts_blocks = [](Timing t) { return t == Timing::automatic || timing_method(t).counts_blocks(); };
  if (std::any_of(timings.begin(), timings.end(), counts_blocks)) return;
  if (!named(names, "sampled")) {
    throw usage_error(
        fmt::format("--blocks counts nccl-tests' timed blocks; --timing {} times one call at a time: "
                    "drop one of them",
                    fmt::join(names, ",")));
  }
  throw usage_error(
      "--blocks counts nccl-tests' timed blocks; --timing sampled takes -n samples instead: drop "
      "one of them");
}

StoppingRule exact_blocks(int blocks) {
  const auto n = static_cast<std::size_t>(blocks);
  return StoppingRule{.samples = n, .max_noise = 0.0, .min_samples = n, .max_time_s = 0.0};
}

void check_list_timing(SweepPlan& plan, const std::vector<std::string>& names) {
  if (plan.tensors <= 1) return;
  const bool lists = plan.timings == std::vector<Timing>{Timing::automatic} ||
                     (plan.timings.size() == 1 && timing_method(plan.timings.front()).times_lists());
  if (!lists) {
    throw usage_error(
        fmt::format("--timing {} times one buffer per operation, not a --tensors list; drop --tensors or "
                    "use --timing sampled",
                    fmt::join(names, ",")));
  }
  plan.timings = {Timing::sampled};
}

void check_floor_at(const BandwidthFloor& floor) {
  if (!floor.active()) {
    throw usage_error("--min-busbw-at needs a floor to judge: add --min-busbw GBPS or --min-algbw GBPS");
  }
}

std::vector<std::string> table_columns(const std::vector<std::string>& asked) {
  static const std::vector<std::string> kColumns = {"median", "mean", "p99", "noise", "samples", "device"};
  std::vector<std::string> out;
  for (const std::string& c : asked) {
    if (c == "all") return kColumns;
    if (std::find(kColumns.begin(), kColumns.end(), c) == kColumns.end()) {
      throw usage_error(fmt::format(
          "--columns {}: no such column; pick from median, mean, p99, noise, samples, device, or 'all'", c));
    }
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
  return out;
}

void check_cycles(int cycles) {
  if (cycles != 0) return;
  throw usage_error(
      "-N/--run-cycles 0 (nccl-tests' run forever) is not supported: a distbench run ends on its own so that its "
      "reports are complete; give a count for a long run, e.g. -N 1000");
}

std::vector<Warning> ignored_options(const SweepPlan& plan, const GivenOptions& given) {
  const Collective collective = plan.collective;
  std::vector<Warning> out;
  if (given.ops && !is_reduction(collective)) {
    out.push_back(
        {"option_ignored", fmt::format("-o/--op {} ignored: {} does not reduce", *given.ops, name(collective))});
  }
  if (given.root && !is_rooted(collective)) {
    out.push_back({"option_ignored", fmt::format("-r/--root {} ignored: {} has no root (only broadcast, reduce, "
                                                 "gather and scatter do)",
                                                 *given.root, name(collective))});
  }
  if (given.parallel_init) {
    out.push_back({"option_ignored",
                   "-p/--parallel_init ignored: distbench runs one thread per process, so there "
                   "are no threads' communicators to initialise in parallel"});
  }
  for (Timing t : {Timing::sampled, Timing::nccl_tests, Timing::osu, Timing::imb}) {
    if (!given.noise_target || timing_method(t).keeps_noise_target()) continue;
    if (std::find(plan.timings.begin(), plan.timings.end(), t) == plan.timings.end()) continue;
    out.push_back({"option_ignored", fmt::format("--max-noise and --max-time ignored by --timing {}: it times the "
                                                 "peer's own count of calls (-n replaces it)",
                                                 name(t))});
  }
  if (given.fuse && plan.tensors <= 1) {
    out.push_back({"option_ignored",
                   collective == Collective::allreduce
                       ? fmt::format("--fuse {} ignored: it applies to a list of tensors; add --tensors N (N > 1) to "
                                     "reduce one",
                                     *given.fuse)
                       : fmt::format("--fuse {} ignored: {} has no list of tensors (only allreduce has --tensors)",
                                     *given.fuse, name(collective))});
  }
  return out;
}

}  // namespace distbench::collective
