#include "benchmarks/zero/zero_run.hpp"

#include "benchmarks/zero/host_counters.hpp"
#include "benchmarks/zero/step_ledger.hpp"
#include "benchmarks/zero/verify.hpp"
#include "benchmarks/zero/zero_benchmark.hpp"
#include "core/comm/groups.hpp"
#include "core/comm/phase_over_ranks.hpp"
#include "core/error.hpp"
#include "core/measure/os_counters.hpp"
#include "core/measure/sizes.hpp"
#include "core/report/text.hpp"
#include "core/sys/deadline.hpp"
#include "numerics/adam_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <set>
#include <thread>

namespace distbench::zero {
namespace {

constexpr int kNetworkSteps = 3;                           // untimed steps between the interface counter reads
constexpr std::size_t kCopyBytes = std::size_t{64} << 20;  // per buffer: well past the caches
// On a GPU: past its L2 cache (tens of MB on current data-center GPUs), and long enough that the launch and the
// host's wait around each timed copy are a small part of its time.
constexpr std::size_t kDeviceCopyBytes = std::size_t{512} << 20;
constexpr int kCopyRepeats = 5;

// One rank's first mismatch, as the root gathers it.
struct MismatchWire {
  std::uint64_t count = 0, index = 0;
  float got = 0, expected = 0;
  std::array<char, 96> what{};  // "master weight", "Adam first moment m", "parameter gathered for the forward (step 2)"
};

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0.0 : s / static_cast<double>(v.size());
}

// The device's copy bandwidth, every rank copying at once as they update at once: the best of a few copies of
// kCopyBytes, (read + written) / time, the slowest rank's.
double copy_gbps(World& world, Watchdog& watchdog) {
  Device& device = world.device();
  const std::size_t bytes = device.math() != nullptr ? kDeviceCopyBytes : kCopyBytes;
  auto src = device.allocate(bytes);
  auto dst = device.allocate(bytes);
  device.copy({dst.get(), 0}, {src.get(), 0}, bytes);  // first touch
  device.synchronize();
  const ArmedStep step = watchdog.arm(StepKind::zero_step, "zero: measuring the copy bandwidth");
  world.connector().barrier(step);
  double best = 0;
  for (int i = 0; i < kCopyRepeats; ++i) {
    auto timer = device.make_timer();
    timer->start();
    device.copy({dst.get(), 0}, {src.get(), 0}, bytes);
    timer->stop();
    device.synchronize();
    const double t = timer->seconds();
    if (t > 0 && (best == 0 || t < best)) best = t;
  }
  const double gbps = best > 0 ? 2.0 * static_cast<double>(bytes) / best / 1e9 : kNotMeasured;
  const auto all = allgather_value(world.connector(), gbps, step);
  return *std::min_element(all.begin(), all.end());
}

// The phases of a stage's step, each with the timer of where it runs.
std::vector<TimedPhase> step_phases(ZeroStep& step, Communicator& comm, Device& device, Stage stage, Seconds timeout) {
  const auto comm_timer = [&comm] { return comm.make_timer(); };
  std::vector<TimedPhase> phases;
  if (stage == Stage::s3) {
    phases.push_back({"fwd_gather", [&step, timeout](const ArmedStep&) { step.forward_gathers(timeout); }, comm_timer});
    phases.push_back(
        {"bwd_gather", [&step, timeout](const ArmedStep&) { step.backward_gathers(timeout); }, comm_timer});
  }
  phases.push_back({"reduce", [&step, timeout](const ArmedStep&) { step.reduce(timeout); }, comm_timer});
  phases.push_back({"update", [&step](const ArmedStep&) { step.update(); }, [&device] { return device.make_timer(); }});
  if (stage == Stage::s1 || stage == Stage::s2) {
    phases.push_back({"gather", [&step, timeout](const ArmedStep&) { step.gather(timeout); }, comm_timer});
  }
  return phases;
}

// Zeros in host memory, owned.
class HostZeros final : public Buffer {
 public:
  explicit HostZeros(std::size_t bytes) : bytes_(bytes, std::byte{0}) {}
  std::size_t bytes() const override { return bytes_.size(); }
  void* data(int) override { return bytes_.data(); }

