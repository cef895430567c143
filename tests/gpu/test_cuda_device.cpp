// The CUDA device: allocation per GPU, the fill and count kernels against the host's formulas, poison, copy, and
// the copy bandwidth reference. Needs a GPU; skips with the reason where none is visible.
#include "backends/nccl/copy_bandwidth.hpp"
#include "backends/nccl/cuda_device.hpp"

#include "core/device/checker_check.hpp"
#include "core/device/element.hpp"
#include "core/device/host_device.hpp"
#include "tests/gpu/gpu_skip.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace distbench::nccl {
namespace {

CudaDevice make_device() { return CudaDevice({0}, 1, nullptr); }

TEST(CudaDevice, AllocatesOnePartPerGpuAndReportsFreeMemory) {
  DISTBENCH_SKIP_WITHOUT_GPU();
  auto device = make_device();
  EXPECT_GT(device.memory_available(1), 0u);
  auto buffer = device.allocate(1000);
  EXPECT_EQ(buffer->parts(), 1);
  EXPECT_EQ(buffer->bytes(), 1000u);
  EXPECT_NE(buffer->data(0), nullptr);
  EXPECT_NE(device.describe().find("cuda: GPU 0"), std::string::npos) << device.describe();
}

// The GPU fill gives the same bytes as the host device's, for every dtype and pattern kind.
TEST(CudaDevice, FillMatchesTheHostFormulas) {
  DISTBENCH_SKIP_WITHOUT_GPU();
  auto device = make_device();
  HostDevice host;
  constexpr std::size_t kCount = 5000;
  for (DType t : all_dtypes()) {
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::prod, ReduceOp::max}) {
      const auto pattern = make_pattern(Collective::allreduce, op, t, 5);
      const std::size_t bytes = kCount * size_of(t);
      auto gpu = device.allocate(bytes);
      auto want = host.allocate(bytes);
      device.fill({gpu.get(), 0}, kCount, t, FillSpec{pattern, 3});
      host.fill({want.get(), 0}, kCount, t, FillSpec{pattern, 3});
      std::vector<std::byte> got(bytes);
      ASSERT_EQ(cudaMemcpy(got.data(), gpu->data(0), bytes, cudaMemcpyDeviceToHost), cudaSuccess);
      EXPECT_EQ(std::memcmp(got.data(), want->data(0), bytes), 0) << name(t) << " " << name(op);
    }
  }
}

// A one-rank allreduce leaves the input in place: the count is 0 on the input and counts every poisoned element.
TEST(CudaDevice, CountWrongFindsExactlyThePoisonedElements) {
  DISTBENCH_SKIP_WITHOUT_GPU();
  auto device = make_device();
  constexpr std::size_t kCount = 100000;
  for (DType t : all_dtypes()) {
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::avg, ReduceOp::min}) {
      const auto pattern = make_pattern(Collective::allreduce, op, t, 1);
      const std::size_t elem = size_of(t);
      auto buffer = device.allocate(kCount * elem);
      device.fill({buffer.get(), 0}, kCount, t, FillSpec{pattern, 0});
      const CheckSpec spec{pattern, op, Collective::allreduce, kCount, 0, 0};
      EXPECT_EQ(device.count_wrong({buffer.get(), 0}, t, spec), 0u) << name(t) << " " << name(op);
      device.poison({buffer.get(), 1000 * elem}, 37 * elem);
      EXPECT_EQ(device.count_wrong({buffer.get(), 0}, t, spec), 37u) << name(t) << " " << name(op);
    }
  }
}

