// Stand-in for builds without CUDA: the GPU entry points exist and say why they cannot run.
#include "capi/frame_prep.hpp"

extern "C" int ph_histograms_gpu(const ph_frame*, int, uint64_t*) {
  return pairhist::capi::fail("ph_histograms_gpu: pairhist was built without CUDA");
}

extern "C" int ph_gpu_count(void) {
  return 0;
}
