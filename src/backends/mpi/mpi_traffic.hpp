// Open MPI's own count of the bytes each rank sends: the pml monitoring component, which sits in front of the
// point-to-point layer (which Open MPI's collectives are built on) and counts every message's bytes per peer of
// MPI_COMM_WORLD, read through the MPI tools interface (MPI_T) as the performance variable
// pml_monitoring_messages_size.
#pragma once

#include "core/traffic_counter.hpp"

namespace distbench::mpi {

// Turns the monitoring on for this process (Open MPI's MCA parameter pml_monitoring_enable=1, every message counted
// alike, through the environment): before MPI_Init only, which is when Open MPI reads it.
void enable_pml_monitoring();

// A counter on the monitoring, opened now, or why there is none (an MPI without the component, the monitoring off,
// a variable not shaped as Open MPI 4.1's).
TrafficCounting open_pml_traffic_counter();

}  // namespace distbench::mpi
