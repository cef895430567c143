// Which algorithm a report's run used, where the library exposes it and the report recorded the setting: Open MPI's
// coll_tuned_<collective>_algorithm (a number or a name; in force only with coll_tuned_use_dynamic_rules), as the
// OMPI_MCA_* variable mpirun sets for `--mca`, and NCCL_ALGO. A report keeps these in its environment variables.
#pragma once

#include "core/device/collective.hpp"
#include "core/report/record.hpp"
#include "model/cost_formulas.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace distbench::model {

struct RecordedAlgorithm {
  std::optional<Algorithm> algorithm;  // the cost formula that applies; nullopt: none recorded, or no formula
  std::string library_name;            // the library's own name for it ("segmented_ring", "Tree"); empty: none
  std::string source;                  // "OMPI_MCA_coll_tuned_allreduce_algorithm=4"; empty: none recorded
  std::string note;                    // why a recorded setting is not used (no formula, not in force)
};

// From a report's recorded environment variables (name, value).
RecordedAlgorithm recorded_algorithm(const std::vector<std::pair<std::string, std::string>>& variables, Collective c);

// Open MPI's name or number for coll_tuned_<c>_algorithm mapped to a cost formula; `library_name` gets the name.
std::optional<Algorithm> open_mpi_algorithm(Collective c, const std::string& value, std::string& library_name);

}  // namespace distbench::model
