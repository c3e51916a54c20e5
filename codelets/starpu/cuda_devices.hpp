// The host's CUDA devices as the engine sees them before and around its tasks: how many there
// are, their free memory, loading kernels ahead of the first frame, and pinning host memory.
// Only in builds with the CUDA codelets (cuda_devices_cuda.cpp); callers test
// PAIRHIST_CUDA_CODELETS.
#pragma once

#include <starpu.h>

#include <cstddef>
#include <cstdint>

namespace pairhist::codelets {

#if defined(STARPU_USE_CUDA) && defined(PAIRHIST_CUDA_CODELETS)
int cuda_device_count();  // 0 when the CUDA runtime finds no device
/// Initialises the CUDA runtime and the primary context of the first `devices` GPUs (all: -1),
/// then starts loading the cell-list kernels of one precision into them in the background.
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
