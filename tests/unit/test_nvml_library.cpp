// NVML opened at run time (core/sys/nvml_library): a node without the driver's library gets the reason, which every
// GPU check then carries as its skip reason.
#include "core/sys/nvml_library.hpp"

#include <gtest/gtest.h>

namespace distbench {
namespace {

TEST(NvmlLibrary, AMissingLibrarySaysWhyInsteadOfFailing) {
  auto opened = NvmlLibrary::open("libnvidia-ml-that-does-not-exist.so.1");
  ASSERT_TRUE(std::holds_alternative<std::string>(opened));
  const std::string why = std::get<std::string>(opened);
  EXPECT_NE(why.find("libnvidia-ml-that-does-not-exist.so.1"), std::string::npos) << why;
  EXPECT_NE(why.find("no NVIDIA driver"), std::string::npos) << why;
}

TEST(NvmlLibrary, ALibraryWithoutNvmlsEntryIsRefused) {
  // libc opens, and has no nvmlInit_v2.
  auto opened = NvmlLibrary::open("libc.so.6");
  ASSERT_TRUE(std::holds_alternative<std::string>(opened));
  EXPECT_NE(std::get<std::string>(opened).find("has no nvmlInit_v2"), std::string::npos);
}

}  // namespace
}  // namespace distbench