 private:
  std::vector<std::byte> bytes_;
};

// Zeros where the step's arrays live: host memory (written, so that no page is the kernel's shared zero page), or
// the memory of a device with math of its own.
std::unique_ptr<Buffer> zeros(Device& device, std::size_t bytes) {
  DenseMath* math = device.math();
  if (math == nullptr) return std::make_unique<HostZeros>(bytes);
  auto buffer = device.allocate(bytes);
  math->zero(buffer->data(), bytes);
  math->synchronize();
  return buffer;
}

// Seconds of one call of `call` alone, made as the step makes it — started (non-blocking) and waited for at once, in
// place or not as the step runs it — on zeros where the step's arrays are, repeated on one buffer: mean over samples,
// the slowest rank's. Open MPI runs a non-blocking collective by other algorithms than the blocking one (libnbc):
// timing MPI_Allreduce here while the step ran MPI_Iallreduce would time another, faster algorithm and leave the
// difference in step_vs_predicted.
double collective_alone(World& world, Communicator& comm, const StepCall& call, DType type, const SamplingRules& rules,
                        Watchdog& watchdog) {
  const std::size_t elem = size_of(type);
  const BufferShape shape = buffer_shape(call.collective, call.count, comm.size(), comm.rank());
  const std::size_t send_elems = call.in_place ? std::max(shape.send_count, shape.recv_count) : shape.send_count;
  const auto memory = zeros(world.device(), (send_elems + (call.in_place ? 0 : shape.recv_count)) * elem + 1);
  Buffer* buffer = memory.get();
  CollectiveCall c{call.collective, {buffer, 0}, {buffer, 0}, call.count, type, ReduceOp::sum, 0};
  if (call.in_place) {
    c.send = {buffer, shape.in_place_send_offset * elem};
    c.recv = {buffer, shape.in_place_recv_offset * elem};
  } else {
    c.recv = {buffer, send_elems * elem};
  }
  const TimedOperation op{fmt::format("zero: {} of {} alone", name(call.collective), call.count),
                          [&comm, &c, timeout = rules.timeout](int times, const ArmedStep&) {
                            for (int i = 0; i < times; ++i) comm.start(c)->wait(timeout);
                          },
                          [&comm](Seconds t) { comm.synchronize(t); },
                          [&comm] { return comm.make_timer(); },
                          {}};
  const Sampling s = sample_operation(world.connector(), op, rules, watchdog);
  const ArmedStep step = watchdog.arm(StepKind::gather, op.label + ": the slowest rank's time");
  const auto all = allgather_value(world.connector(), mean(s.samples), step);
  return *std::max_element(all.begin(), all.end());
}

// Free memory of a device with math of its own (a GPU), this rank's share, read when every rank has reached the same
// point (so that ranks sharing the GPU have made the same allocations); nothing on host memory.
std::optional<std::uint64_t> device_free(World& world, DenseMath* math, Watchdog& watchdog) {
  if (math == nullptr) return std::nullopt;
  const ArmedStep step = watchdog.arm(StepKind::barrier, "zero: reading the device's free memory");
  math->synchronize();
  world.device().synchronize();
  world.connector().barrier(step);
  const std::uint64_t free = world.device().memory_available(1);
  world.connector().barrier(step);
  return free;
}

std::string fault_advice(std::size_t stages, const ZeroPlan& plan) {
  return fmt::format(
      "{} took page faults inside their timed steps (faults_per_step in the JSON): MPI's per-call reduction "
      "temporaries come from malloc as fresh memory maps and are faulted in on every call, so the reduce phase "
      "includes the kernel's fault handling; {}",
      plural(stages, "stage", "stages"),
      plan.malloc_reuse ? "--malloc-reuse is on, so the library maps this memory itself"
                        : "rerun with --malloc-reuse to keep freed memory mapped (what a long-running training job's "
                          "allocator converges to)");
}

std::string mismatch_text(std::string_view stage, const MismatchWire& m, int rank, int steps,
                          const std::vector<std::size_t>& layers) {
  return fmt::format(
      "zero --check, stage {}: after {} steps the {} of {} (global {}) is {:.9g} on rank {}, {:.9g} {} ({} elements "
      "differ over all ranks)",
      stage, steps, std::string(m.what.data()), tensor_position(m.index, layers), m.index, m.got, rank, m.expected,
      "in a single-rank run of the same steps", m.count);
}

// One rank's bytes sent in the check's steps and the formula's, as the root gathers them.
struct SentWire {
  std::uint64_t sent = 0, formula = 0;
};

}  // namespace

