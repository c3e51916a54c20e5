#include "drivers/distributed/mpi_world.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "drivers/distributed/distribution.hpp"
#include "pairhist/environment.hpp"
#include "pairhist/host_cores.hpp"
#include "pairhist/settings.hpp"

#if defined(PAIRHIST_WITH_MPI)
#include "drivers/distributed/mpi_comms.hpp"
#endif

namespace pairhist {
namespace {

WorldShape g_shape;
bool g_started = false;
bool g_finished = false;

bool env_has(const char* name) {
  const char* v = env_get(name);
  return v != nullptr && *v != '\0';
}

/// Whether an MPI launcher started this process: OpenMPI's mpirun, PMI (MPICH's hydra, srun
/// --mpi=pmi2), PMIx (srun --mpi=pmix, OpenMPI 5) or a Slurm step of several tasks.
bool launched_by_mpi() {
  if (const int forced = settings().mpi_launched; forced >= 0) return forced != 0;
  if (env_has("OMPI_COMM_WORLD_SIZE") || env_has("PMI_SIZE") || env_has("PMIX_RANK") ||
      env_has("MV2_COMM_WORLD_SIZE"))
    return true;
  const char* tasks = env_get("SLURM_STEP_NUM_TASKS");
  return tasks != nullptr && std::atoi(tasks) > 1;
}

#if !defined(PAIRHIST_WITH_MPI)
/// The number of processes the launcher started, where its environment says (else 0).
int launcher_size() {
  for (const char* name :
       {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE", "SLURM_STEP_NUM_TASKS"})
    if (const char* v = env_get(name); v && *v) return std::atoi(v);
  return 0;
}
#endif

#if defined(PAIRHIST_WITH_MPI)
MPI_Comm g_control = MPI_COMM_NULL, g_collective = MPI_COMM_NULL, g_starpu = MPI_COMM_NULL;

/// GPUs present on this node as CUDA numbers them, without initialising CUDA (which would fix
/// CUDA_VISIBLE_DEVICES before it is set): the launcher's list, else the driver's devices.
std::vector<std::string> node_gpus() {
  std::vector<std::string> gpus;
  if (const char* visible = env_get("CUDA_VISIBLE_DEVICES")) {
    std::stringstream list(visible);
    std::string id;
    while (std::getline(list, id, ','))
      if (!id.empty()) gpus.push_back(id);
    return gpus;
  }
  std::error_code ec;
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/driver/nvidia/gpus", ec)) {
    (void)entry;
    ++count;
  }
  for (int g = 0; g < count; ++g) gpus.push_back(std::to_string(g));
  return gpus;
}

/// The same string on every rank of `comm`?
bool same_everywhere(const std::string& mine, MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  int length = static_cast<int>(mine.size()), longest = 0, shortest = 0;
  MPI_Allreduce(&length, &longest, 1, MPI_INT, MPI_MAX, comm);
  MPI_Allreduce(&length, &shortest, 1, MPI_INT, MPI_MIN, comm);
  if (longest != shortest) return false;
  std::vector<char> all(static_cast<size_t>(longest) * static_cast<size_t>(size));
  MPI_Allgather(mine.data(), length, MPI_CHAR, all.data(), length, MPI_CHAR, comm);
  for (int r = 0; r < size; ++r)
    if (std::memcmp(all.data() + static_cast<size_t>(r) * static_cast<size_t>(length), mine.data(),
                    static_cast<size_t>(length)) != 0)
      return false;
  return true;
}

/// The cores [n * part / parts, n * (part + 1) / parts) of `cpus` (one of them where there are
/// fewer cores than parts) as this process's affinity.
void take_slice(const std::vector<int>& cpus, int part, int parts) {
  const int n = static_cast<int>(cpus.size());
  cpu_set_t slice;
  CPU_ZERO(&slice);
  if (n >= parts) {
    for (int k = n * part / parts; k < n * (part + 1) / parts; ++k)
      CPU_SET(cpus[static_cast<size_t>(k)], &slice);
  } else if (n > 0) {
    CPU_SET(cpus[static_cast<size_t>(part % n)], &slice);
  }
  if (CPU_COUNT(&slice) > 0) sched_setaffinity(0, sizeof(slice), &slice);
}

/// Ranks on one node that all may run on the same cores split them evenly (contiguous slices in
/// the cores' order; a rank of its own where there are fewer cores than ranks); ranks a
/// launcher already bound to different cores keep them, unless every one got a single core
/// (OpenMPI's default binding for 2 ranks): a GPU's driver thread and the worker that sums the
/// ranks' counts need two, so they then split the node's cores as unbound ranks do. StarPU
/// binds its workers inside the slice (STARPU_WORKERS_GETBIND).
void split_cores(MPI_Comm node, int local_rank, int local_size) {
  cpu_set_t mine;
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof(mine), &mine) != 0) return;
  const std::string bytes(reinterpret_cast<const char*>(&mine), sizeof(mine));
  if (local_size > 1) {
    std::vector<int> cpus;
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &mine)) cpus.push_back(c);
    int most = static_cast<int>(cpus.size());
    MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_INT, MPI_MAX, node);
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (same_everywhere(bytes, node)) {
      take_slice(cpus, local_rank, local_size);
    } else if (most < 2 && online >= 2L * local_size) {
      std::vector<int> all(static_cast<size_t>(online));
      for (int c = 0; c < static_cast<int>(online); ++c) all[static_cast<size_t>(c)] = c;
      take_slice(all, local_rank, local_size);
      if (local_rank == 0)
        std::fprintf(stderr,
                     "pairhist: note: the launcher bound each rank of %s to one core; they share "
                     "its %ld cores instead (%d each; mpirun --bind-to none does so quietly)\n",
                     MpiWorld::shape().host.c_str(), online, usable_cores());
    }
  }
  env_set("STARPU_WORKERS_GETBIND", "1", false);
  // StarPU keeps one bus calibration per host name and redoes it whenever the cores it sees
  // change: ranks with a share of the node get a name of their own per share. And per rank of
  // the node: StarPU writes and reads these files without a lock, so ranks calibrating one name
  // at once read each other's half-written files (an assertion in check_bus_affinity_file).
  std::string name = MpiWorld::shape().host + "-" + std::to_string(usable_cores()) + "cores";
  if (local_size > 1) name += "-rank" + std::to_string(local_rank);
  env_set("STARPU_HOSTNAME", name.c_str(), false);
}

