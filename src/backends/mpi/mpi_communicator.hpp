// The Communicator over MPI on host memory: blocking calls for timed loops (the same MPI calls a thin wrapper
// such as mpi4py makes), non-blocking ones for the asynchronous form.
#pragma once

#include "backends/mpi/mpi_types.hpp"
#include "core/comm/communicator.hpp"

#include <mpi.h>

namespace distbench::mpi {

class MPICommunicator final : public Communicator {
 public:
  // Takes ownership of `comm`.
  MPICommunicator(MPI_Comm comm, const TypeMap& types);
  ~MPICommunicator() override;
  MPICommunicator(const MPICommunicator&) = delete;
  MPICommunicator& operator=(const MPICommunicator&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string_view backend() const override { return "mpi"; }
  std::optional<std::string> unsupported(Collective, DType, ReduceOp) const override { return std::nullopt; }

  void run(const CollectiveCall& call, const ArmedStep& step) override;
  // Works out the MPI arguments of each distinct call once, then makes one MPI call per operation and nothing else
  // (avg also divides).
  void run_series(std::span<const CollectiveCall> calls, int times, const ArmedStep& step) override;
  PreparedCall prepared(const CollectiveCall& call) override;
  // The root of an out-of-place broadcast keeps its data in its send buffer (nothing is copied); an in-place
  // reduce-scatter leaves each rank's block at the start of the buffer, where MPI puts it.
  BufferRef result_at(const CollectiveCall& call) const override;
  std::unique_ptr<Work> start(const CollectiveCall& call) override;
  std::unique_ptr<Work> start_send(BufferRef data, std::size_t bytes, int peer) override;
  std::unique_ptr<Work> start_recv(BufferRef data, std::size_t bytes, int peer) override;
  // MPI_Send and MPI_Recv themselves (the watchdog bounds them, as it bounds the blocking collectives).
  void send(BufferRef data, std::size_t bytes, int peer, Seconds timeout, const ArmedStep& step) override;
  void recv(BufferRef data, std::size_t bytes, int peer, Seconds timeout, const ArmedStep& step) override;
  void synchronize(Seconds) override {}  // blocking calls are complete on return
  std::unique_ptr<Timer> make_timer() override;

 private:
  // A checked point-to-point call: sends when `sends`, receives otherwise.
  std::unique_ptr<Work> start_p2p(BufferRef data, std::size_t bytes, int peer, bool sends);
  // The MPI count of a point-to-point call after checking its peer, buffer and size; throws usage_error naming `what`.
  int p2p_count(BufferRef data, std::size_t bytes, int peer, bool sends) const;
  static std::string p2p_what(std::size_t bytes, int peer, bool sends);

  MPI_Comm comm_;
  const TypeMap& types_;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace distbench::mpi
