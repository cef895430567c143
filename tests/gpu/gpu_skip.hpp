// Tests that need a CUDA device skip, with the reason printed, where none is visible (CI, build machines).
#pragma once

#include "backends/nccl/gpu_info.hpp"

#include <gtest/gtest.h>

#define DISTBENCH_SKIP_WITHOUT_GPU()                                                  \
  do {                                                                                \
    if (const auto distbench_reason = ::distbench::nccl::cuda_unavailable_reason()) { \
      GTEST_SKIP() << *distbench_reason;                                              \
    }                                                                                 \
  } while (false)