ZeroRun::ZeroRun(World& world, Watchdog& watchdog, Reporter* reporter, const ProgressFn& progress, const ZeroPlan& plan,
                 PerRankFile* per_rank_file)
    : world_(world),
      connector_(world.connector()),
      watchdog_(watchdog),
      reporter_(reporter),
      per_rank_file_(per_rank_file),
      progress_(progress),
      plan_(plan),
      root_(connector_.is_root()),
      timeout_(plan.timeout_s),
      rules_{plan.warmup_iters, plan.stopping, timeout_},
      adam_(plan.adam),
      math_(world.device().math()) {
  {
    const ArmedStep step = watchdog_.arm(StepKind::setup, "zero: creating the communicator");
    comm_ = &world_.communicator(world_partition(connector_.size()), step);
    hosts_ = allgather_string(connector_, connector_.hostname(), step);
  }
  multi_host_ = std::set<std::string>(hosts_.begin(), hosts_.end()).size() > 1;
  if (root_ && per_rank_file_ != nullptr) per_rank_file_->begin("zero", hosts_);
  copy_gbps_ = copy_gbps(world_, watchdog_);
  adam_.threads = static_cast<int>(
      std::max(1U, std::thread::hardware_concurrency() / static_cast<unsigned>(std::max(1, connector_.local_size()))));
}

BenchmarkOutcome ZeroRun::run() {
  BenchmarkOutcome outcome;
  if (plan_.check) check_adam(outcome);
  const std::vector<StageRun> runs = stage_runs(plan_);
  for (std::size_t i = 0; i < runs.size(); ++i) run_stage(runs[i].stage, runs[i].zero1, i, runs.size(), outcome);
  if (root_ && progress_) progress_(runs.size(), runs.size(), "");
  if (root_ && per_rank_file_ != nullptr) per_rank_file_->finish();
  add_run_warnings(outcome);
  return outcome;
}

// Adam itself against its closed form (numerics/adam_check.hpp): the single-rank reference runs the same update, so
// a wrong update would agree with itself everywhere else.
void ZeroRun::check_adam(BenchmarkOutcome& outcome) const {
  const auto wrong = numerics::adam_formula_mismatch(numerics::adam_update, adam_);
  if (!wrong) return;
  ++outcome.wrong;
  if (root_) outcome.warnings.push_back({"zero_adam_formula", "zero --check: " + *wrong});
}

