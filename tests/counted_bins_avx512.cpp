// compact_below as the AVX-512 kernel build compiles it, for test_counted_bins: this file is
// built with x86-64-v4 and PAIRHIST_CPU_ISA=avx512, and holds nothing else (no doctest, no
// standard containers: nothing of it runs, or is shared with the AVX2 code, before the test has
// asked whether the CPU has AVX-512; test_kernel_isa_objects checks this object too).
#include <cstdint>

#include "codelets/cpu/counted_bins.hpp"

namespace pairhist::test {

int64_t compact_below_avx512(bool count_all, const float* d2, int64_t m, int64_t valid, float limit,
                             int lead, float* out) {
  return count_all ? cpu::compact_below<true>(d2, m, valid, limit, lead, out)
                   : cpu::compact_below<false>(d2, m, valid, limit, lead, out);
}

int64_t compact_below_avx512(bool count_all, const double* d2, int64_t m, int64_t valid,
                             double limit, int lead, double* out) {
  return count_all ? cpu::compact_below<true>(d2, m, valid, limit, lead, out)
                   : cpu::compact_below<false>(d2, m, valid, limit, lead, out);
}

}  // namespace pairhist::test
