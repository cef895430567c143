// The backend entry: availability with its reason, build versions, the registry's choice, and (with a GPU) what
// `distbench info` shows.
#include "backends/nccl/nccl_backend.hpp"
#include "backends/registry.hpp"

#include "backends/nccl/cuda_check.hpp"
#include "backends/nccl/gpu_info.hpp"
#include "connectors/single_connector.hpp"
#include "core/error.hpp"
#include "tests/gpu/gpu_skip.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace distbench::nccl {
namespace {

std::optional<std::string> value_of(const KeyValues& kv, const std::string& key) {
  const auto it = std::find_if(kv.begin(), kv.end(), [&](const auto& e) { return e.first == key; });
  if (it == kv.end()) return std::nullopt;
  return it->second;
}

TEST(NcclBackendEntry, NamesItselfAndItsBuildVersions) {
  const auto entry = nccl_backend_entry();
  EXPECT_EQ(entry.name, "nccl");
  EXPECT_FALSE(entry.summary.empty());
  const auto versions = entry.build_versions();
  ASSERT_FALSE(versions.empty());
  EXPECT_EQ(value_of(versions, "nccl.header"), nccl_version_text(NCCL_VERSION_CODE));
  EXPECT_EQ(value_of(versions, "cuda.runtime"), cuda_version_text(CUDART_VERSION));
  int library = 0;
  ASSERT_EQ(ncclGetVersion(&library), ncclSuccess);  // works without a GPU
  EXPECT_EQ(value_of(versions, "nccl.library"), nccl_version_text(library));
}

TEST(NcclBackendEntry, UnavailableExactlyWhenCudaSeesNoDevice) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  cudaGetLastError();
  const auto reason = nccl_backend_entry().unavailable_reason();
  if (status == cudaSuccess && count > 0) {
    EXPECT_FALSE(reason) << *reason;
    return;
  }
  ASSERT_TRUE(reason);
  std::printf("unavailable here: %s\n", reason->c_str());
  EXPECT_EQ(reason->rfind("no CUDA device is visible (cudaGetDeviceCount", 0), 0u) << *reason;
  if (status != cudaSuccess) {
    EXPECT_NE(reason->find(cudaGetErrorString(status)), std::string::npos) << *reason;
  }
}

TEST(NcclBackendEntry, CreatingItWithoutADeviceFailsCleanly) {
  if (!cuda_unavailable_reason()) GTEST_SKIP() << "a CUDA device is visible: nothing to refuse";
  connectors::SingleConnector connector;
  try {
    nccl_backend_entry().create(connector, BackendOptions{});
    FAIL() << "created a backend without a device";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::unavailable);
    EXPECT_NE(std::string(e.what()).find("no CUDA device is visible"), std::string::npos) << e.what();
  }
}

// A process alone (no launcher, or a build without MPI): nccl where a device is visible; without one no backend can
// run (mpi needs an MPI launch), and the error says why for each.
TEST(NcclBackendRegistry, IsBuiltInAndPreferredWhereItCanRun) {
  const auto entries = backend_registry();
  ASSERT_FALSE(entries.empty());
  EXPECT_EQ(entries.front().name, "nccl");  // preferred by --backend auto where it can run
  connectors::SingleConnector connector;
  if (cuda_unavailable_reason()) {
    for (const char* requested : {"auto", "nccl"}) {
      try {
        choose_backend(requested, connector);
        FAIL() << "chose a backend without a device for " << requested;
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ExitCode::unavailable);
        EXPECT_NE(std::string(e.what()).find("no CUDA device is visible"), std::string::npos) << e.what();
      }
    }
  } else {
    EXPECT_EQ(choose_backend("auto", connector).name, "nccl");
  }
}

TEST(NcclBackend, BadOptionsAreUsageErrors) {
  connectors::SingleConnector connector;
  BackendOptions options;
  options.agg_iters = 0;
  try {
    nccl_backend_entry().create(connector, options);
    FAIL() << "accepted -m 0";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::usage) << e.what();
  }
}

TEST(NcclBackend, DescribesDevicesVersionsAndCopyBandwidth) {
  DISTBENCH_SKIP_WITHOUT_GPU();
  connectors::SingleConnector connector;
  auto backend = nccl_backend_entry().create(connector, BackendOptions{});
  EXPECT_EQ(backend->name(), "nccl");
  const auto facts = backend->describe();
  for (const char* key : {"device", "cuda.driver", "cuda.runtime", "nccl.header", "nccl.library", "gpu.0",
                          "copy.gpu0.h2d", "copy.gpu0.d2h", "copy.gpu0.d2d"}) {
    EXPECT_TRUE(value_of(facts, key)) << "no " << key;
  }
  for (const auto& [key, value] : facts) std::printf("  %s: %s\n", key.c_str(), value.c_str());
  int library = 0;
  ncclGetVersion(&library);
  EXPECT_EQ(value_of(facts, "warning").has_value(), library != NCCL_VERSION_CODE);
}

}  // namespace
}  // namespace distbench::nccl
