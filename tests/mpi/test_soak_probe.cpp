// Health's data-corruption soak on real MPI ranks (benchmarks/health/soak_probe), run and gathered as the check runs
// it (PhaseRunner) and judged on the root: a communicator that corrupts every third result on one rank is caught and
// that rank alone is named; the real one passes, every rank making the same calls.
#include "tests/mpi/mpi_environment.hpp"

#include "benchmarks/health/soak.hpp"
#include "core/comm/forwarding_communicator.hpp"
#include "core/comm/groups.hpp"
#include "tests/support/test_step.hpp"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>

namespace distbench::health {
namespace {

using mpitest::connector;
using mpitest::world;
using ::testing::HasSubstr;

// The result of a call, made wrong after it completed: one bit of the exponent or the top of the first element.
class CorruptedWork final : public Work {
 public:
  CorruptedWork(std::unique_ptr<Work> real, std::byte* top_byte) : real_(std::move(real)), top_byte_(top_byte) {}
  bool done() override {
    if (!real_->done()) return false;
    corrupt();
    return true;
  }
  void wait(Seconds timeout) override {
    real_->wait(timeout);
    corrupt();
  }

 private:
  void corrupt() {
    if (top_byte_ != nullptr) *top_byte_ ^= std::byte{0x40};
    top_byte_ = nullptr;
  }
  std::unique_ptr<Work> real_;
  std::byte* top_byte_;
};

// On rank `victim`, every `every`-th allreduce of more than one element reads back wrong (host memory: the MPI
// backend's results): an intermittent fault of one rank's device or path. The soak's one-element agreement to stop
// stays right.
class CorruptsEveryNth final : public ForwardingCommunicator {
 public:
  CorruptsEveryNth(Communicator& real, int victim, int every)
      : ForwardingCommunicator(real), victim_(victim), every_(every) {}
  std::unique_ptr<Work> start(const CollectiveCall& call) override {
    auto work = real().start(call);
    if (call.collective != Collective::allreduce || call.count < 2 || rank() != victim_ || ++calls_ % every_ != 0) {
      return work;
    }
    auto* first = static_cast<std::byte*>(result_at(call).data());
    return std::make_unique<CorruptedWork>(std::move(work), first + size_of(call.dtype) - 1);
  }

 private:
  int victim_;
  int every_;
  int calls_ = 0;
};

HealthPlan soak_plan() {
  HealthPlan plan;
  plan.allreduce_bytes = std::size_t{64} << 10;
  plan.soak_seconds = 0.3;
  plan.timeout_s = 30;
  return plan;
}

// The soak as HealthRun runs it: on every rank through a PhaseRunner, the root's judgement, its decision passed on.
std::vector<Check> run_soak(Communicator& comm, const HealthPlan& plan, PhaseResult& result) {
  const auto hosts = allgather_string(connector(), connector().hostname(), test_step());
  PhaseRunner runner(connector(), plan.timeout_s);
  result = runner.run(
      "soak", [&](PhaseContext& ctx) { return probe_soak(world(), comm, plan, ctx); }, soak_phase_timeout_s(plan));
  runner.decide({{"go", true}});
  if (!connector().is_root()) return {};
  return soak_checks(result, make_topology(connector().node_of_ranks(), hosts), plan);
}

const Check* check_of(const std::vector<Check>& checks, const std::string& subject, const std::string& metric) {
  for (const Check& c : checks) {
    if (c.subject == subject && c.metric == metric) return &c;
  }
  return nullptr;
}

TEST(SoakProbe, ACorruptedRankIsCaughtAndNamedAlone) {
  const int victim = connector().size() - 1;
  Communicator& comm = world().communicator(world_partition(connector().size()), test_step());
  CorruptsEveryNth mutant(comm, victim, 3);
  const HealthPlan plan = soak_plan();
  PhaseResult result;
  const auto checks = run_soak(mutant, plan, result);
  if (!connector().is_root()) return;
  const auto& mine = *result.ranks[static_cast<std::size_t>(victim)];
  const double calls = mine["calls"].get<double>();
  EXPECT_GE(calls, 4);  // one round of the rotation at least
  EXPECT_GE(mine["calls_wrong"].get<double>(), 1);
  for (int r = 0; r < connector().size(); ++r) {
    const std::string subject = fmt::format("rank {}", r);
    const Check* wrong = check_of(checks, subject, "soak.calls_wrong");
    const Check* elements = check_of(checks, subject, "soak.elements_wrong");
    ASSERT_NE(wrong, nullptr) << subject;
    ASSERT_NE(elements, nullptr) << subject;
    if (r != victim) {
      EXPECT_EQ(wrong->status, Status::healthy) << subject;
      EXPECT_EQ(elements->value, 0) << subject;
      continue;
    }
    // every third call of the data (the agreement's calls are not counted): a third of the calls, one element each
    EXPECT_EQ(wrong->status, Status::failed);
    EXPECT_EQ(wrong->value, std::floor(calls / 3));
    EXPECT_EQ(elements->value, wrong->value);
    EXPECT_EQ(wrong->host, connector().hostname());
    EXPECT_THAT(wrong->why, HasSubstr(fmt::format("calls read back wrong on {} (cpu (host memory))", wrong->host)));
    EXPECT_THAT(wrong->why, HasSubstr("first at call 3 (allreduce of "));
  }
}

TEST(SoakProbe, TheRealCommunicatorPassesAndEveryRankMakesTheSameCalls) {
  Communicator& comm = world().communicator(world_partition(connector().size()), test_step());
  const HealthPlan plan = soak_plan();
  PhaseResult result;
  const auto checks = run_soak(comm, plan, result);
  if (!connector().is_root()) return;
  const double calls = (*result.ranks.front())["calls"].get<double>();
  EXPECT_EQ(static_cast<int>(calls) % 4, 0);  // whole rounds of the four cases
  for (const auto& r : result.ranks) {
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ((*r)["calls"].get<double>(), calls);
    EXPECT_EQ((*r)["calls_wrong"].get<double>(), 0);
  }
  for (const Check& c : checks) EXPECT_EQ(c.status, Status::healthy) << describe(c);
  ASSERT_NE(check_of(checks, "job", "soak.calls"), nullptr);
  EXPECT_EQ(check_of(checks, "job", "soak.calls")->value, calls);
}

}  // namespace
}  // namespace distbench::health
