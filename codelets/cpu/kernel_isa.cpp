// The one place that picks a build of the CPU kernels (kernel_isa.hpp): compiled for the
// baseline (PAIRHIST_CPU_ARCH) like every caller, it only asks the CPU what it has.
#include "codelets/cpu/kernel_isa.hpp"

#include <atomic>
#include <stdexcept>
#include <type_traits>

#include "codelets/cpu/kernel_variants.hpp"

namespace pairhist::cpu {
namespace {

std::atomic<bool> g_force_avx2{false};

bool cpu_has_avx512() {
#if defined(PAIRHIST_HAVE_AVX512_KERNELS) && (defined(__x86_64__) || defined(__i386__))
  // libgcc's feature bits also check that the OS saves the AVX-512 state (XCR0).
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl");
#else
  return false;
#endif
}

/// Calls the build `isa` of a kernel: f(avx2-tag) or f(avx512-tag).
template <class F>
auto with_isa(KernelIsa isa, F&& f) {
  if (isa == KernelIsa::avx512) {
    if (!avx512_kernels_available())
      throw std::invalid_argument(
          "CPU kernels: AVX-512 asked for, but this build or this CPU has no AVX-512 kernels");
    return f(std::true_type{});
  }
  return f(std::false_type{});
}

}  // namespace

const char* kernel_isa_name(KernelIsa isa) {
  return isa == KernelIsa::avx512 ? "avx512" : "avx2";
}

bool avx512_kernels_available() {
  static const bool available = cpu_has_avx512();
  return available;
}

KernelIsa kernel_isa() {
  return !g_force_avx2.load(std::memory_order_relaxed) && avx512_kernels_available()
             ? KernelIsa::avx512
             : KernelIsa::avx2;
}

void force_avx2_kernels(bool force) {
  g_force_avx2.store(force, std::memory_order_relaxed);
}

#if defined(PAIRHIST_HAVE_AVX512_KERNELS)
#define PAIRHIST_CALL_KERNEL(name, ...)  \
  with_isa(isa, [&](auto wide) {         \
    if constexpr (decltype(wide)::value) \
      return avx512::name(__VA_ARGS__);  \
    else                                 \
      return avx2::name(__VA_ARGS__);    \
  })
#else
#define PAIRHIST_CALL_KERNEL(name, ...) with_isa(isa, [&](auto) { return avx2::name(__VA_ARGS__); })
#endif

template <class T>
uint64_t pair_histogram(KernelIsa isa, Coords<T> a, Coords<T> b, bool same_species,
                        int64_t row_begin, int64_t row_end, const HistogramParams<T>& params,
                        uint64_t* hist) {
  return PAIRHIST_CALL_KERNEL(pair_histogram, a, b, same_species, row_begin, row_end, params, hist);
}

template <class T>
uint64_t pair_histogram(Coords<T> a, Coords<T> b, bool same_species, int64_t row_begin,
                        int64_t row_end, const HistogramParams<T>& params, uint64_t* hist) {
  return pair_histogram(kernel_isa(), a, b, same_species, row_begin, row_end, params, hist);
}

template <class T>
void pair_histogram_reference(Coords<T> a, Coords<T> b, bool same_species,
                              const HistogramParams<T>& params, uint64_t* hist) {
  avx2::pair_histogram_reference(a, b, same_species, params, hist);
}

template <class T>
void sort_into_cells(KernelIsa isa, Coords<T> raw, const CellGrid& grid,
                     const HistogramParams<T>& params, CellSortedSpecies<T>& out) {
  PAIRHIST_CALL_KERNEL(sort_into_cells, raw, grid, params, out);
}

template <class T>
void sort_into_cells(Coords<T> raw, const CellGrid& grid, const HistogramParams<T>& params,
                     CellSortedSpecies<T>& out) {
  sort_into_cells(kernel_isa(), raw, grid, params, out);
}

template <class T>
uint64_t cell_histogram(KernelIsa isa, const CellSortedSpecies<T>& a, const CellSortedSpecies<T>& b,
                        bool same_species, const CellGrid& grid, int64_t key_begin, int64_t key_end,
                        const HistogramParams<T>& params, uint64_t* hist) {
  return PAIRHIST_CALL_KERNEL(cell_histogram, a, b, same_species, grid, key_begin, key_end, params,
                              hist);
}

template <class T>
uint64_t cell_histogram(const CellSortedSpecies<T>& a, const CellSortedSpecies<T>& b,
                        bool same_species, const CellGrid& grid, int64_t key_begin, int64_t key_end,
                        const HistogramParams<T>& params, uint64_t* hist) {
  return cell_histogram(kernel_isa(), a, b, same_species, grid, key_begin, key_end, params, hist);
}

#define PAIRHIST_INSTANTIATE_CPU_KERNELS(T)                                                        \
  template uint64_t pair_histogram<T>(KernelIsa, Coords<T>, Coords<T>, bool, int64_t, int64_t,     \
                                      const HistogramParams<T>&, uint64_t*);                       \
  template uint64_t pair_histogram<T>(Coords<T>, Coords<T>, bool, int64_t, int64_t,                \
                                      const HistogramParams<T>&, uint64_t*);                       \
  template void pair_histogram_reference<T>(Coords<T>, Coords<T>, bool, const HistogramParams<T>&, \
                                            uint64_t*);                                            \
  template void sort_into_cells<T>(KernelIsa, Coords<T>, const CellGrid&,                          \
                                   const HistogramParams<T>&, CellSortedSpecies<T>&);              \
  template void sort_into_cells<T>(Coords<T>, const CellGrid&, const HistogramParams<T>&,          \
                                   CellSortedSpecies<T>&);                                         \
  template uint64_t cell_histogram<T>(KernelIsa, const CellSortedSpecies<T>&,                      \
                                      const CellSortedSpecies<T>&, bool, const CellGrid&, int64_t, \
                                      int64_t, const HistogramParams<T>&, uint64_t*);              \
  template uint64_t cell_histogram<T>(const CellSortedSpecies<T>&, const CellSortedSpecies<T>&,    \
                                      bool, const CellGrid&, int64_t, int64_t,                     \
                                      const HistogramParams<T>&, uint64_t*);

PAIRHIST_INSTANTIATE_CPU_KERNELS(float)
PAIRHIST_INSTANTIATE_CPU_KERNELS(double)

}  // namespace pairhist::cpu
