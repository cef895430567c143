// The collectives distbench runs, their buffer shapes and their bandwidth conventions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace distbench {

// A new collective goes last, and kCollectiveCount names it: every table of per-collective facts (the traits below,
// each backend's calls, the model's formulas) has kCollectiveCount rows, checked at compile time.
enum class Collective { allreduce, reduce_scatter, allgather, broadcast, reduce, alltoall, gather, scatter, sendrecv };
inline constexpr std::size_t kCollectiveCount = static_cast<std::size_t>(Collective::sendrecv) + 1;

// True when `table` holds one row per collective in the order of enum Collective (each row's `id`): a table of
// per-collective facts is checked complete with static_assert(one_row_per_collective(table)). A missing row of a
// std::array<Row, kCollectiveCount> is value-initialised (id allreduce) and fails the check.
template <typename Table>
constexpr bool one_row_per_collective(const Table& table) {
  if (table.size() != kCollectiveCount) return false;
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (static_cast<std::size_t>(table[i].id) != i) return false;
  }
  return true;
}

std::span<const Collective> all_collectives();
// The name users type: "allreduce", "reduce-scatter", ...
std::string_view name(Collective c);
std::optional<Collective> parse_collective(std::string_view text);
bool is_reduction(Collective c);  // takes a ReduceOp
bool is_rooted(Collective c);     // takes a root rank

enum class Placement { out_of_place, in_place };
std::string_view name(Placement p);

// Element counts of one call, as NCCL defines its arguments. `count` is the count passed to the call:
// allreduce, broadcast, reduce, sendrecv: elements of each buffer; reduce-scatter, scatter: elements each rank
// receives; allgather, gather: elements each rank sends; alltoall: elements exchanged with each peer.
struct BufferShape {
  std::size_t send_count;  // elements in the send buffer
  std::size_t recv_count;  // elements in the receive buffer
  // In-place, one buffer of max(send_count, recv_count) elements holds both (nccl-tests' convention):
  // the send data starts at this element offset ...
  std::size_t in_place_send_offset;
  // ... and the result at this one.
  std::size_t in_place_recv_offset;
};
BufferShape buffer_shape(Collective c, std::size_t count, int nranks, int rank);

// nccl-tests' size convention: the size S of one case in bytes, given the call's count.
// allreduce, broadcast, reduce, sendrecv: count; reduce-scatter, allgather, alltoall, gather, scatter: count * nranks.
std::size_t message_elements(Collective c, std::size_t count, int nranks);
// The inverse used by sweeps: the call count for a requested size in elements (rounded down so that every rank gets
// the same number of elements, as nccl-tests does).
std::size_t call_count(Collective c, std::size_t elements, int nranks);

// nccl-tests' bus bandwidth factor: busbw = algbw * factor.
double bus_factor(Collective c, int nranks);

// Which part of an output buffer holds what after a call. `source_rank` < 0 means the reduction over all ranks.
struct ExpectBlock {
  std::uint64_t offset = 0;  // in elements, from the start of the result
  std::uint64_t count = 0;
  int source_rank = -1;
  std::uint64_t base_index = 0;  // element index of the source's input that lands at `offset`
};

// Everything distbench knows about one collective, in one table entry per collective (the one thing nccl-tests'
// layout does well): the functions above read it; a new collective is one more entry here, and one row in each
// layer's own table of what it does with it (backends/mpi/mpi_collectives.cpp, backends/nccl/nccl_calls.cpp,
// model/cost_formulas.cpp), which the compiler checks complete.
struct CollectiveTraits {
  Collective id;
  std::string_view name;         // what users type
  std::string_view description;  // one line, for --help
  bool reduces;                  // takes a reduction operator
  bool rooted;                   // takes a root rank
  bool partitioned;              // S = count * nranks: the message is split evenly over the ranks
  double (*bus_factor)(double nranks);
  BufferShape (*shape)(std::size_t count, std::size_t nranks, std::size_t rank);
  // What rank `rank` holds afterwards, appended to `out` (nothing: undefined there, e.g. non-roots of reduce).
  void (*expected)(std::uint64_t count, std::uint64_t nranks, std::uint64_t rank, int root,
                   std::vector<ExpectBlock>& out);
};
const CollectiveTraits& traits(Collective c);

}  // namespace distbench
