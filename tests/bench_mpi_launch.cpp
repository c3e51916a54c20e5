// Not a test: what an MPI job costs before and after its work, with no work at all (issue 24:
// F1 as 4 ranks took 0.45 s longer than one process with the same counting time). Started by
// mpirun, every rank prints one line: when its main() began, what MPI_Init_thread (as pairhist
// calls it) and MPI_Finalize took, and when it returned from MPI_Finalize, as seconds since the
// epoch, so that a script timing mpirun itself can split the launcher's start and end from MPI's.
//   mpirun -n N bench_mpi_launch
#include <mpi.h>
#include <time.h>

#include <cstdio>

namespace {

double epoch_seconds() {
  timespec t{};
  clock_gettime(CLOCK_REALTIME, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
  const double entered = epoch_seconds();
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  const double initialised = epoch_seconds();
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Barrier(MPI_COMM_WORLD);
  const double finalising = epoch_seconds();
  MPI_Finalize();
  const double finalised = epoch_seconds();
  std::printf(
      "{\"rank\":%d,\"ranks\":%d,\"thread_multiple\":%s,\"main_epoch\":%.6f,\"init_s\":%.6f,"
      "\"finalize_s\":%.6f,\"finalized_epoch\":%.6f}\n",
      rank, size, provided >= MPI_THREAD_MULTIPLE ? "true" : "false", entered,
      initialised - entered, finalised - finalising, finalised);
  return 0;
}