void ZeroRun::run_stage(Stage stage, Zero1Reduce zero1, std::size_t index, std::size_t count,
                        BenchmarkOutcome& outcome) {
  std::string stage_text(name(stage));  // "1 (reduce-scatter)" where stage 1 runs in both forms
  if (stage == Stage::s1 && plan_.zero1.size() > 1) stage_text += fmt::format(" ({})", name(zero1));
  const std::string label = fmt::format("zero stage {}", stage_text);
  if (root_ && progress_) progress_(index, count, label);
  StageResult result = formulas(stage, zero1);
  if (plan_.check) check_stage(step_config(stage, zero1), stage_text, result, outcome);
  const Timed t = time_stage(step_config(stage, zero1), label, stage_text, result);
  result.predicted_s = predicted(t);
  result.network_measured = multi_host_;
  gather(label, t, result);
  if (stage == Stage::s3)
    result.phase_names = {"fwd_gather", "bwd_gather", "reduce", "update"};
  else if (stage == Stage::s0)
    result.phase_names = {"reduce", "update"};
  else
    result.phase_names = {"reduce", "update", "gather"};
  // The advice is about MPI's temporaries in host memory; a GPU step's host faults are not on its timed path.
  if (math_ == nullptr && faults_shape_time(result.faults_per_step, static_cast<double>(result.sent))) ++faulting_;
  result.ops_per_sample = t.sampling.ops_per_sample;
  result.noise_target_met = t.sampling.noise_target_met;
  if (root_) {
    const ArmedStep writing = watchdog_.arm(StepKind::report, label + ": writing the results");
    const std::vector<Record> row = {zero_record(result)};
    if (per_rank_file_ != nullptr) per_rank_file_->add(row);
    if (reporter_ != nullptr) reporter_->add(row);
  }
}

StepConfig ZeroRun::step_config(Stage stage, Zero1Reduce zero1) const {
  StepConfig config;
  config.stage = stage;
  config.type = plan_.type;
  config.layers = plan_.layers;
  config.bucket = plan_.bucket;
  config.adam = adam_;
  config.zero1 = zero1;
  return config;
}

StageResult ZeroRun::formulas(Stage stage, Zero1Reduce zero1) const {
  const auto ranks = static_cast<std::size_t>(connector_.size());
  const Precision precision = precision_of(plan_.dtype);
  StageResult result;
  result.stage = stage;
  result.backend = std::string(comm_->backend());
  result.dtype = plan_.dtype;
  result.zero1 = std::string(name(zero1));
  result.params = plan_.params;
  result.layers = plan_.layers.size();
  result.bucket_mb = plan_.bucket_mb;
  result.ranks = ranks;
  result.hosts = hosts_;
  result.copy_gbps = copy_gbps_;
  const auto segments = stage_segments(stage, plan_.layers, plan_.bucket, ranks);
  result.state = model_state_bytes(stage, segments, precision);
  result.buffers = step_buffer_bytes(stage, segments, precision);
  result.sent = bytes_sent_per_step(stage, segments, precision, zero1);
  // NCCL reduces inside its own buffers, made with the communicator (or at a collective's first use: measured below).
  result.library = math_ != nullptr ? 0 : reduction_temporary_bytes(segments, precision);
  for (const Segment& s : segments) result.padding += s.part.padding();
  return result;
}

void ZeroRun::check_stage(StepConfig config, const std::string& stage_text, StageResult& result,
                          BenchmarkOutcome& outcome) {
  const std::string label = fmt::format("zero stage {}", stage_text);
  config.gradients = Gradients::exact;
  // Through a ledger: the gathers and the bytes sent are judged from outside the step (step_ledger.hpp).
  StepLedger ledger(*comm_, config, math_);
  ZeroStep step(ledger, config, &world_.device(), math_);
  {
    const ArmedStep armed = watchdog_.arm(StepKind::zero_step, label + ": --check steps");
    for (int k = 0; k < plan_.check_steps; ++k) step.run(timeout_);
    step.to_host();
  }
  MismatchWire mine;
  if (const auto m = check_step(step, ledger, connector_.size(), plan_.type, adam_)) {
    mine = {m->count, m->index, m->got, m->expected, {}};
    m->what.copy(mine.what.data(), mine.what.size() - 1);
  }
  std::vector<MismatchWire> all;
  {
    const ArmedStep armed = watchdog_.arm(StepKind::check_count, label + ": gathering the check");
    all = allgather_value(connector_, mine, armed);
  }
  std::int64_t wrong = 0;
  int first = -1;
  for (std::size_t r = 0; r < all.size(); ++r) {
    wrong += static_cast<std::int64_t>(all[r].count);
    if (all[r].count > 0 && (first < 0 || all[r].index < all[static_cast<std::size_t>(first)].index)) {
      first = static_cast<int>(r);
    }
  }
  result.wrong = wrong;
  outcome.wrong += wrong;
  if (first >= 0 && root_) {
    MismatchWire shown = all[static_cast<std::size_t>(first)];
    shown.count = static_cast<std::uint64_t>(wrong);
    outcome.warnings.push_back(
        {"zero_mismatch", mismatch_text(stage_text, shown, first, plan_.check_steps, plan_.layers)});
  }
  check_sent_bytes(ledger, stage_text, result, outcome);
}

