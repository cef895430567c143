#include "model/recorded_algorithm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string_view>

namespace distbench::model {
namespace {

const std::string* find_variable(const std::vector<std::pair<std::string, std::string>>& variables,
                                 std::string_view key) {
  for (const auto& [k, v] : variables) {
    if (k == key) return &v;
  }
  return nullptr;
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char ch) { return std::tolower(ch); });
  return text;
}

bool truthy(const std::string& v) {
  const std::string l = lower(v);
  return l == "1" || l == "true" || l == "yes" || l == "enabled" || l == "t" || l == "y";
}

}  // namespace

std::optional<Algorithm> open_mpi_algorithm(Collective c, const std::string& value, std::string& library_name) {
  const std::span<const OpenMpiAlgorithm> choices = open_mpi_names(c).algorithms;
  std::size_t index = choices.size();
  if (!value.empty() && std::all_of(value.begin(), value.end(), [](unsigned char ch) { return std::isdigit(ch); })) {
    const auto n = std::stoul(value.substr(0, 4));
    if (n >= 1 && n <= choices.size()) index = n - 1;
  } else {
    const std::string l = lower(value);
    for (std::size_t i = 0; i < choices.size(); ++i) {
      if (choices[i].name == l) index = i;
    }
  }
  if (index >= choices.size()) {
    library_name = value;
    return std::nullopt;
  }
  library_name = std::string(choices[index].name);
  return choices[index].formula;
}

RecordedAlgorithm recorded_algorithm(const std::vector<std::pair<std::string, std::string>>& variables, Collective c) {
  RecordedAlgorithm out;
  const std::string key = fmt::format("OMPI_MCA_coll_tuned_{}_algorithm", open_mpi_names(c).name);
  if (const std::string* v = find_variable(variables, key); v != nullptr && *v != "0" && lower(*v) != "ignore") {
    out.source = fmt::format("{}={}", key, *v);
    out.algorithm = open_mpi_algorithm(c, *v, out.library_name);
    const std::string* dynamic = find_variable(variables, "OMPI_MCA_coll_tuned_use_dynamic_rules");
    if (dynamic == nullptr || !truthy(*dynamic)) {
      out.note =
          fmt::format("{} is recorded, but Open MPI ignores it without coll_tuned_use_dynamic_rules=1", out.source);
      out.algorithm = std::nullopt;
    } else if (!out.algorithm) {
      out.note = fmt::format("Open MPI ran '{}' ({}), which no cost formula here models", out.library_name, out.source);
    }
    return out;
  }
  if (const std::string* v = find_variable(variables, "NCCL_ALGO"); v != nullptr) {
    out.source = fmt::format("NCCL_ALGO={}", *v);
    out.library_name = *v;
    if (lower(*v) == "ring") {
      out.algorithm = Algorithm::ring;
    } else {
      out.note = fmt::format("NCCL ran '{}' ({}), which no cost formula here models", *v, out.source);
    }
  }
  return out;
}

}  // namespace distbench::model
