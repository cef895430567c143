#include "backends/mpi/mpi_communicator.hpp"

#include "core/error.hpp"

#include <chrono>
#include <climits>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

namespace distbench::mpi {
namespace {

// The MPI form of one call: what is in place, the int count, the type and operator.
struct Prepared {
  const CollectiveCall& call;
  MPI_Datatype type;
  MPI_Op op;
  int count;
  std::size_t elem;
  std::size_t chunk_bytes;  // count * elem
  bool in_place;
};

bool same(const void* a, const void* b) { return a == b; }

Prepared prepare(const CollectiveCall& call, const TypeMap& types, int rank, int size) {
  if (call.count > static_cast<std::size_t>(INT_MAX)) {
    throw usage_error(fmt::format("{} elements exceed MPI's per-call limit of {}; lower -e/--maxbytes or use a "
                                  "wider -d/--datatype", call.count, INT_MAX));
  }
  const std::size_t elem = size_of(call.dtype);
  const std::size_t chunk = call.count * elem;
  const auto* send = static_cast<const std::byte*>(call.send.data());
  const auto* recv = static_cast<const std::byte*>(call.recv.data());
  const auto shape = buffer_shape(call.collective, call.count, size, rank);
  bool in_place = false;
  if (call.send.buffer == call.recv.buffer) {
    in_place = same(send - shape.in_place_send_offset * elem, recv - shape.in_place_recv_offset * elem);
  }
  return {call, types.datatype(call.dtype), types.op(call.dtype, call.op), static_cast<int>(call.count), elem, chunk,
          in_place};
}

void* in_place_or(const Prepared& p, const void* send) {
  return p.in_place ? MPI_IN_PLACE : const_cast<void*>(send);
}

// Steps that finish a call after MPI is done with it (avg division, moving an in-place reduce-scatter result).
void finish(const Prepared& p, int rank, int size) {
  const auto& call = p.call;
  if (call.collective == Collective::reduce_scatter && p.in_place && rank != 0) {
    std::memmove(call.recv.data(), call.send.data(), p.chunk_bytes);
  }
  if (call.op == ReduceOp::avg && is_reduction(call.collective) &&
      (call.collective != Collective::reduce || rank == call.root)) {
    divide_in_place(call.recv.data(), call.count, call.dtype, size);
  }
}

class HostTimer final : public Timer {
 public:
  void start() override { start_ = std::chrono::steady_clock::now(); }
  void stop() override { stop_ = std::chrono::steady_clock::now(); }
  double seconds() override { return std::chrono::duration<double>(stop_ - start_).count(); }

 private:
  std::chrono::steady_clock::time_point start_, stop_;
};

class MPIWork final : public Work {
 public:
  MPIWork(std::vector<MPI_Request> requests, std::function<void()> finish, std::string what)
      : requests_(std::move(requests)), finish_(std::move(finish)), what_(std::move(what)) {}

  bool done() override {
    if (finished_) return true;
    int flag = 0;
    check(MPI_Testall(static_cast<int>(requests_.size()), requests_.data(), &flag, MPI_STATUSES_IGNORE),
          "MPI_Testall");
    if (flag) complete();
    return finished_;
  }