// Every rank's bytes sent in the check's steps against the paper's formula: a difference is a rank counted wrong.
void ZeroRun::check_sent_bytes(const StepLedger& ledger, const std::string& stage_text, StageResult& result,
                               BenchmarkOutcome& outcome) {
  const SentCheck mine = check_sent(ledger, plan_.check_steps);
  std::vector<SentWire> all;
  {
    const ArmedStep armed = watchdog_.arm(StepKind::check_count, fmt::format("zero stage {}: bytes sent", stage_text));
    all = allgather_value(connector_, SentWire{mine.sent, mine.formula}, armed);
  }
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (all[r].sent == all[r].formula) continue;
    ++result.wrong;
    ++outcome.wrong;
    if (!root_) continue;
    outcome.warnings.push_back(
        {"zero_bytes_sent",
         fmt::format("zero --check, stage {}: rank {} sent {} bytes in {} steps where the paper's formula (ring "
                     "algorithms) says {}",
                     stage_text, r, all[r].sent, plan_.check_steps, all[r].formula)});
  }
}

// The timed step: zero gradients, fresh state, memory measured from here.
ZeroRun::Timed ZeroRun::time_stage(StepConfig config, const std::string& label, const std::string& stage_text,
                                   StageResult& result) {
  config.gradients = Gradients::zero;
  const bool peak_reset = reset_peak_resident();
  const auto base = resident_bytes();
  Timed t;
  {
    const auto free_before = device_free(world_, math_, watchdog_);
    ZeroStep step(*comm_, config, &world_.device(), math_);
    const auto free_made = device_free(world_, math_, watchdog_);
    t.held = static_cast<double>(step.state_bytes() + step.buffer_bytes());
    t.calls = step.calls();
    Communicator* comm = comm_;
    TimedOperation op{label,
                      {},
                      [comm](Seconds s) { comm->synchronize(s); },
                      [comm] { return comm->make_timer(); },
                      step_phases(step, *comm_, world_.device(), config.stage, timeout_)};
    t.sampling = sample_operation(connector_, op, rules_, watchdog_);
    device_memory(t, free_before, free_made, stage_text);
    result.update_bytes = static_cast<double>(
        numerics::adam_bytes_moved(plan_.type, step.updated_elements(), plan_.type != DType::float32));
    network_per_step(step, label, t);
    t.update_alone = update_alone(step, label);
  }
  const auto peak = peak_resident_bytes();
  t.peak_growth = peak_reset && base && peak && *peak >= *base ? static_cast<double>(*peak - *base) : kNotMeasured;
  return t;
}

void ZeroRun::device_memory(Timed& t, std::optional<std::uint64_t> before, std::optional<std::uint64_t> made,
                            const std::string& stage_text) {
  const auto after = device_free(world_, math_, watchdog_);
  if (!before || !made || !after) return;
  t.device_arrays = static_cast<double>(*before) - static_cast<double>(*made);
  t.device_during = static_cast<double>(*made) - static_cast<double>(*after);
  // Free memory that rose meanwhile (something else on the GPU released memory): the difference is not this step's,
  // and a negative size is no size; withheld, and said.
  if (t.device_arrays < 0 || t.device_during < 0) {
    t.device_arrays = t.device_during = kNotMeasured;
    memory_withheld_.push_back(stage_text);
  }
}

