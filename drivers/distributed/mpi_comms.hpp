// The communicators of a distributed run (built with MPI only): each kind of traffic has its
// own, so that rank 0's coordinator thread, the main threads' collectives and StarPU-MPI's
// progress thread never match each other's messages.
#pragma once

#include <mpi.h>

namespace pairhist::mpi {

MPI_Comm control_comm();     // frame claims, reports and heartbeats (drivers/frame_dispenser)
MPI_Comm collective_comm();  // the setup broadcast, the final agreement and gathers
MPI_Comm starpu_comm();      // StarPU-MPI's reductions of the counts (drivers/mpi_reduction)

}  // namespace pairhist::mpi
