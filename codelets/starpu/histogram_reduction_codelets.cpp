#include "codelets/starpu/histogram_reduction_codelets.hpp"

#include <cstdint>
#include <cstring>

#include "codelets/starpu/codelet_builder.hpp"

namespace pairhist::codelets {
namespace {

void histogram_init_cpu(void* buffers[], void*) {
  std::memset(reinterpret_cast<void*>(STARPU_VECTOR_GET_PTR(buffers[0])), 0,
              STARPU_VECTOR_GET_NX(buffers[0]) * sizeof(uint64_t));
}

void histogram_redux_cpu(void* buffers[], void*) {
  auto* dst = reinterpret_cast<uint64_t*>(STARPU_VECTOR_GET_PTR(buffers[0]));
  const auto* src = reinterpret_cast<const uint64_t*>(STARPU_VECTOR_GET_PTR(buffers[1]));
  const size_t n = STARPU_VECTOR_GET_NX(buffers[0]);
  for (size_t k = 0; k < n; ++k) dst[k] += src[k];
}

}  // namespace

starpu_codelet* histogram_init_codelet() {
  static Codelet cl = [] {
    CodeletSpec spec;
    spec.name = "histogram_init";
    spec.cpu_func = histogram_init_cpu;
    spec.cuda = {{PAIRHIST_WITH_CUDA(histogram_init_cuda)}};
    spec.modes = {STARPU_W};
    return Codelet(spec);
  }();
  return cl.get();
}

starpu_codelet* histogram_redux_codelet() {
  static Codelet cl = [] {
    CodeletSpec spec;
    spec.name = "histogram_redux";
    spec.cpu_func = histogram_redux_cpu;
    spec.cuda = {{PAIRHIST_WITH_CUDA(histogram_redux_cuda)}};
    // StarPU 1.3 wants {RW, R} for reduction codelets; 1.4 expects RW|COMMUTE but accepts RW.
    spec.modes = {STARPU_RW, STARPU_R};
    return Codelet(spec);
  }();
  return cl.get();
}

}  // namespace pairhist::codelets
