#include "backends/mpi/mpi_communicator.hpp"

#include "backends/mpi/mpi_collectives.hpp"
#include "core/error.hpp"
#include "core/sys/deadline.hpp"

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

// MPI_IN_PLACE where the row of the call's collective puts it, in place.
void place_in_place_args(Prepared& p, void* send) {
  switch (p.calls->in_place) {
    case InPlaceArgs::send:
      if (p.in_place) p.send = MPI_IN_PLACE;
      return;
    case InPlaceArgs::result_first:  // in place, MPI leaves this rank's block at the start of the buffer
      if (p.in_place) {
        p.recv = send;
        p.send = MPI_IN_PLACE;
      }
      return;
    case InPlaceArgs::root_sends:  // the root sends from its send buffer: nothing is copied
      p.recv = p.is_root ? send : p.recv;
      return;
    case InPlaceArgs::root_send:
      if (p.in_place && p.is_root) p.send = MPI_IN_PLACE;
      return;
    case InPlaceArgs::root_recv:
      if (p.in_place && p.is_root) p.recv = MPI_IN_PLACE;
      return;
    case InPlaceArgs::none: return;
  }
}

Prepared prepare(const CollectiveCall& call, const TypeMap& types, int rank, int size) {
  if (call.count > static_cast<std::size_t>(INT_MAX)) {
    throw usage_error(
        fmt::format("{} elements exceed MPI's per-call limit of {}; lower -e/--maxbytes or use a "
                    "wider -d/--datatype",
                    call.count, INT_MAX));
  }
  const std::size_t elem = size_of(call.dtype);
  auto* send = static_cast<std::byte*>(call.send.data());
  auto* recv = static_cast<std::byte*>(call.recv.data());
  const auto shape = buffer_shape(call.collective, call.count, size, rank);
  const bool in_place = call.send.buffer == call.recv.buffer &&
                        send - shape.in_place_send_offset * elem == recv - shape.in_place_recv_offset * elem;
  const bool is_root = rank == call.root;
  const MPICollective& calls = mpi_collective(call.collective);
  // A rooted reduction's result is the root's alone: only the root divides it.
  Prepared p{call,
             &calls,
             types.datatype(call.dtype),
             types.op(call.dtype, call.op),
             static_cast<int>(call.count),
             in_place,
             is_root,
             send,
             recv,
             (rank + 1) % size,
             (rank + size - 1) % size,
             call.op == ReduceOp::avg && is_reduction(call.collective) && (!is_rooted(call.collective) || is_root),
             nullptr};
  if (calls.has_vector_form && call.form == CallForm::vector) {
    p.counts = std::make_shared<const std::vector<int>>(static_cast<std::size_t>(size), p.count);
  }
  place_in_place_args(p, send);
  return p;
}

// Exactly one blocking MPI call, nothing else.
void call_blocking(const Prepared& p, MPI_Comm comm) { p.calls->blocking(p, comm); }

// Where this rank's result is (see Communicator::result_at).
BufferRef result_of(const CollectiveCall& call, bool in_place, bool is_root) {
  const InPlaceArgs args = mpi_collective(call.collective).in_place;
  if (args == InPlaceArgs::root_sends && is_root) return call.send;
  if (args == InPlaceArgs::result_first && in_place) return call.send;
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
      : requests_(std::move(requests)),
        finish_(std::move(finish)),
        arguments_(std::move(arguments)),
        what_(std::move(what)) {}

  bool done() override {
    if (finished_) return true;
    int flag = 0;
    check(MPI_Testall(static_cast<int>(requests_.size()), requests_.data(), &flag, MPI_STATUSES_IGNORE), "MPI_Testall");
    if (flag) complete();
    return finished_;
  }

  void wait(Seconds timeout) override {
    const auto deadline = deadline_after(timeout.count());
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) {
        throw Error(ExitCode::timeout, fmt::format("{} did not complete within {:.3g} s", what_, timeout.count()));
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

namespace {

// Non-blocking in-place calls that not every MPI offers send from a copy of the input, kept alive until the call
// completes (nullptr where the call needs none).
std::shared_ptr<std::vector<std::byte>> send_from_copy(Prepared& p, int size, int rank) {
  if (!p.in_place || !p.calls->start_copies_in_place) return nullptr;
  const BufferShape shape = buffer_shape(p.call.collective, p.call.count, size, rank);
  const std::size_t bytes = shape.send_count * size_of(p.call.dtype);
  auto scratch = std::make_shared<std::vector<std::byte>>(bytes);
  std::memcpy(scratch->data(), p.recv, bytes);
  p.send = scratch->data();
  return scratch;
}

// What completes a started call: avg's division of the result (nothing for other operators).
std::function<void()> finish_of(const Prepared& p, int size) {
  if (!p.divides) return nullptr;
  const CollectiveCall copy = p.call;
  const bool in_place = p.in_place, is_root = p.is_root;
  return [copy, size, in_place, is_root]() { divide(copy, in_place, is_root, size); };
}

}  // namespace

std::unique_ptr<Work> MPICommunicator::start(const CollectiveCall& call) {
  Prepared p = prepare(call, types_, rank_, size_);
  std::shared_ptr<std::vector<std::byte>> scratch = send_from_copy(p, size_, rank_);
  std::vector<MPI_Request> requests = p.calls->start(p, comm_);
  std::vector<std::shared_ptr<const void>> arguments;
  if (scratch) arguments.push_back(std::move(scratch));
  if (p.counts) arguments.push_back(p.counts);
  return std::make_unique<MPIWork>(
      std::move(requests), finish_of(p, size_), std::move(arguments),
      fmt::format("{} of {} elements ({})", name(call.collective), call.count, name(call.dtype)));
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
  return fmt::format("{} of {} bytes {} group rank {}", sends ? "send" : "receive", bytes, sends ? "to" : "from", peer);
}

std::unique_ptr<Work> MPICommunicator::start_p2p(BufferRef data, std::size_t bytes, int peer, bool sends) {
  const int count = p2p_count(data, bytes, peer, sends);
  std::vector<MPI_Request> requests(1, MPI_REQUEST_NULL);
  if (sends) {
    check(MPI_Isend(data.data(), count, MPI_BYTE, peer, kPointToPointTag, comm_, &requests[0]), "MPI_Isend");
  } else {
    check(MPI_Irecv(data.data(), count, MPI_BYTE, peer, kPointToPointTag, comm_, &requests[0]), "MPI_Irecv");
  }
  return std::make_unique<MPIWork>(std::move(requests), nullptr, std::vector<std::shared_ptr<const void>>{},
                                   p2p_what(bytes, peer, sends));
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
