#include "backends/mpi/mpi_communicator.hpp"

#include "core/comm/deadline.hpp"
#include "core/error.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

namespace distbench::mpi {
namespace {

// Tags on the communicator: the sendrecv ring uses 0 (blocking) and 1 (asynchronous); start_send/start_recv use
// their own, so that a peer's messages arrive in the order sent and are never taken for a ring's.
constexpr int kPointToPointTag = 2;

// The MPI form of one call, worked out once: buffers as MPI wants them (MPI_IN_PLACE where in place), the int count,
// the type and operator. A timed loop makes exactly one MPI call per operation from it.
struct Prepared {
  const CollectiveCall& call;
  MPI_Datatype type;
  MPI_Op op;
  int count;
  std::size_t chunk_bytes;  // count * element size
  bool in_place;
  bool is_root;
  void* send;          // the send argument: the send buffer or MPI_IN_PLACE
  void* recv;          // the receive argument
  int next, prev;      // sendrecv's peers
  bool divides;        // avg: the result is divided by the group size after the call
  // CallForm::vector reduce-scatter: every rank's count (all equal), alive until a non-blocking call completes.
  std::shared_ptr<const std::vector<int>> counts;
};

Prepared prepare(const CollectiveCall& call, const TypeMap& types, int rank, int size) {
  if (call.count > static_cast<std::size_t>(INT_MAX)) {
    throw usage_error(fmt::format("{} elements exceed MPI's per-call limit of {}; lower -e/--maxbytes or use a "
                                  "wider -d/--datatype", call.count, INT_MAX));
  }
  const std::size_t elem = size_of(call.dtype);
  auto* send = static_cast<std::byte*>(call.send.data());
  auto* recv = static_cast<std::byte*>(call.recv.data());
  const auto shape = buffer_shape(call.collective, call.count, size, rank);
  const bool in_place = call.send.buffer == call.recv.buffer &&
                        send - shape.in_place_send_offset * elem == recv - shape.in_place_recv_offset * elem;
  const bool is_root = rank == call.root;
  Prepared p{call, types.datatype(call.dtype), types.op(call.dtype, call.op), static_cast<int>(call.count),
             call.count * elem, in_place, is_root, send, recv, (rank + 1) % size, (rank + size - 1) % size,
             call.op == ReduceOp::avg && is_reduction(call.collective) &&
                 (call.collective != Collective::reduce || is_root),
             nullptr};
  if (call.collective == Collective::reduce_scatter && call.form == CallForm::vector) {
    p.counts = std::make_shared<const std::vector<int>>(static_cast<std::size_t>(size), p.count);
  }
  switch (call.collective) {
    case Collective::allreduce:
    case Collective::allgather:
    case Collective::alltoall:
      if (in_place) p.send = MPI_IN_PLACE;
      break;
    case Collective::reduce_scatter:  // in place, MPI leaves this rank's block at the start of the buffer
      if (in_place) {
        p.recv = send;
        p.send = MPI_IN_PLACE;
      }
      break;
    case Collective::broadcast:  // the root sends from its send buffer: nothing is copied
      p.recv = is_root ? send : recv;
      break;
    case Collective::reduce:
    case Collective::gather:
      if (in_place && is_root) p.send = MPI_IN_PLACE;
      break;
    case Collective::scatter:
      if (in_place && is_root) p.recv = MPI_IN_PLACE;
      break;
    case Collective::sendrecv: break;
  }
  return p;
}

// Exactly one blocking MPI call, nothing else.
void call_blocking(const Prepared& p, MPI_Comm comm) {
  const int root = p.call.root;
  switch (p.call.collective) {
    case Collective::allreduce:
      check(MPI_Allreduce(p.send, p.recv, p.count, p.type, p.op, comm), "MPI_Allreduce");
      return;
    case Collective::reduce_scatter:
      if (p.counts) {
        check(MPI_Reduce_scatter(p.send, p.recv, p.counts->data(), p.type, p.op, comm), "MPI_Reduce_scatter");
      } else {
        check(MPI_Reduce_scatter_block(p.send, p.recv, p.count, p.type, p.op, comm), "MPI_Reduce_scatter_block");
      }
      return;
    case Collective::allgather:
      check(MPI_Allgather(p.send, p.count, p.type, p.recv, p.count, p.type, comm), "MPI_Allgather");
      return;
    case Collective::broadcast:
      check(MPI_Bcast(p.recv, p.count, p.type, root, comm), "MPI_Bcast");
      return;
    case Collective::reduce:
      check(MPI_Reduce(p.send, p.recv, p.count, p.type, p.op, root, comm), "MPI_Reduce");
      return;
    case Collective::alltoall:
      check(MPI_Alltoall(p.send, p.count, p.type, p.recv, p.count, p.type, comm), "MPI_Alltoall");
      return;
    case Collective::gather:
      check(MPI_Gather(p.send, p.count, p.type, p.recv, p.count, p.type, root, comm), "MPI_Gather");
      return;
    case Collective::scatter:
      check(MPI_Scatter(p.send, p.count, p.type, p.recv, p.count, p.type, root, comm), "MPI_Scatter");
      return;
    case Collective::sendrecv:
      if (p.in_place) {
        check(MPI_Sendrecv_replace(p.recv, p.count, p.type, p.next, 0, p.prev, 0, comm, MPI_STATUS_IGNORE),
              "MPI_Sendrecv_replace");
      } else {
        check(MPI_Sendrecv(p.send, p.count, p.type, p.next, 0, p.recv, p.count, p.type, p.prev, 0, comm,
                           MPI_STATUS_IGNORE),
              "MPI_Sendrecv");
      }
      return;
  }
}

// Where this rank's result is (see Communicator::result_at).
BufferRef result_of(const CollectiveCall& call, bool in_place, bool is_root) {
  if (call.collective == Collective::broadcast && is_root) return call.send;
  if (call.collective == Collective::reduce_scatter && in_place) return call.send;
  return call.recv;
}

// avg is a sum followed by a division of the result (MPI has no average operator): part of the operation.
void divide(const CollectiveCall& call, bool in_place, bool is_root, int size) {
  divide_in_place(result_of(call, in_place, is_root).data(), call.count, call.dtype, size);
}

class MPIWork final : public Work {
 public:
  MPIWork(std::vector<MPI_Request> requests, std::function<void()> finish,
          std::vector<std::shared_ptr<const void>> arguments, std::string what)
      : requests_(std::move(requests)), finish_(std::move(finish)), arguments_(std::move(arguments)),
        what_(std::move(what)) {}

