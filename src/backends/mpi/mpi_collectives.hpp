// What the MPI backend knows of each collective, one row per collective (mpi_collectives.cpp, checked complete at
// compile time): how MPI takes its arguments in place, its blocking and non-blocking calls, and the temporary
// buffers Open MPI allocates for it. The communicator and the backend read these rows and switch on no collective.
#pragma once

#include "core/comm/communicator.hpp"

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace distbench::mpi {

struct MPICollective;

// The MPI form of one call, worked out once: buffers as MPI wants them (MPI_IN_PLACE where in place), the int count,
// the type and operator. A timed loop makes exactly one MPI call per operation from it.
struct Prepared {
  const CollectiveCall& call;
  const MPICollective* calls;  // the row of call.collective
  MPI_Datatype type;
  MPI_Op op;
  int count;
  bool in_place;
  bool is_root;
  void* send;      // the send argument: the send buffer or MPI_IN_PLACE
  void* recv;      // the receive argument
  int next, prev;  // sendrecv's peers
  bool divides;    // avg: the result is divided by the group size after the call
  // CallForm::vector reduce-scatter: every rank's count (all equal), alive until a non-blocking call completes.
  std::shared_ptr<const std::vector<int>> counts;
};

// Where MPI_IN_PLACE goes when a call runs in place, and where the result then is.
enum class InPlaceArgs {
  send,          // the send argument, on every rank (the result is in the receive buffer)
  result_first,  // the send argument, and MPI leaves this rank's block at the start of the one buffer (its send)
  root_sends,    // none: the root sends from its send buffer and keeps its data there, in place or not
  root_send,     // the root's send argument
  root_recv,     // the root's receive argument
  none,          // MPI has no in-place argument: the call itself differs (sendrecv: MPI_Sendrecv_replace)
};

struct MPICollective {
  Collective id;
  InPlaceArgs in_place;
  bool has_vector_form;  // CallForm::vector is an MPI call of its own, with every rank's count
  // A non-blocking call in place is not offered by every MPI: start() sends from a copy of the input.
  bool start_copies_in_place;
  // Exactly one blocking MPI call, nothing else.
  void (*blocking)(const Prepared& p, MPI_Comm comm);
  // The non-blocking calls, their requests returned.
  std::vector<MPI_Request> (*start)(const Prepared& p, MPI_Comm comm);
  // Open MPI 4.1's temporary buffers for a case of s bytes.
  std::uint64_t (*library_scratch)(std::uint64_t s, bool in_place);
};

const MPICollective& mpi_collective(Collective c);

}  // namespace distbench::mpi