// A few more steps between two reads of the network interfaces.
void ZeroRun::network_per_step(ZeroStep& step, const std::string& label, Timed& t) {
  const ArmedStep armed = watchdog_.arm(StepKind::zero_step, label + ": steps between the interface counters");
  connector_.barrier(armed);
  const auto before = network_bytes();
  for (int k = 0; k < kNetworkSteps; ++k) step.run(timeout_);
  connector_.barrier(armed);
  const auto after = network_bytes();
  if (before && after) {
    const double share = kNetworkSteps * static_cast<double>(std::max(1, connector_.local_size()));
    t.net_sent = static_cast<double>(after->sent - before->sent) / share;
    t.net_received = static_cast<double>(after->received - before->received) / share;
  }
}

// The update alone, on every rank at once; the slowest rank's (the collective after the update waits for it).
double ZeroRun::update_alone(ZeroStep& step, const std::string& label) {
  World& world = world_;
  const TimedOperation alone{label + ": update alone",
                             [&step](int times, const ArmedStep&) {
                               for (int i = 0; i < times; ++i) step.update();
                             },
                             [](Seconds) {},
                             [&world] { return world.device().make_timer(); },
                             {}};
  const double mine = mean(sample_operation(connector_, alone, rules_, watchdog_).samples);
  const ArmedStep armed = watchdog_.arm(StepKind::gather, label + ": the slowest rank's update");
  const auto updates = allgather_value(connector_, mine, armed);
  return *std::max_element(updates.begin(), updates.end());
}

double ZeroRun::predicted(const Timed& t) {
  double sum = t.update_alone;
  for (const StepCall& call : t.calls) {
    sum += call.times * collective_alone(world_, *comm_, call, plan_.type, rules_, watchdog_);
  }
  return sum;
}

void ZeroRun::gather(const std::string& label, const Timed& t, StageResult& result) {
  const ArmedStep step = watchdog_.arm(StepKind::gather, label + ": gathering the results");
  const int to = connector_.root_rank();
  // each rank's mean gathered, the samples reduced along a tree: no rank's samples travel whole
  const auto deadline = deadline_after(2 * watchdog_.timeout_s());
  result.step = reduce_phase_over_ranks(connector_, "step", t.sampling.samples, RankAverage::avg, to, step, deadline);
  for (std::size_t p = 0; p < t.sampling.phase_samples.size(); ++p) {
    result.phases.push_back(reduce_phase_over_ranks(connector_, "phase", t.sampling.phase_samples[p], RankAverage::avg,
                                                    to, step, deadline));
  }
  result.held_bytes = allgather_value(connector_, t.held, step);
  result.peak_rss_bytes = allgather_value(connector_, t.peak_growth, step);
  result.device_array_bytes = allgather_value(connector_, t.device_arrays, step);
  result.device_step_bytes = allgather_value(connector_, t.device_during, step);
  result.net_sent_bytes = allgather_value(connector_, t.net_sent, step);
  result.net_received_bytes = allgather_value(connector_, t.net_received, step);
  // The largest update of any rank bounds the step.
  const auto update_bytes = allgather_value(connector_, result.update_bytes, step);
  result.update_bytes = *std::max_element(update_bytes.begin(), update_bytes.end());
  const auto faults = allgather_value(connector_, t.sampling.os_per_op.faults(), step);
  result.faults_per_step = *std::max_element(faults.begin(), faults.end());
}

void ZeroRun::add_run_warnings(BenchmarkOutcome& outcome) const {
  if (!root_) return;
  if (faulting_ > 0) outcome.warnings.push_back({"page_faults", fault_advice(faulting_, plan_)});
  if (!memory_withheld_.empty()) {
    outcome.warnings.push_back(
        {"figure_out_of_range",
         fmt::format("device memory withheld at stage {} (device_mb, device_step_mb null): the GPU's free memory rose "
                     "while this rank's step allocated, so the difference is not the step's; another process on the "
                     "GPU released memory meanwhile: rerun where nothing else uses the GPU",
                     fmt::join(memory_withheld_, ", "))});
  }
}

}  // namespace distbench::zero
