#include "model/recorded_algorithm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string_view>

namespace distbench::model {
namespace {

// Open MPI 4.1's names and numbers (ompi_info --param coll tuned --level 9), in order from 1; "" where no formula
// here models it (a linear or k-nomial variant, a segmented tree).
struct OmpiChoice {
  std::string_view name;
  std::optional<Algorithm> formula;
};
using A = Algorithm;
const std::vector<OmpiChoice>& ompi_choices(Collective c) {
  static const std::vector<OmpiChoice> allreduce = {
      {"basic_linear", std::nullopt}, {"nonoverlapping", A::binomial}, {"recursive_doubling", A::recursive_doubling},
      {"ring", A::ring}, {"segmented_ring", A::ring}, {"rabenseifner", A::rabenseifner}};
  static const std::vector<OmpiChoice> allgather = {
      {"linear", std::nullopt}, {"bruck", A::bruck}, {"recursive_doubling", A::recursive_doubling},
      {"ring", A::ring}, {"neighbor", std::nullopt}, {"two_proc", A::ring}};
  static const std::vector<OmpiChoice> reduce_scatter = {
      {"non-overlapping", std::nullopt}, {"recursive_halving", A::recursive_halving}, {"ring", A::ring},
      {"butterfly", std::nullopt}};
  static const std::vector<OmpiChoice> bcast = {
      {"basic_linear", std::nullopt}, {"chain", A::ring}, {"pipeline", A::ring}, {"split_binary_tree", std::nullopt},
      {"binary_tree", std::nullopt}, {"binomial", A::binomial}, {"knomial", std::nullopt},
      {"scatter_allgather", A::scatter_allgather}, {"scatter_allgather_ring", A::scatter_allgather}};
  static const std::vector<OmpiChoice> reduce = {
      {"linear", std::nullopt}, {"chain", A::ring}, {"pipeline", A::ring}, {"binary", std::nullopt},
      {"binomial", A::binomial}, {"in-order_binary", std::nullopt}, {"rabenseifner", A::rabenseifner}};
  static const std::vector<OmpiChoice> alltoall = {
      {"linear", A::pairwise}, {"pairwise", A::pairwise}, {"modified_bruck", A::bruck},
      {"linear_sync", A::pairwise}, {"two_proc", A::pairwise}};
  static const std::vector<OmpiChoice> gather = {
      {"basic_linear", A::linear}, {"binomial", A::binomial}, {"linear_sync", A::linear}};
  static const std::vector<OmpiChoice> scatter = {
      {"basic_linear", A::linear}, {"binomial", A::binomial}, {"linear_nb", A::linear}};
  static const std::vector<OmpiChoice> none;
  switch (c) {
    case Collective::allreduce: return allreduce;
    case Collective::allgather: return allgather;
    case Collective::reduce_scatter: return reduce_scatter;
    case Collective::broadcast: return bcast;
    case Collective::reduce: return reduce;
    case Collective::alltoall: return alltoall;
    case Collective::gather: return gather;
    case Collective::scatter: return scatter;
    case Collective::sendrecv: return none;
  }
  return none;
}

// Open MPI's name of the collective in its MCA variables.
std::string_view ompi_name(Collective c) {
  switch (c) {
    case Collective::reduce_scatter: return "reduce_scatter";
    case Collective::broadcast: return "bcast";
    default: return name(c);
  }
}

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
  const auto& choices = ompi_choices(c);
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

RecordedAlgorithm recorded_algorithm(const std::vector<std::pair<std::string, std::string>>& variables,
                                     Collective c) {
  RecordedAlgorithm out;
  const std::string key = fmt::format("OMPI_MCA_coll_tuned_{}_algorithm", ompi_name(c));
  if (const std::string* v = find_variable(variables, key); v != nullptr && *v != "0" && lower(*v) != "ignore") {
    out.source = fmt::format("{}={}", key, *v);
    out.algorithm = open_mpi_algorithm(c, *v, out.library_name);
    const std::string* dynamic = find_variable(variables, "OMPI_MCA_coll_tuned_use_dynamic_rules");
    if (dynamic == nullptr || !truthy(*dynamic)) {
      out.note = fmt::format("{} is recorded, but Open MPI ignores it without coll_tuned_use_dynamic_rules=1",
                             out.source);
      out.algorithm = std::nullopt;
    } else if (!out.algorithm) {
      out.note = fmt::format("Open MPI ran '{}' ({}), which no cost formula here models", out.library_name,
                             out.source);
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
