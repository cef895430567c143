#include "core/device/collective.hpp"

#include <array>

namespace distbench {
namespace {

using Blocks = std::vector<ExpectBlock>;

// Bus bandwidth factors (nccl-tests' PERFORMANCE.md): what each rank moves, relative to S, on an ideal ring.
double two_n_minus_one_over_n(double n) { return 2.0 * (n - 1.0) / n; }
double n_minus_one_over_n(double n) { return (n - 1.0) / n; }
double one(double) { return 1.0; }

// Buffer shapes in elements (NCCL's arguments): send, receive, and in place the send and result offsets in one
// buffer of max(send, receive) elements (nccl-tests' convention).
BufferShape same_count(std::size_t c, std::size_t, std::size_t) { return {c, c, 0, 0}; }
BufferShape split_result(std::size_t c, std::size_t n, std::size_t r) { return {c * n, c, 0, r * c}; }
BufferShape joined_result(std::size_t c, std::size_t n, std::size_t r) { return {c, c * n, r * c, 0}; }
BufferShape exchanged(std::size_t c, std::size_t n, std::size_t) { return {c * n, c * n, 0, 0}; }

constexpr std::array<CollectiveTraits, kCollectiveCount> kTable = {{
    {Collective::allreduce, "allreduce", "Every rank gets the reduction of all ranks' buffers", true, false, false,
     two_n_minus_one_over_n, same_count,
     [](std::uint64_t c, std::uint64_t, std::uint64_t, int, Blocks& out) {
       out.push_back({0, c, -1, 0});
     }},
    {Collective::reduce_scatter, "reduce-scatter", "Every rank gets its own block of the reduction", true, false, true,
     n_minus_one_over_n, split_result,
     [](std::uint64_t c, std::uint64_t, std::uint64_t me, int, Blocks& out) {
       out.push_back({0, c, -1, me * c});
     }},
    {Collective::allgather, "allgather", "Every rank gets every rank's block", false, false, true, n_minus_one_over_n,
     joined_result,
     [](std::uint64_t c, std::uint64_t n, std::uint64_t, int, Blocks& out) {
       for (std::uint64_t r = 0; r < n; ++r) out.push_back({r * c, c, static_cast<int>(r), 0});
     }},
    {Collective::broadcast, "broadcast", "Every rank gets the root's buffer", false, true, false, one, same_count,
     [](std::uint64_t c, std::uint64_t, std::uint64_t, int root, Blocks& out) {
       out.push_back({0, c, root, 0});
     }},
    {Collective::reduce, "reduce", "The root gets the reduction of all ranks' buffers", true, true, false, one,
     same_count,
     [](std::uint64_t c, std::uint64_t, std::uint64_t me, int root, Blocks& out) {
       if (me == static_cast<std::uint64_t>(root)) out.push_back({0, c, -1, 0});
     }},
    {Collective::alltoall, "alltoall", "Every rank sends a distinct block to every rank", false, false, true,
     n_minus_one_over_n, exchanged,
     [](std::uint64_t c, std::uint64_t n, std::uint64_t me, int, Blocks& out) {
       for (std::uint64_t s = 0; s < n; ++s) out.push_back({s * c, c, static_cast<int>(s), me * c});
     }},
    {Collective::gather, "gather", "The root gets every rank's block", false, true, true, n_minus_one_over_n,
     joined_result,
     [](std::uint64_t c, std::uint64_t n, std::uint64_t me, int root, Blocks& out) {
       if (me != static_cast<std::uint64_t>(root)) return;
       for (std::uint64_t r = 0; r < n; ++r) out.push_back({r * c, c, static_cast<int>(r), 0});
     }},
    {Collective::scatter, "scatter", "Every rank gets its block of the root's buffer", false, true, true,
     n_minus_one_over_n, split_result,
     [](std::uint64_t c, std::uint64_t, std::uint64_t me, int root, Blocks& out) {
       out.push_back({0, c, root, me * c});
     }},
    {Collective::sendrecv, "sendrecv", "Every rank sends to rank+1 and receives from rank-1", false, false, false, one,
     same_count,
     [](std::uint64_t c, std::uint64_t n, std::uint64_t me, int, Blocks& out) {
       out.push_back({0, c, static_cast<int>((me + n - 1) % n), 0});
     }},
}};

constexpr std::array<Collective, kTable.size()> all_ids() {
  std::array<Collective, kTable.size()> ids{};
  for (std::size_t i = 0; i < kTable.size(); ++i) ids[i] = kTable[i].id;
  return ids;
}
constexpr auto kAllCollectives = all_ids();

// The table is in enum order, so an entry is found by its id.
static_assert(one_row_per_collective(kTable), "kTable must list every collective in the order of enum Collective");

}  // namespace

const CollectiveTraits& traits(Collective c) { return kTable[static_cast<std::size_t>(c)]; }

std::span<const Collective> all_collectives() { return kAllCollectives; }

std::string_view name(Collective c) { return traits(c).name; }

std::optional<Collective> parse_collective(std::string_view text) {
  for (const CollectiveTraits& t : kTable) {
    if (t.name == text) return t.id;
  }
  return std::nullopt;
}

bool is_reduction(Collective c) { return traits(c).reduces; }
bool is_rooted(Collective c) { return traits(c).rooted; }

std::string_view name(Placement p) { return p == Placement::in_place ? "in-place" : "out-of-place"; }

BufferShape buffer_shape(Collective c, std::size_t count, int nranks, int rank) {
  return traits(c).shape(count, static_cast<std::size_t>(nranks), static_cast<std::size_t>(rank));
}

std::size_t message_elements(Collective c, std::size_t count, int nranks) {
  return traits(c).partitioned ? count * static_cast<std::size_t>(nranks) : count;
}

std::size_t call_count(Collective c, std::size_t elements, int nranks) {
  return traits(c).partitioned ? elements / static_cast<std::size_t>(nranks) : elements;
}

double bus_factor(Collective c, int nranks) { return traits(c).bus_factor(static_cast<double>(nranks)); }

}  // namespace distbench