TEST(CudaDevice, CountWrongChecksEveryBlockOfAGather) {
  DISTBENCH_SKIP_WITHOUT_GPU();
  auto device = make_device();
  // Rank 0 of 3 after allgather of 10 elements: blocks from ranks 0, 1 and 2. Write them from the host formulas.
  const auto pattern = make_pattern(Collective::allgather, ReduceOp::sum, DType::int32, 3);
  std::vector<std::int32_t> result(30);
  for (int r = 0; r < 3; ++r) {
    for (std::size_t i = 0; i < 10; ++i) {
      result[static_cast<std::size_t>(r) * 10 + i] = static_cast<std::int32_t>(pattern_input(pattern, r, i).m);
    }
  }
  auto buffer = device.allocate(result.size() * sizeof(std::int32_t));
  ASSERT_EQ(cudaMemcpy(buffer->data(0), result.data(), buffer->bytes(), cudaMemcpyHostToDevice), cudaSuccess);
  const CheckSpec spec{pattern, ReduceOp::sum, Collective::allgather, 10, 0, 0};
  EXPECT_EQ(device.count_wrong({buffer.get(), 0}, DType::int32, spec), 0u);
  result[25] ^= 1;  // one wrong element in the last block
  ASSERT_EQ(cudaMemcpy(buffer->data(0), result.data(), buffer->bytes(), cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(device.count_wrong({buffer.get(), 0}, DType::int32, spec), 1u);
}

// fill_expected writes the host device's bytes (corrupted elements included), and the GPU's checker passes its own
// check in every case a sweep can run, the tolerance of floating-point avg included.
TEST(CudaDevice, FillExpectedMatchesTheHostAndTheCheckerPassesItsCheck) {
  DISTBENCH_SKIP_WITHOUT_GPU();
  auto device = make_device();
  HostDevice host;
  const std::vector<std::uint64_t> corrupt = {0, 17, 29};
  for (DType t : all_dtypes()) {
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::avg, ReduceOp::min}) {
      const auto pattern = make_pattern(Collective::allgather, op, t, 3);
      const CheckSpec spec{pattern, op, Collective::allgather, 10, 0, 1};
      const std::size_t bytes = 30 * size_of(t);
      auto gpu = device.allocate(bytes);
      auto want = host.allocate(bytes);
      device.fill_expected({gpu.get(), 0}, t, spec, corrupt);
      host.fill_expected({want.get(), 0}, t, spec, corrupt);
      std::vector<std::byte> got(bytes);
      ASSERT_EQ(cudaMemcpy(got.data(), gpu->data(0), bytes, cudaMemcpyDeviceToHost), cudaSuccess);
      EXPECT_EQ(std::memcmp(got.data(), want->data(0), bytes), 0) << name(t) << " " << name(op);
    }
  }
  for (Collective c : all_collectives()) {
    for (DType t : all_dtypes()) {
      for (ReduceOp op : all_reduce_ops()) {
        if (is_reduction(c) ? !defined_for(op, t) : op != ReduceOp::sum) continue;
        for (int rank = 0; rank < 3; ++rank) {
          EXPECT_NO_THROW(check_checker(device, CheckerCase{c, t, op, 3, rank}, 5)) << name(c) << " " << name(t);
        }
      }
    }
  }
}

TEST(CudaDevice, CopyMovesTheBytes) {
  DISTBENCH_SKIP_WITHOUT_GPU();
  auto device = make_device();
  const auto pattern = make_pattern(Collective::broadcast, ReduceOp::sum, DType::float32, 1);
  auto a = device.allocate(4096 * sizeof(float));
  auto b = device.allocate(4096 * sizeof(float));
  device.fill({a.get(), 0}, 4096, DType::float32, FillSpec{pattern, 0});
  device.poison({b.get(), 0}, b->bytes());
  device.copy({b.get(), 0}, {a.get(), 0}, a->bytes());
  EXPECT_EQ(device.count_wrong({b.get(), 0}, DType::float32,
                               CheckSpec{pattern, ReduceOp::sum, Collective::broadcast, 4096, 0, 0}),
            0u);
}

TEST(CopyBandwidth, MeasuresAllThreeDirections) {
  DISTBENCH_SKIP_WITHOUT_GPU();
  const auto bw = measure_copy_bandwidth(0, std::size_t{16} << 20, 3);
  EXPECT_GT(bw.bytes, 0u);
  EXPECT_GT(bw.h2d, 0.0);
  EXPECT_GT(bw.d2h, 0.0);
  EXPECT_GT(bw.d2d, 0.0);
  std::printf("h2d %.1f GB/s, d2h %.1f GB/s, d2d %.1f GB/s (%zu bytes)\n", bw.h2d * 1e-9, bw.d2h * 1e-9, bw.d2d * 1e-9,
              bw.bytes);
}

}  // namespace
}  // namespace distbench::nccl
