// CPU pair-histogram kernel: sequential (one StarPU task runs it on one core), cache blocked.
#pragma once

#include <cstdint>

#include "codelets/cpu/kernel_isa.hpp"
#include "pairhist/geometry.hpp"

namespace pairhist::cpu {

/// Coordinates of one species in structure-of-arrays form: x[0..n), then y, then z.
template <class T>
struct Coords {
  const T* xyz = nullptr;
  int64_t n = 0;
  const T* x() const { return xyz; }
  const T* y() const { return xyz + n; }
  const T* z() const { return xyz + 2 * n; }
};

/// Adds the histogram of all pairs (i in a, j in b) to hist[0..nbins). With same_species the
/// pairs are i < j of a (b is ignored). Rows [row_begin, row_end) of a are processed, so a caller
/// can split one pair into row tiles. Counts are exact: 32-bit partial counters are flushed into
/// hist before they can overflow. Returns the number of pairs examined.
template <class T>
uint64_t pair_histogram(Coords<T> a, Coords<T> b, bool same_species, int64_t row_begin,
                        int64_t row_end, const HistogramParams<T>& params, uint64_t* hist);

/// pair_histogram with the kernels built for `isa` (kernel_isa.hpp); the one above runs
/// kernel_isa()'s. Throws std::invalid_argument for AVX-512 where avx512_kernels_available() is
/// false.
template <class T>
uint64_t pair_histogram(KernelIsa isa, Coords<T> a, Coords<T> b, bool same_species,
                        int64_t row_begin, int64_t row_end, const HistogramParams<T>& params,
                        uint64_t* hist);

/// The plain double loop the kernels are checked against: no blocking, no buffers.
template <class T>
void pair_histogram_reference(Coords<T> a, Coords<T> b, bool same_species,
                              const HistogramParams<T>& params, uint64_t* hist);

}  // namespace pairhist::cpu
