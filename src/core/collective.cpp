#include "core/collective.hpp"

#include <array>

namespace distbench {
namespace {
constexpr std::array kAll = {Collective::allreduce, Collective::reduce_scatter, Collective::allgather,
                             Collective::broadcast, Collective::reduce,         Collective::alltoall,
                             Collective::gather,    Collective::scatter,        Collective::sendrecv};

// Collectives whose message is split evenly across the ranks (S = count * nranks).
bool is_partitioned(Collective c) {
  return c == Collective::reduce_scatter || c == Collective::allgather || c == Collective::alltoall ||
         c == Collective::gather || c == Collective::scatter;
}
}  // namespace

std::span<const Collective> all_collectives() { return kAll; }

std::string_view name(Collective c) {
  switch (c) {
    case Collective::allreduce: return "allreduce";
    case Collective::reduce_scatter: return "reduce-scatter";
    case Collective::allgather: return "allgather";
    case Collective::broadcast: return "broadcast";
    case Collective::reduce: return "reduce";
    case Collective::alltoall: return "alltoall";
    case Collective::gather: return "gather";
    case Collective::scatter: return "scatter";
    case Collective::sendrecv: return "sendrecv";
  }
  return "?";
}

std::optional<Collective> parse_collective(std::string_view text) {
  for (Collective c : kAll) {
    if (name(c) == text) return c;
  }
  return std::nullopt;
}

bool is_reduction(Collective c) {
  return c == Collective::allreduce || c == Collective::reduce_scatter || c == Collective::reduce;
}

bool is_rooted(Collective c) {
  return c == Collective::broadcast || c == Collective::reduce || c == Collective::gather ||
         c == Collective::scatter;
}

std::string_view name(Placement p) { return p == Placement::in_place ? "in-place" : "out-of-place"; }

BufferShape buffer_shape(Collective c, std::size_t count, int nranks, int rank) {
  const auto n = static_cast<std::size_t>(nranks);
  const auto r = static_cast<std::size_t>(rank);
  switch (c) {
    case Collective::allreduce:
    case Collective::broadcast:
    case Collective::reduce:
    case Collective::sendrecv: return {count, count, 0, 0};
    case Collective::reduce_scatter: return {count * n, count, 0, r * count};
    case Collective::allgather: return {count, count * n, r * count, 0};
    case Collective::alltoall: return {count * n, count * n, 0, 0};
    case Collective::gather: return {count, count * n, r * count, 0};
    case Collective::scatter: return {count * n, count, 0, r * count};
  }
  return {};
}

std::size_t message_elements(Collective c, std::size_t count, int nranks) {
  return is_partitioned(c) ? count * static_cast<std::size_t>(nranks) : count;
}

std::size_t call_count(Collective c, std::size_t elements, int nranks) {
  return is_partitioned(c) ? elements / static_cast<std::size_t>(nranks) : elements;
}

double bus_factor(Collective c, int nranks) {
  const double n = nranks;
  switch (c) {
    case Collective::allreduce: return 2.0 * (n - 1.0) / n;
    case Collective::reduce_scatter:
    case Collective::allgather:
    case Collective::alltoall:
    case Collective::gather:
    case Collective::scatter: return (n - 1.0) / n;
    case Collective::broadcast:
    case Collective::reduce:
    case Collective::sendrecv: return 1.0;
  }
  return 1.0;
}

}  // namespace distbench
