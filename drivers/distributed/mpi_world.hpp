// The MPI job a pairhist process may belong to. One binary runs both ways: started by an MPI
// launcher (mpirun, mpiexec, srun) it joins the job as one rank; started alone it is a world of
// one process and MPI is never initialised. Ranks that share a node split its cores and GPUs.
#pragma once

#include <string>

namespace pairhist {

struct WorldShape {
  int rank = 0;
  int size = 1;
  int local_rank = 0;  // among the ranks on this node
  int local_size = 1;
  std::string host;
  int cores = 0;     // cores this rank runs on (its affinity, after the split)
  std::string gpus;  // CUDA_VISIBLE_DEVICES this rank was given ("" where it has none)
  bool mpi = false;  // MPI was initialised (a launcher started us, and MPI is built in)
};

class MpiWorld {
 public:
  /// Joins the MPI job when this process was started by an MPI launcher (OMPI_COMM_WORLD_SIZE,
  /// PMI_SIZE, PMIX_RANK or a Slurm step of several tasks; PAIRHIST_MPI=0 or 1 decides
  /// instead) and pairhist was built with MPI; otherwise does nothing. Call once, before any
  /// thread or CUDA context exists: ranks on one node get disjoint cores (their launcher's
  /// binding where it gave them different ones, else an even split of the cores they all have)
  /// and GPUs (CUDA_VISIBLE_DEVICES split among them unless each already has its own). Throws
  /// std::runtime_error when MPI lacks MPI_THREAD_MULTIPLE.
  static void start(int& argc, char**& argv);
  static const WorldShape& shape();
  /// More than one rank: the run is distributed.
  static bool distributed() { return shape().size > 1; }
  static bool is_root() { return shape().rank == 0; }
  /// MPI_Finalize, once, if MPI was initialised (also registered with atexit).
  static void finish();
  /// Ends every rank of the job now (MPI_Abort), or this process alone without MPI.
  [[noreturn]] static void abort(int code);
  /// An OpenMPI job whose ranks are all on this node (OMPI_COMM_WORLD_SIZE equal to
  /// OMPI_COMM_WORLD_LOCAL_SIZE) and whose user chose no point-to-point layer (OMPI_MCA_pml, as
  /// `mpirun --mca pml X` passes it too): sets OMPI_MCA_pml=ob1 for MPI_Init. Choosing among
  /// every layer OpenMPI knows cost MPI_Init 0.22 s of a 0.9 s empty job on a 2-GPU node (the
  /// cm layer probes libfabric's providers) against 0.017 s, and ob1 is what it chose there in
  /// the end: shared memory between ranks of one node. Whether ob1 is now the choice.
  static bool choose_one_node_transport();
  /// Whether pairhist was built with MPI.
  static bool built_with_mpi();
};

}  // namespace pairhist
