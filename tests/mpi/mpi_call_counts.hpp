// How many times this process called each of MPI's reduce-scatter functions: the test executable defines them
// (MPI's profiling interface: each counts, then calls the library's PMPI_ function), so a test can see which MPI
// call a Communicator made, with the real library doing the work.
#pragma once

namespace distbench::mpitest {

struct ReduceScatterCalls {
  int block = 0;   // MPI_Reduce_scatter_block and MPI_Ireduce_scatter_block
  int vector = 0;  // MPI_Reduce_scatter and MPI_Ireduce_scatter
};

ReduceScatterCalls reduce_scatter_calls();

}  // namespace distbench::mpitest
