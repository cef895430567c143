#include "backends/mpi/mpi_collectives.hpp"

#include "backends/mpi/mpi_types.hpp"

#include <array>

namespace distbench::mpi {
namespace {

using P = Prepared;
using Requests = std::vector<MPI_Request>;

// One request, or two for the sendrecv ring's receive and send.
Requests no_requests(std::size_t n = 1) { return Requests(n, MPI_REQUEST_NULL); }

std::uint64_t no_scratch(std::uint64_t, bool) { return 0; }

// Open MPI 4.1's temporary buffers, measured as peak resident memory less distbench's buffers (S = 128 MiB at 4
// ranks, 256 MiB at 2): allreduce S/2; reduce and reduce-scatter up to 2S (in place, and at 4 ranks); alltoall up
// to S/2 in place; sendrecv in place S (a copy); broadcast, gather, scatter and allgather nothing measurable.
std::uint64_t twice(std::uint64_t s, bool) { return s > UINT64_MAX / 2 ? UINT64_MAX : 2 * s; }

void sendrecv_blocking(const P& p, MPI_Comm comm) {
  if (p.in_place) {
    check(MPI_Sendrecv_replace(p.recv, p.count, p.type, p.next, 0, p.prev, 0, comm, MPI_STATUS_IGNORE),
          "MPI_Sendrecv_replace");
  } else {
    check(MPI_Sendrecv(p.send, p.count, p.type, p.next, 0, p.recv, p.count, p.type, p.prev, 0, comm, MPI_STATUS_IGNORE),
          "MPI_Sendrecv");
  }
}

// Tags on the communicator: the sendrecv ring uses 0 (blocking) and 1 (asynchronous).
Requests sendrecv_start(const P& p, MPI_Comm comm) {
  Requests r = no_requests(2);
  check(MPI_Irecv(p.recv, p.count, p.type, p.prev, 1, comm, &r[0]), "MPI_Irecv");
  check(MPI_Isend(p.send, p.count, p.type, p.next, 1, comm, &r[1]), "MPI_Isend");
  return r;
}

constexpr std::array<MPICollective, kCollectiveCount> kMPICollectives = {{
    {Collective::allreduce, InPlaceArgs::send, false, false,
     [](const P& p, MPI_Comm comm) {
       check(MPI_Allreduce(p.send, p.recv, p.count, p.type, p.op, comm), "MPI_Allreduce");
     },
     [](const P& p, MPI_Comm comm) {
       Requests r = no_requests();
       check(MPI_Iallreduce(p.send, p.recv, p.count, p.type, p.op, comm, &r[0]), "MPI_Iallreduce");
       return r;
     },
     [](std::uint64_t s, bool) { return s / 2; }},
    {Collective::reduce_scatter, InPlaceArgs::result_first, true, false,
     [](const P& p, MPI_Comm comm) {
       if (p.counts) {
         check(MPI_Reduce_scatter(p.send, p.recv, p.counts->data(), p.type, p.op, comm), "MPI_Reduce_scatter");
       } else {
         check(MPI_Reduce_scatter_block(p.send, p.recv, p.count, p.type, p.op, comm), "MPI_Reduce_scatter_block");
       }
     },
     [](const P& p, MPI_Comm comm) {
       Requests r = no_requests();
       if (p.counts) {
         check(MPI_Ireduce_scatter(p.send, p.recv, p.counts->data(), p.type, p.op, comm, &r[0]), "MPI_Ireduce_scatter");
       } else {
         check(MPI_Ireduce_scatter_block(p.send, p.recv, p.count, p.type, p.op, comm, &r[0]),
               "MPI_Ireduce_scatter_block");
       }
       return r;
     },
     twice},
    {Collective::allgather, InPlaceArgs::send, false, false,
     [](const P& p, MPI_Comm comm) {
       check(MPI_Allgather(p.send, p.count, p.type, p.recv, p.count, p.type, comm), "MPI_Allgather");
     },
     [](const P& p, MPI_Comm comm) {
       Requests r = no_requests();
       check(MPI_Iallgather(p.send, p.count, p.type, p.recv, p.count, p.type, comm, &r[0]), "MPI_Iallgather");
       return r;
     },
     no_scratch},
    {Collective::broadcast, InPlaceArgs::root_sends, false, false,
     [](const P& p, MPI_Comm comm) { check(MPI_Bcast(p.recv, p.count, p.type, p.call.root, comm), "MPI_Bcast"); },
     [](const P& p, MPI_Comm comm) {
       Requests r = no_requests();
       check(MPI_Ibcast(p.recv, p.count, p.type, p.call.root, comm, &r[0]), "MPI_Ibcast");
       return r;
     },
     no_scratch},
    {Collective::reduce, InPlaceArgs::root_send, false, false,
     [](const P& p, MPI_Comm comm) {
       check(MPI_Reduce(p.send, p.recv, p.count, p.type, p.op, p.call.root, comm), "MPI_Reduce");
     },
     [](const P& p, MPI_Comm comm) {
       Requests r = no_requests();
       check(MPI_Ireduce(p.send, p.recv, p.count, p.type, p.op, p.call.root, comm, &r[0]), "MPI_Ireduce");
       return r;
     },
     twice},
    {Collective::alltoall, InPlaceArgs::send, false, true,
     [](const P& p, MPI_Comm comm) {
       check(MPI_Alltoall(p.send, p.count, p.type, p.recv, p.count, p.type, comm), "MPI_Alltoall");
     },
     [](const P& p, MPI_Comm comm) {
       Requests r = no_requests();
       check(MPI_Ialltoall(p.send, p.count, p.type, p.recv, p.count, p.type, comm, &r[0]), "MPI_Ialltoall");
       return r;
     },
     [](std::uint64_t s, bool in_place) { return in_place ? s / 2 : 0; }},
    {Collective::gather, InPlaceArgs::root_send, false, false,
     [](const P& p, MPI_Comm comm) {
       check(MPI_Gather(p.send, p.count, p.type, p.recv, p.count, p.type, p.call.root, comm), "MPI_Gather");
     },
     [](const P& p, MPI_Comm comm) {
       Requests r = no_requests();
       check(MPI_Igather(p.send, p.count, p.type, p.recv, p.count, p.type, p.call.root, comm, &r[0]), "MPI_Igather");
       return r;
     },
     no_scratch},
    {Collective::scatter, InPlaceArgs::root_recv, false, false,
     [](const P& p, MPI_Comm comm) {
       check(MPI_Scatter(p.send, p.count, p.type, p.recv, p.count, p.type, p.call.root, comm), "MPI_Scatter");
     },
     [](const P& p, MPI_Comm comm) {
       Requests r = no_requests();
       check(MPI_Iscatter(p.send, p.count, p.type, p.recv, p.count, p.type, p.call.root, comm, &r[0]), "MPI_Iscatter");
       return r;
     },
     no_scratch},
    {Collective::sendrecv, InPlaceArgs::none, false, true, sendrecv_blocking, sendrecv_start,
     [](std::uint64_t s, bool in_place) { return in_place ? s : 0; }},
}};
static_assert(one_row_per_collective(kMPICollectives),
              "kMPICollectives must list every collective in the order of enum Collective");

}  // namespace

const MPICollective& mpi_collective(Collective c) { return kMPICollectives[static_cast<std::size_t>(c)]; }

}  // namespace distbench::mpi
