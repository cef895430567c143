#include "cli/launcher.hpp"

#include <cstdlib>
#include <string>

namespace distbench::cli {

int launcher_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) {
    if (const char* value = std::getenv(name)) return std::atoi(value);
  }
  return 0;
}

}  // namespace distbench::cli