/// Ranks on one node that see the same GPUs take turns: rank i gets GPUs i, i + L, ... of the
/// L ranks there; where there are fewer GPUs than ranks, the last ranks get none and run on
/// their cores. Ranks the launcher gave GPUs of their own keep them.
void split_gpus(MPI_Comm node, int local_rank, int local_size) {
  const std::vector<std::string> gpus = node_gpus();
  std::string joined;
  for (const auto& g : gpus) joined += g + ",";
  if (gpus.empty() || local_size == 1 || !same_everywhere(joined, node)) return;
  std::string mine;
  for (size_t g = static_cast<size_t>(local_rank); g < gpus.size();
       g += static_cast<size_t>(local_size))
    mine += (mine.empty() ? "" : ",") + gpus[g];
  env_set("CUDA_VISIBLE_DEVICES", mine.c_str());
}
#endif

}  // namespace

bool MpiWorld::choose_one_node_transport() {
  const char* size = env_get("OMPI_COMM_WORLD_SIZE");
  const char* local = env_get("OMPI_COMM_WORLD_LOCAL_SIZE");
  if (size == nullptr || local == nullptr || *size == '\0' || std::strcmp(size, local) != 0)
    return false;
  env_set("OMPI_MCA_pml", "ob1", false);
  const char* pml = env_get("OMPI_MCA_pml");
  return pml != nullptr && std::strcmp(pml, "ob1") == 0;
}

bool MpiWorld::built_with_mpi() {
#if defined(PAIRHIST_WITH_MPI)
  return true;
#else
  return false;
#endif
}

void MpiWorld::start(int& argc, char**& argv) {
  if (g_started) return;
  g_started = true;
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  g_shape.host = host;
#if defined(PAIRHIST_WITH_MPI)
  if (launched_by_mpi()) {
    choose_one_node_transport();
    int provided = 0;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
      throw std::runtime_error("MPI_Init_thread failed");
    g_shape.mpi = true;
    std::atexit(MpiWorld::finish);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_shape.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_shape.size);
    if (provided < MPI_THREAD_MULTIPLE && g_shape.size > 1)
      throw std::runtime_error(
          "the MPI library does not support MPI_THREAD_MULTIPLE, which pairhist needs for "
          "distributed runs");
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g_shape.rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &g_shape.local_rank);
    MPI_Comm_size(node, &g_shape.local_size);
    if (g_shape.size > 1) {
      split_cores(node, g_shape.local_rank, g_shape.local_size);
      split_gpus(node, g_shape.local_rank, g_shape.local_size);
      // StarPU-MPI's progress thread sleeps while no message is due: it needs no core of its own.
      env_set("STARPU_MPI_NOBIND", "1", false);
    }
    MPI_Comm_free(&node);
    MPI_Comm_dup(MPI_COMM_WORLD, &g_control);
    MPI_Comm_dup(MPI_COMM_WORLD, &g_collective);
    MPI_Comm_dup(MPI_COMM_WORLD, &g_starpu);
  }
#else
  (void)argc;
  (void)argv;
  // Several copies of a single-process pairhist would each count every frame into the same
  // directory.
  if (launched_by_mpi() && launcher_size() > 1)
    throw std::runtime_error(
        "started as one of " + std::to_string(launcher_size()) +
        " ranks, but this pairhist was built without MPI (no StarPU-MPI, or "
        "-DPAIRHIST_ENABLE_MPI=OFF): run it without mpirun/srun, or rebuild (README, many nodes)");
#endif
  g_shape.cores = usable_cores();
  if (const char* visible = env_get("CUDA_VISIBLE_DEVICES")) g_shape.gpus = visible;
}

const WorldShape& MpiWorld::shape() {
  return g_shape;
}

void MpiWorld::finish() {
  if (!g_shape.mpi || g_finished) return;
  g_finished = true;
#if defined(PAIRHIST_WITH_MPI)
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
#endif
}

void MpiWorld::abort(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
#if defined(PAIRHIST_WITH_MPI)
  if (g_shape.mpi && !g_finished) MPI_Abort(MPI_COMM_WORLD, code);
#endif
  std::_Exit(code);
}

#if !defined(PAIRHIST_WITH_MPI)
std::unique_ptr<Distribution> make_distribution() {
  return nullptr;
}
#else
namespace mpi {
MPI_Comm control_comm() {
  return g_control;
}
MPI_Comm collective_comm() {
  return g_collective;
}
MPI_Comm starpu_comm() {
  return g_starpu;
}
}  // namespace mpi
#endif

}  // namespace pairhist
