#include "cli/malloc_tuning.hpp"

#include "core/error.hpp"

#include <malloc.h>

#include <limits>

namespace distbench {

std::string apply_malloc_reuse() {
  constexpr int kTrimThreshold = std::numeric_limits<int>::max();
  if (mallopt(M_MMAP_MAX, 0) != 1 || mallopt(M_TRIM_THRESHOLD, kTrimThreshold) != 1) {
    throw failure("--malloc-reuse: glibc refused mallopt(M_MMAP_MAX / M_TRIM_THRESHOLD); run without it");
  }
  return fmt::format("M_MMAP_MAX=0 M_TRIM_THRESHOLD={}", kTrimThreshold);
}

}  // namespace distbench
