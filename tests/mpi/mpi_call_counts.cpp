#include "tests/mpi/mpi_call_counts.hpp"

#include <mpi.h>

#include <atomic>

namespace distbench::mpitest {
namespace {

// The one place state can live for functions MPI's callers reach by name: counters of this test process only.
std::atomic<int> reduce_scatter_block_calls{0};
std::atomic<int> reduce_scatter_vector_calls{0};

}  // namespace

ReduceScatterCalls reduce_scatter_calls() {
  return {reduce_scatter_block_calls.load(), reduce_scatter_vector_calls.load()};
}

}  // namespace distbench::mpitest

extern "C" {

int MPI_Reduce_scatter_block(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  ++distbench::mpitest::reduce_scatter_block_calls;
  return PMPI_Reduce_scatter_block(send, recv, count, type, op, comm);
}

int MPI_Ireduce_scatter_block(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                              MPI_Request* request) {
  ++distbench::mpitest::reduce_scatter_block_calls;
  return PMPI_Ireduce_scatter_block(send, recv, count, type, op, comm, request);
}

int MPI_Reduce_scatter(const void* send, void* recv, const int counts[], MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  ++distbench::mpitest::reduce_scatter_vector_calls;
  return PMPI_Reduce_scatter(send, recv, counts, type, op, comm);
}

int MPI_Ireduce_scatter(const void* send, void* recv, const int counts[], MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                        MPI_Request* request) {
  ++distbench::mpitest::reduce_scatter_vector_calls;
  return PMPI_Ireduce_scatter(send, recv, counts, type, op, comm, request);
}

}  // extern "C"
