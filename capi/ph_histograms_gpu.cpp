// ph_histograms_gpu: one call = copy the species in, sort the species of cell-list pairs into
// cells (each once), one launch per pair on a private stream, copy the histograms out. Built only
// with CUDA; ph_histograms_gpu_stub.cpp stands in otherwise.
#include <cuda_runtime_api.h>

#include "capi/frame_prep.hpp"
#include "codelets/cuda/cell_histogram_cuda.hpp"
#include "codelets/cuda/pair_histogram_cuda.hpp"
#include "tasks/spatial_order.hpp"

namespace pairhist::capi {
namespace {

/// Owns device memory and the stream; frees them however the call ends.
struct DeviceScope {
  std::vector<void*> buffers;
  cudaStream_t stream = nullptr;
  ~DeviceScope() {
    if (stream) cudaStreamDestroy(stream);
    for (void* p : buffers) cudaFree(p);
  }
  template <class T>
  cudaError_t alloc(T** p, size_t count) {
    const cudaError_t err =
        cudaMalloc(reinterpret_cast<void**>(p), std::max<size_t>(count, 1) * sizeof(T));
    if (err == cudaSuccess) buffers.push_back(*p);
    return err;
  }
};

#define PH_CUDA_TRY(call)                                                                        \
  do {                                                                                           \
    const cudaError_t err_ = (call);                                                             \
    if (err_ != cudaSuccess)                                                                     \
      return fail(std::string("ph_histograms_gpu: ") + #call + ": " + cudaGetErrorString(err_)); \
  } while (0)

template <class T>
int histograms_gpu(const ph_frame& f, int device, uint64_t* out) {
  PH_CUDA_TRY(cudaSetDevice(device));
  auto soa = species_soa<T>(f);
  const HistogramParams<T> params = frame_params<T>(f);
  // Windows of a wide histogram without a box skip the blocks of pairs that miss their bins; in
  // spatial order most blocks are compact enough to be skipped by some window (K5: ~1.4 passes
  // over the pairs instead of 2). The order of the points does not change the counts.
  if (params.box.kind == BoxKind::none && cuda::counts_in_windows(device, f.n_bins))
    for (int s = 0; s < f.n_species; ++s)
      sort_spatially(soa[static_cast<size_t>(s)], f.species_sizes[s]);
  const int npairs = ph_pair_count(f.n_species);
  const size_t bins = static_cast<size_t>(f.n_bins);
  // Each pair's histogram has one slot more on the device: the cell-list kernel's candidates.
  const size_t slots = bins + 1;
  // Shared-memory counters win even where the bins need several windows (measured: docs/).
  const auto kernel = cuda::HistogramKernel::shared_memory;
  // Which pairs count with the cell list, and which species it sorts into cells (each once).
  CellGrid grid;
  std::vector<char> cell_pair(static_cast<size_t>(npairs), 0);
  std::vector<char> sorted(static_cast<size_t>(f.n_species), 0);
  if (f.algorithm != PH_ALL_PAIRS) {
    grid = frame_cell_grid(f);
    int pair = 0;
    for (int a = 0; a < f.n_species; ++a)
      for (int b = a; b < f.n_species; ++b, ++pair)
        if (pair_uses_cell_list(f, grid, a, b, /*gpu=*/true))
          cell_pair[static_cast<size_t>(pair)] = sorted[static_cast<size_t>(a)] =
              sorted[static_cast<size_t>(b)] = 1;
  }

  DeviceScope scope;
  PH_CUDA_TRY(cudaStreamCreateWithFlags(&scope.stream, cudaStreamNonBlocking));
  std::vector<T*> coords(static_cast<size_t>(f.n_species), nullptr);
  for (int s = 0; s < f.n_species; ++s) {
    const auto& v = soa[static_cast<size_t>(s)];
    PH_CUDA_TRY(scope.alloc(&coords[static_cast<size_t>(s)], v.size()));
    PH_CUDA_TRY(cudaMemcpyAsync(coords[static_cast<size_t>(s)], v.data(), v.size() * sizeof(T),
                                cudaMemcpyHostToDevice, scope.stream));
  }
  std::vector<cuda::CellWorkspace> workspaces(static_cast<size_t>(f.n_species));
  std::vector<cuda::DeviceCells<T>> cells(static_cast<size_t>(f.n_species));
  for (size_t s = 0; s < sorted.size(); ++s)
    if (sorted[s])
      PH_CUDA_TRY(cuda::build_cells(coords[s], f.species_sizes[s], grid, params, workspaces[s],
                                    cells[s], scope.stream));
  unsigned long long* hist = nullptr;
  PH_CUDA_TRY(scope.alloc(&hist, npairs * slots));
  PH_CUDA_TRY(cudaMemsetAsync(hist, 0, npairs * slots * sizeof(uint64_t), scope.stream));
  // The cell-list pairs in one launch (one ramp-up and tail for all), the others one by one.
  std::vector<cuda::CellPairLaunch<T>> cell_launches;
  int pair = 0;
  for (int a = 0; a < f.n_species; ++a)
    for (int b = a; b < f.n_species; ++b, ++pair) {
      const auto sa = static_cast<size_t>(a), sb = static_cast<size_t>(b);
      if (cell_pair[static_cast<size_t>(pair)])
        cell_launches.push_back(
            {&cells[sa], &cells[sb], a == b, 0, grid.keys, hist + pair * slots});
      else
        PH_CUDA_TRY(cuda::launch_pair_histogram(kernel, coords[sa], f.species_sizes[a], coords[sb],
                                                f.species_sizes[b], a == b, 0, f.species_sizes[a],
                                                params, hist + pair * slots, scope.stream));
    }
  PH_CUDA_TRY(cuda::launch_cell_histograms(
      cell_launches.data(), static_cast<int>(cell_launches.size()), grid, params, scope.stream));
  std::vector<uint64_t> result(npairs * slots);
  PH_CUDA_TRY(cudaMemcpyAsync(result.data(), hist, result.size() * sizeof(uint64_t),
                              cudaMemcpyDeviceToHost, scope.stream));
  PH_CUDA_TRY(cudaStreamSynchronize(scope.stream));
  for (size_t p = 0; p < static_cast<size_t>(npairs); ++p)
    for (size_t k = 0; k < bins; ++k) out[p * bins + k] += result[p * slots + k];
  return 0;
}

}  // namespace
}  // namespace pairhist::capi

extern "C" int ph_histograms_gpu(const ph_frame* frame, int device, uint64_t* histograms) {
  using namespace pairhist::capi;
  if (std::string p = frame_problem(frame); !p.empty()) return fail(p);
  if (!histograms) return fail("histograms is NULL");
  if (device < 0 || device >= ph_gpu_count())
    return fail("ph_histograms_gpu: no CUDA device " + std::to_string(device));
  try {
    return frame->precision == PH_SINGLE ? histograms_gpu<float>(*frame, device, histograms)
                                         : histograms_gpu<double>(*frame, device, histograms);
  } catch (const std::exception& e) {
    return fail(std::string("ph_histograms_gpu: ") + e.what());
  }
}

extern "C" int ph_gpu_count(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) return 0;
  return n;
}
