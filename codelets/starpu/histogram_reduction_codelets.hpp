// The codelets that let StarPU sum 64-bit partial histograms exactly (STARPU_REDUX, or explicit
// sum tasks): zero a histogram, add one into another.
#pragma once

#include <starpu.h>

namespace pairhist::codelets {

starpu_codelet* histogram_init_codelet();   // buffers: the histogram (W)
starpu_codelet* histogram_redux_codelet();  // buffers: the sum (RW), the partial added (R)

#if defined(STARPU_USE_CUDA) && defined(PAIRHIST_CUDA_CODELETS)
// Implemented in histogram_reduction_codelets_cuda.cpp.
void histogram_init_cuda(void* buffers[], void* cl_arg);
void histogram_redux_cuda(void* buffers[], void* cl_arg);
#endif

}  // namespace pairhist::codelets
