// CUDA / NCCL status codes as errors, the version texts, and cuBLAS opened at run time (no device needed).
#include "backends/nccl/cublas_library.hpp"
#include "backends/nccl/cuda_check.hpp"
#include "backends/nccl/nccl_calls.hpp"

#include "core/error.hpp"

#include <gtest/gtest.h>

namespace distbench::nccl {
namespace {

// Every function distbench calls is bound (a helper once named `bind` lost to std::bind by overload resolution and
// bound nothing: cuBLAS's first call jumped to address 0). Skips where no libcublas is found.
TEST(CublasLibrary, OpeningBindsEveryFunction) {
  std::shared_ptr<const CublasLibrary> lib;
  try {
    lib = CublasLibrary::open();
  } catch (const Error& e) {
    GTEST_SKIP() << e.what();
  }
  EXPECT_NE(lib->create, nullptr);
  EXPECT_NE(lib->destroy, nullptr);
  EXPECT_NE(lib->set_stream, nullptr);
  EXPECT_NE(lib->sgemm, nullptr);
  EXPECT_NE(lib->get_version, nullptr);
  EXPECT_NE(lib->path.find("libcublas"), std::string::npos) << lib->path;
}

TEST(VersionText, NcclCodesInBothEncodings) {
  EXPECT_EQ(nccl_version_text(22809), "2.28.9");  // NCCL_VERSION(2,28,9) = 2*10000 + 28*100 + 9
  EXPECT_EQ(nccl_version_text(21903), "2.19.3");
  EXPECT_EQ(nccl_version_text(2803), "2.8.3");  // before 2.9: 2*1000 + 8*100 + 3
}

TEST(VersionText, CudaCodes) {
  EXPECT_EQ(cuda_version_text(13000), "13.0");  // CUDART_VERSION = 1000*major + 10*minor
  EXPECT_EQ(cuda_version_text(12080), "12.8");
  EXPECT_EQ(cuda_version_text(11040), "11.4");
}

TEST(CheckCuda, ThrowsAFailureThatNamesTheCallAndCudaText) {
  try {
    check_cuda(cudaErrorInsufficientDriver, "cudaGetDeviceCount");
    FAIL() << "no error thrown";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::failure);
    const std::string text = e.what();
    EXPECT_NE(text.find("cudaGetDeviceCount failed"), std::string::npos) << text;
    EXPECT_NE(text.find("cudaErrorInsufficientDriver"), std::string::npos) << text;
  }
  EXPECT_NO_THROW(check_cuda(cudaSuccess, "nothing"));
}

TEST(CheckNccl, InProgressIsNotAnError) {
  EXPECT_NO_THROW(check_nccl(ncclSuccess, "ncclAllReduce"));
  EXPECT_NO_THROW(check_nccl(ncclInProgress, "ncclAllReduce"));
  try {
    check_nccl(ncclInvalidArgument, "ncclAllReduce");
    FAIL() << "no error thrown";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::failure);
    EXPECT_NE(std::string(e.what()).find("ncclAllReduce failed"), std::string::npos) << e.what();
  }
}

TEST(Worse, ErrorsBeatInProgressWhichBeatsSuccess) {
  EXPECT_EQ(worse(ncclSuccess, ncclSuccess), ncclSuccess);
  EXPECT_EQ(worse(ncclSuccess, ncclInProgress), ncclInProgress);
  EXPECT_EQ(worse(ncclInProgress, ncclSystemError), ncclSystemError);
  EXPECT_EQ(worse(ncclInvalidUsage, ncclSystemError), ncclInvalidUsage);  // the first error stays
}

TEST(StagingBytes, OnlyInPlaceAlltoallAndSendrecvStage) {
  alignas(8) static std::byte memory[4096];
  CollectiveCall call;
  call.count = 16;
  call.dtype = DType::float32;
  call.collective = Collective::alltoall;
  EXPECT_EQ(staging_bytes(call, memory, memory, 4), 16u * 4 * 4);
  EXPECT_EQ(staging_bytes(call, memory, memory + 256, 4), 0u);  // disjoint: out of place
  call.collective = Collective::sendrecv;
  EXPECT_EQ(staging_bytes(call, memory, memory, 4), 16u * 4);
  call.collective = Collective::allreduce;
  EXPECT_EQ(staging_bytes(call, memory, memory, 4), 0u);  // NCCL's in-place convention works as is
  call.collective = Collective::allgather;
  EXPECT_EQ(staging_bytes(call, memory + 64, memory, 4), 0u);
}

}  // namespace
}  // namespace distbench::nccl
