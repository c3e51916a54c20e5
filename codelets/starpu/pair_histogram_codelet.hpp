// StarPU glue for the pair-histogram kernels: the task arguments, the codelet (CPU blocked,
// CUDA shared-memory, CUDA global-memory implementations), its perfmodel, and the init/redux
// codelets that let StarPU sum 64-bit partial histograms (STARPU_REDUX).
#pragma once

#include <starpu.h>

#include <atomic>
#include <cmath>
#include <cstdint>

#include "codelets/starpu/device_faults.hpp"
#include "codelets/starpu/frame_gate.hpp"
#include "pairhist/geometry.hpp"

namespace pairhist::codelets {

enum class Precision : int { single = 0, double_ = 1 };

/// Arguments of one pair-histogram task, handed over as the task's cl_arg (a plain struct).
/// Buffers: coordinates of species a (R), of species b unless same_species (R), the pair's
/// uint64 histogram (REDUX). Coordinates are vectors of 3*n values in x..., y..., z... order.
struct PairHistogramArgs {
  Precision precision = Precision::single;
  int same_species = 0;
  int64_t row_begin = 0;
  int64_t row_end = 0;
  uint64_t pairs = 0;         // pairs this task examines: the size its perfmodel is keyed on
  uint64_t frame = 0;         // the engine's frame number and task number (submission order), for
  uint64_t sequence = 0;      // the task trace; not part of the footprint
  FrameGate* gate = nullptr;  // the engine's: a task of a frame it refuses counts nothing
  DeviceFaults* faults = nullptr;  // the engine's: where a CUDA failure goes (null: abort)
  HistogramParams<float> single_params;
  HistogramParams<double> double_params;
  int nbins() const {
    return precision == Precision::single ? single_params.nbins : double_params.nbins;
  }
  BoxKind box_kind() const {
    return precision == Precision::single ? single_params.box.kind : double_params.box.kind;
  }
};

/// Which implementation ran a task, for the run summary.
enum class Implementation : int {
  cpu = 0,
  cuda_shared = 1,
  cuda_global = 2,
  cpu_cells = 3,  // cell-list tasks (cell_histogram_codelet.hpp)
  cuda_cells = 4
};
constexpr int kImplementations = 5;

/// Tasks and pairs per implementation since the last reset.
struct ImplementationCounters {
  std::atomic<uint64_t> tasks[kImplementations];
  std::atomic<uint64_t> pairs[kImplementations];
  void reset();
  void record(Implementation impl, uint64_t task_pairs);
};
ImplementationCounters& implementation_counters();

/// Implementation indices inside the codelet, per architecture.
enum CudaImpl : unsigned { kCudaShared = 0, kCudaGlobal = 1 };

/// Eighth-octave class of a pair count: tasks within ~9% of each other share a history entry, so
/// row tiles of different pairs and frames of slightly different sizes reuse one calibration.
inline uint32_t pairs_class(uint64_t pairs) {
  return pairs == 0 ? 0u : static_cast<uint32_t>(std::floor(8.0 * std::log2(double(pairs)))) + 1u;
}

/// Perfmodel footprint of a task's work: pairs (by class), bins, box kind and precision.
template <class Args>
uint32_t work_footprint(const Args& args) {
  uint32_t h = starpu_hash_crc32c_be(pairs_class(args.pairs), 0);
  h = starpu_hash_crc32c_be(static_cast<uint32_t>(args.nbins()), h);
  h = starpu_hash_crc32c_be(static_cast<uint32_t>(args.box_kind()), h);
  return starpu_hash_crc32c_be(static_cast<uint32_t>(args.precision), h);
}

starpu_codelet* pair_histogram_codelet();
starpu_codelet* histogram_init_codelet();
starpu_codelet* histogram_redux_codelet();

#if defined(STARPU_USE_CUDA) && defined(PAIRHIST_CUDA_CODELETS)
// Implemented in pair_histogram_codelet_cuda.cpp.
void pair_histogram_cuda_shared(void* buffers[], void* cl_arg);
void pair_histogram_cuda_global(void* buffers[], void* cl_arg);
void histogram_init_cuda(void* buffers[], void* cl_arg);
void histogram_redux_cuda(void* buffers[], void* cl_arg);
int cuda_can_execute(unsigned workerid, starpu_task* task, unsigned nimpl);
int cuda_device_count();  // 0 when the CUDA runtime finds no device
/// Initialises the CUDA runtime and the primary context of the first `devices` GPUs (all: -1),
/// then starts loading the cell-list kernels of one precision into them in the background
/// (unless PAIRHIST_LAZY_KERNELS=1).
void warm_up_cuda(int devices, bool double_precision);
/// Free memory on GPU `device` (cudaMemGetInfo); 0 when the runtime cannot tell.
uint64_t cuda_free_memory(int device);
/// The pinning hooks of HostColumn memory (set_host_pinning): cudaHostRegister (portable: every
/// device's context) and cudaHostUnregister, which ignores memory that is not registered.
bool cuda_pin_host(void* p, size_t bytes);
void cuda_unpin_host(void* p, size_t bytes);
/// Whether the shared-memory kernel on device 0 counts nbins bins in several windows (false
/// without a device).
bool cuda_counts_in_windows(int nbins);
#endif

}  // namespace pairhist::codelets
