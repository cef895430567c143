// Tensor parallelism on real MPI ranks: every operation, pass and dim equals the non-parallel result exactly, and
// every layer kind matches the single-rank layer, for each group size that divides the world (1, 2, 4; 3 at np 3).
#include "tests/mpi/mpi_environment.hpp"

#include "benchmarks/tp/tp_layers.hpp"
#include "benchmarks/tp/tp_ops.hpp"
#include "core/comm/forwarding_communicator.hpp"
#include "core/comm/groups.hpp"
#include "numerics/host_math.hpp"
#include "tests/support/test_step.hpp"

#include <fmt/core.h>
#include <gtest/gtest.h>

namespace distbench::tp {
namespace {

using mpitest::connector;
using mpitest::world;

constexpr Seconds kTimeout{60.0};

std::vector<int> group_sizes() {
  std::vector<int> out;
  for (int g : {1, 2, 3, 4}) {
    if (connector().size() % g == 0) out.push_back(g);
  }
  return out;
}

TEST(Tp, EveryOperationPassAndDimIsExact) {
  numerics::HostMath math(1);
  for (int g : group_sizes()) {
    Communicator& group = world().communicator(consecutive_partition(connector().size(), g), test_step());
    for (DType dtype : {DType::float32, DType::bfloat16}) {
      for (int dim : {0, 1}) {
        OpRunner runner(group, world().device(), math, shard_layout({12, 24}, dim, g), dtype);
        for (Op op : {Op::scatter, Op::gather, Op::reduce, Op::copy}) {
          for (Pass pass : {Pass::forward, Pass::backward}) {
            const Primitive p = primitive(op, pass);
            runner.prepare(p);
            runner.run(p, kTimeout);
            EXPECT_EQ(runner.count_wrong(p), 0U)
                << fmt::format("group {}, {}, dim {}, {} {}", g, name(dtype), dim, name(op), name(pass));
          }
        }
      }
    }
  }
}

// The check can fail: after a correct all-gather along columns, the tensor overwritten with other values (the
// allreduce's summands) is counted wrong.
TEST(Tp, TheCheckCountsAWrongTensor) {
  if (connector().size() < 2) GTEST_SKIP() << "needs 2 ranks";
  numerics::HostMath math(1);
  Communicator& group = world().communicator(world_partition(connector().size()), test_step());
  const Shape shape{8, 8 * static_cast<std::size_t>(connector().size())};
  OpRunner runner(group, world().device(), math, shard_layout(shape, 1, connector().size()), DType::float32);
  runner.prepare(Primitive::allgather);
  runner.run(Primitive::allgather, kTimeout);
  EXPECT_EQ(runner.count_wrong(Primitive::allgather), 0U);
  runner.prepare(Primitive::allreduce);
  EXPECT_GT(runner.count_wrong(Primitive::allgather), 0U);
}

TEST(Tp, EveryLayerMatchesTheSingleRankLayer) {
  numerics::HostMath math(1);
  for (int g : group_sizes()) {
    Communicator& group = world().communicator(consecutive_partition(connector().size(), g), test_step());
    for (LayerKind kind : {LayerKind::column, LayerKind::row, LayerKind::mlp}) {
      ParallelLayer layer(kind, {24, 36, 5}, group, world().device(), math, 7);
      const LayerTimes t = layer.step(kTimeout);
      EXPECT_GE(t.forward, 0.0);
      EXPECT_GE(t.comm, 0.0);
      const LayerCheck c = layer.check(1);
      EXPECT_EQ(c.wrong, 0U) << fmt::format("group {}, {} layer: up to {:.3g} times the bound", g, name(kind),
                                            c.max_over_bound);
      EXPECT_LE(c.max_over_bound, 1.0);
    }
  }
}

// The layer's all-reduces made wrong, one way each: left out (each rank keeps its partial sums), done twice (x the
// group size), or reduced from one element further on (a wrong block offset: each element gets its neighbour's sum).
enum class Mistake { skip, twice, offset };

class MutantAllreduce final : public ForwardingCommunicator {
 public:
  MutantAllreduce(Communicator& real, Mistake mistake) : ForwardingCommunicator(real), mistake_(mistake) {}
  std::unique_ptr<Work> start(const CollectiveCall& call) override {
    if (call.collective != Collective::allreduce) return real().start(call);
    CollectiveCall c = call;
    switch (mistake_) {
      case Mistake::skip: c.count = 0; break;
      case Mistake::twice: real().start(call)->wait(kTimeout); break;
      case Mistake::offset:
        c.send = c.recv = call.recv.at(sizeof(float));
        c.count = call.count - 1;
        break;
    }
    return real().start(c);
  }

 private:
  Mistake mistake_;
};

// The derived bound is tight enough to see each mistake in every layer that all-reduces in the pass it breaks
// (column: the input gradient; row: the output; MLP: both), at every group size above 1.
TEST(Tp, EveryLayerMistakeInItsAllreducesIsCaught) {
  numerics::HostMath math(1);
  for (int g : group_sizes()) {
    if (g < 2) continue;
    for (Mistake mistake : {Mistake::skip, Mistake::twice, Mistake::offset}) {
      for (LayerKind kind : {LayerKind::column, LayerKind::row, LayerKind::mlp}) {
        MutantAllreduce group(world().communicator(consecutive_partition(connector().size(), g), test_step()), mistake);
        ParallelLayer layer(kind, {24, 36, 5}, group, world().device(), math, 7);
        layer.step(kTimeout);
        const LayerCheck c = layer.check(1);
        const auto all = allgather_value(connector(), static_cast<std::int64_t>(c.wrong), test_step());
        std::int64_t wrong = 0;
        for (auto w : all) wrong += w;
        EXPECT_GT(wrong, 0) << fmt::format("group {}, {} layer, mistake {}: not caught (up to {:.3g} of the bound)", g,
                                           name(kind), static_cast<int>(mistake), c.max_over_bound);
      }
    }
  }
}

}  // namespace
}  // namespace distbench::tp