  bool done() override {
    if (finished_) return true;
    int flag = 0;
    check(MPI_Testall(static_cast<int>(requests_.size()), requests_.data(), &flag, MPI_STATUSES_IGNORE),
          "MPI_Testall");
    if (flag) complete();
    return finished_;
  }

  void wait(Seconds timeout) override {
    const auto deadline = deadline_after(timeout.count());
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) {
        throw Error(ExitCode::timeout,
                    fmt::format("{} did not complete within {:.3g} s", what_, timeout.count()));
      }
      std::this_thread::yield();
    }
  }

 private:
  void complete() {
    finished_ = true;
    if (finish_) finish_();
  }

  std::vector<MPI_Request> requests_;
  std::function<void()> finish_;
  // What the call reads until it completes: a copying call's send copy, a vector form's counts.
  std::vector<std::shared_ptr<const void>> arguments_;
  std::string what_;
  bool finished_ = false;
};

}  // namespace

MPICommunicator::MPICommunicator(MPI_Comm comm, const TypeMap& types) : comm_(comm), types_(types) {
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

MPICommunicator::~MPICommunicator() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void MPICommunicator::run(const CollectiveCall& call, const ArmedStep&) {
  const Prepared p = prepare(call, types_, rank_, size_);
  call_blocking(p, comm_);
  if (p.divides) divide(call, p.in_place, p.is_root, size_);
}

void MPICommunicator::run_series(std::span<const CollectiveCall> calls, int times, const ArmedStep&) {
  if (times <= 0 || calls.empty()) return;
  std::vector<Prepared> prepared;
  const std::size_t distinct = std::min(calls.size(), static_cast<std::size_t>(times));
  for (std::size_t i = 0; i < distinct; ++i) prepared.push_back(prepare(calls[i], types_, rank_, size_));
  for (int i = 0; i < times; ++i) {
    const std::size_t which = static_cast<std::size_t>(i) % distinct;
    const Prepared& p = prepared[which];
    call_blocking(p, comm_);
    if (p.divides) divide(calls[which], p.in_place, p.is_root, size_);
  }
}

Communicator::PreparedCall MPICommunicator::prepared(const CollectiveCall& call) {
  const Prepared p = prepare(call, types_, rank_, size_);
  if (p.divides) return [this, call](const ArmedStep& step) { run(call, step); };  // avg divides after the sum
  return [p, comm = comm_](const ArmedStep&) { call_blocking(p, comm); };
}

BufferRef MPICommunicator::result_at(const CollectiveCall& call) const {
  const Prepared p = prepare(call, types_, rank_, size_);
  return result_of(call, p.in_place, p.is_root);
}

std::unique_ptr<Work> MPICommunicator::start(const CollectiveCall& call) {
  Prepared p = prepare(call, types_, rank_, size_);
  const int root = call.root;
  std::vector<MPI_Request> requests(1, MPI_REQUEST_NULL);
  std::shared_ptr<std::vector<std::byte>> scratch;  // kept alive until the call completes
  // Non-blocking in-place alltoall and sendrecv are not offered by every MPI: send from a copy.
  const bool copies = p.in_place && (call.collective == Collective::alltoall || call.collective == Collective::sendrecv);
  if (copies) {
    const std::size_t bytes = call.collective == Collective::alltoall
                                  ? p.chunk_bytes * static_cast<std::size_t>(size_)
                                  : p.chunk_bytes;
    scratch = std::make_shared<std::vector<std::byte>>(bytes);
    std::memcpy(scratch->data(), p.recv, bytes);
    p.send = scratch->data();
  }
  switch (call.collective) {
    case Collective::allreduce:
      check(MPI_Iallreduce(p.send, p.recv, p.count, p.type, p.op, comm_, &requests[0]), "MPI_Iallreduce");
      break;
    case Collective::reduce_scatter:
      if (p.counts) {
        check(MPI_Ireduce_scatter(p.send, p.recv, p.counts->data(), p.type, p.op, comm_, &requests[0]),
              "MPI_Ireduce_scatter");
      } else {
        check(MPI_Ireduce_scatter_block(p.send, p.recv, p.count, p.type, p.op, comm_, &requests[0]),
              "MPI_Ireduce_scatter_block");
      }
      break;
    case Collective::allgather:
      check(MPI_Iallgather(p.send, p.count, p.type, p.recv, p.count, p.type, comm_, &requests[0]), "MPI_Iallgather");
      break;
    case Collective::broadcast:
      check(MPI_Ibcast(p.recv, p.count, p.type, root, comm_, &requests[0]), "MPI_Ibcast");
      break;
    case Collective::reduce:
      check(MPI_Ireduce(p.send, p.recv, p.count, p.type, p.op, root, comm_, &requests[0]), "MPI_Ireduce");
      break;
    case Collective::alltoall:
      check(MPI_Ialltoall(p.send, p.count, p.type, p.recv, p.count, p.type, comm_, &requests[0]), "MPI_Ialltoall");
      break;
    case Collective::gather:
      check(MPI_Igather(p.send, p.count, p.type, p.recv, p.count, p.type, root, comm_, &requests[0]), "MPI_Igather");
      break;
    case Collective::scatter:
      check(MPI_Iscatter(p.send, p.count, p.type, p.recv, p.count, p.type, root, comm_, &requests[0]),
            "MPI_Iscatter");
      break;
    case Collective::sendrecv:
      requests.resize(2, MPI_REQUEST_NULL);
      check(MPI_Irecv(p.recv, p.count, p.type, p.prev, 1, comm_, &requests[0]), "MPI_Irecv");
      check(MPI_Isend(p.send, p.count, p.type, p.next, 1, comm_, &requests[1]), "MPI_Isend");
      break;
  }
  std::function<void()> done;
  if (p.divides) {
    const CollectiveCall copy = call;
    const int size = size_;
    const bool in_place = p.in_place, is_root = p.is_root;
    done = [copy, size, in_place, is_root]() { divide(copy, in_place, is_root, size); };
  }
  std::vector<std::shared_ptr<const void>> arguments;
  if (scratch) arguments.push_back(std::move(scratch));
  if (p.counts) arguments.push_back(p.counts);
  return std::make_unique<MPIWork>(std::move(requests), std::move(done), std::move(arguments),
                                   fmt::format("{} of {} elements ({})", name(call.collective), call.count,
                                               name(call.dtype)));
}

std::unique_ptr<Work> MPICommunicator::start_send(BufferRef data, std::size_t bytes, int peer) {
  return start_p2p(data, bytes, peer, true);
}

std::unique_ptr<Work> MPICommunicator::start_recv(BufferRef data, std::size_t bytes, int peer) {
  return start_p2p(data, bytes, peer, false);
}

int MPICommunicator::p2p_count(BufferRef data, std::size_t bytes, int peer, bool sends) const {
  // The message is formatted only for an error: a blocking call checks its arguments inside timed loops.
  if (peer < 0 || peer >= size_) {
    throw usage_error(fmt::format("{}: not a rank of this group of {}", p2p_what(bytes, peer, sends), size_));
  }
  if (data.buffer == nullptr || data.buffer->parts() != 1) {
    throw usage_error(fmt::format("{}: point to point moves a buffer of one part", p2p_what(bytes, peer, sends)));
  }
  if (bytes > static_cast<std::size_t>(INT_MAX)) {
    throw usage_error(
        fmt::format("{}: more than MPI's per-call limit of {} bytes", p2p_what(bytes, peer, sends), INT_MAX));
  }
  return static_cast<int>(bytes);
}

std::string MPICommunicator::p2p_what(std::size_t bytes, int peer, bool sends) {
  return fmt::format("{} of {} bytes {} group rank {}", sends ? "send" : "receive", bytes, sends ? "to" : "from",
                     peer);
}

std::unique_ptr<Work> MPICommunicator::start_p2p(BufferRef data, std::size_t bytes, int peer, bool sends) {
  const int count = p2p_count(data, bytes, peer, sends);
  std::vector<MPI_Request> requests(1, MPI_REQUEST_NULL);
  if (sends) {
    check(MPI_Isend(data.data(), count, MPI_BYTE, peer, kPointToPointTag, comm_, &requests[0]), "MPI_Isend");
  } else {
    check(MPI_Irecv(data.data(), count, MPI_BYTE, peer, kPointToPointTag, comm_, &requests[0]), "MPI_Irecv");
  }
  return std::make_unique<MPIWork>(std::move(requests), nullptr, std::vector<std::shared_ptr<const void>>{}, p2p_what(bytes, peer, sends));
}

void MPICommunicator::send(BufferRef data, std::size_t bytes, int peer, Seconds, const ArmedStep&) {
  const int count = p2p_count(data, bytes, peer, true);
  check(MPI_Send(data.data(), count, MPI_BYTE, peer, kPointToPointTag, comm_), "MPI_Send");
}

void MPICommunicator::recv(BufferRef data, std::size_t bytes, int peer, Seconds, const ArmedStep&) {
  const int count = p2p_count(data, bytes, peer, false);
  check(MPI_Recv(data.data(), count, MPI_BYTE, peer, kPointToPointTag, comm_, MPI_STATUS_IGNORE), "MPI_Recv");
}

std::unique_ptr<Timer> MPICommunicator::make_timer() { return std::make_unique<HostTimer>(); }

}  // namespace distbench::mpi