  void wait(Seconds timeout) override {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::nanoseconds>(timeout);
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

void MPICommunicator::run(const CollectiveCall& call) {
  const Prepared p = prepare(call, types_, rank_, size_);
  void* send = const_cast<void*>(call.send.data());
  void* recv = call.recv.data();
  const bool root = rank_ == call.root;
  switch (call.collective) {
    case Collective::allreduce:
      check(MPI_Allreduce(in_place_or(p, send), recv, p.count, p.type, p.op, comm_), "MPI_Allreduce");
      break;
    case Collective::reduce_scatter:
      check(MPI_Reduce_scatter_block(in_place_or(p, send), p.in_place ? send : recv, p.count, p.type, p.op, comm_),
            "MPI_Reduce_scatter_block");
      break;
    case Collective::allgather:
      check(MPI_Allgather(in_place_or(p, send), p.count, p.type, recv, p.count, p.type, comm_), "MPI_Allgather");
      break;
    case Collective::broadcast:
      if (!p.in_place && root) std::memcpy(recv, send, p.chunk_bytes);
      check(MPI_Bcast(recv, p.count, p.type, call.root, comm_), "MPI_Bcast");
      break;
    case Collective::reduce:
      check(MPI_Reduce(p.in_place && root ? MPI_IN_PLACE : send, recv, p.count, p.type, p.op, call.root, comm_),
            "MPI_Reduce");
      break;
    case Collective::alltoall:
      check(MPI_Alltoall(in_place_or(p, send), p.count, p.type, recv, p.count, p.type, comm_), "MPI_Alltoall");
      break;
    case Collective::gather:
      check(MPI_Gather(p.in_place && root ? MPI_IN_PLACE : send, p.count, p.type, recv, p.count, p.type, call.root,
                       comm_),
            "MPI_Gather");
      break;
    case Collective::scatter:
      check(MPI_Scatter(send, p.count, p.type, p.in_place && root ? MPI_IN_PLACE : recv, p.count, p.type, call.root,
                        comm_),
            "MPI_Scatter");
      break;
    case Collective::sendrecv: {
      const int next = (rank_ + 1) % size_;
      const int prev = (rank_ + size_ - 1) % size_;
      if (p.in_place) {
        check(MPI_Sendrecv_replace(recv, p.count, p.type, next, 0, prev, 0, comm_, MPI_STATUS_IGNORE),
              "MPI_Sendrecv_replace");
      } else {
        check(MPI_Sendrecv(send, p.count, p.type, next, 0, recv, p.count, p.type, prev, 0, comm_, MPI_STATUS_IGNORE),
              "MPI_Sendrecv");
      }
      break;
    }
  }
  finish(p, rank_, size_);
}

std::unique_ptr<Work> MPICommunicator::start(const CollectiveCall& call) {
  const Prepared p = prepare(call, types_, rank_, size_);
  void* send = const_cast<void*>(call.send.data());
  void* recv = call.recv.data();
  const bool root = rank_ == call.root;
  std::vector<MPI_Request> requests(1, MPI_REQUEST_NULL);
  std::shared_ptr<std::vector<std::byte>> scratch;  // kept alive until the call completes
  switch (call.collective) {
    case Collective::allreduce:
      check(MPI_Iallreduce(in_place_or(p, send), recv, p.count, p.type, p.op, comm_, &requests[0]), "MPI_Iallreduce");
      break;
    case Collective::reduce_scatter:
      check(MPI_Ireduce_scatter_block(in_place_or(p, send), p.in_place ? send : recv, p.count, p.type, p.op, comm_,
                                      &requests[0]),
            "MPI_Ireduce_scatter_block");
      break;
    case Collective::allgather:
      check(MPI_Iallgather(in_place_or(p, send), p.count, p.type, recv, p.count, p.type, comm_, &requests[0]),
            "MPI_Iallgather");
      break;
    case Collective::broadcast:
      if (!p.in_place && root) std::memcpy(recv, send, p.chunk_bytes);
      check(MPI_Ibcast(recv, p.count, p.type, call.root, comm_, &requests[0]), "MPI_Ibcast");
      break;
    case Collective::reduce:
      check(MPI_Ireduce(p.in_place && root ? MPI_IN_PLACE : send, recv, p.count, p.type, p.op, call.root, comm_,
                        &requests[0]),
            "MPI_Ireduce");
      break;
    case Collective::alltoall:
      if (p.in_place) {  // non-blocking in-place alltoall is not offered by every MPI: send from a copy
        scratch = std::make_shared<std::vector<std::byte>>(p.chunk_bytes * static_cast<std::size_t>(size_));
        std::memcpy(scratch->data(), recv, scratch->size());
        send = scratch->data();
      }
      check(MPI_Ialltoall(send, p.count, p.type, recv, p.count, p.type, comm_, &requests[0]), "MPI_Ialltoall");
      break;
    case Collective::gather:
      check(MPI_Igather(p.in_place && root ? MPI_IN_PLACE : send, p.count, p.type, recv, p.count, p.type, call.root,
                        comm_, &requests[0]),
            "MPI_Igather");
      break;
    case Collective::scatter:
      check(MPI_Iscatter(send, p.count, p.type, p.in_place && root ? MPI_IN_PLACE : recv, p.count, p.type, call.root,
                         comm_, &requests[0]),
            "MPI_Iscatter");
      break;
    case Collective::sendrecv: {
      const int next = (rank_ + 1) % size_;
      const int prev = (rank_ + size_ - 1) % size_;
      if (p.in_place) {
        scratch = std::make_shared<std::vector<std::byte>>(p.chunk_bytes);
        std::memcpy(scratch->data(), recv, p.chunk_bytes);
        send = scratch->data();
      }
      requests.resize(2, MPI_REQUEST_NULL);
      check(MPI_Irecv(recv, p.count, p.type, prev, 1, comm_, &requests[0]), "MPI_Irecv");
      check(MPI_Isend(send, p.count, p.type, next, 1, comm_, &requests[1]), "MPI_Isend");
      break;
    }
  }
  const CollectiveCall copy = call;
  const int rank = rank_;
  const int size = size_;
  const TypeMap& types = types_;
  auto done = [copy, rank, size, &types, scratch]() { finish(prepare(copy, types, rank, size), rank, size); };
  return std::make_unique<MPIWork>(std::move(requests), std::move(done),
                                   fmt::format("{} of {} elements ({})", name(call.collective), call.count,
                                               name(call.dtype)));
}

std::unique_ptr<Timer> MPICommunicator::make_timer() { return std::make_unique<HostTimer>(); }

}  // namespace distbench::mpi
