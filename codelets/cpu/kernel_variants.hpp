// The entry points of each build of the kernel translation units (kernel_isa.hpp), declared for
// the dispatch in kernel_isa.cpp. Same contracts as pair_histogram_cpu.hpp and
// cell_histogram_cpu.hpp.
#pragma once

#include <cstdint>

#include "codelets/cpu/cell_histogram_cpu.hpp"
#include "codelets/cpu/pair_histogram_cpu.hpp"

#define PAIRHIST_DECLARE_CPU_KERNELS(isa)                                                     \
  namespace pairhist::cpu::isa {                                                              \
  template <class T>                                                                          \
  uint64_t pair_histogram(Coords<T> a, Coords<T> b, bool same_species, int64_t row_begin,     \
                          int64_t row_end, const HistogramParams<T>& params, uint64_t* hist); \
  template <class T>                                                                          \
  void pair_histogram_reference(Coords<T> a, Coords<T> b, bool same_species,                  \
                                const HistogramParams<T>& params, uint64_t* hist);            \
  template <class T>                                                                          \
  void sort_into_cells(Coords<T> raw, const CellGrid& grid, const HistogramParams<T>& params, \
                       CellSortedSpecies<T>& out);                                            \
  template <class T>                                                                          \
  uint64_t cell_histogram(const CellSortedSpecies<T>& a, const CellSortedSpecies<T>& b,       \
                          bool same_species, const CellGrid& grid, int64_t key_begin,         \
                          int64_t key_end, const HistogramParams<T>& params, uint64_t* hist); \
  }

PAIRHIST_DECLARE_CPU_KERNELS(avx2)
PAIRHIST_DECLARE_CPU_KERNELS(avx512)

#undef PAIRHIST_DECLARE_CPU_KERNELS
