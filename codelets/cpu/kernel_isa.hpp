// Which instruction set the CPU kernels run with. The kernel translation units
// (pair_histogram_cpu.cpp, cell_histogram_cpu.cpp) are compiled twice: for AVX2 (-march =
// PAIRHIST_CPU_ARCH, x86-64-v3) and, where the compiler can, for AVX-512 (x86-64-v4). Each build
// puts its entry points in its own namespace (cpu::avx2, cpu::avx512: kernel_variants.hpp) and
// the inline helpers of the kernels' headers in an inline namespace of its own (below), so no
// function compiled for AVX-512 can stand in for its AVX2 twin at link time. The entry points of
// pair_histogram_cpu.hpp and cell_histogram_cpu.hpp pick one build per call (kernel_isa.cpp).
// Both builds use the same arithmetic (explicit FMAs, no contraction, correctly rounded square
// roots), so their bins are identical.
#pragma once

// The inline namespace of the kernels' header helpers: one per build (PAIRHIST_CPU_ISA is set
// on the kernel translation units by codelets/CMakeLists.txt; other includers get "generic").
#if !defined(PAIRHIST_CPU_ISA)
#define PAIRHIST_CPU_ISA generic
#endif
#define PAIRHIST_CPU_CONCAT_(a, b) a##b
#define PAIRHIST_CPU_CONCAT(a, b) PAIRHIST_CPU_CONCAT_(a, b)
#define PAIRHIST_CPU_HELPERS PAIRHIST_CPU_CONCAT(built_for_, PAIRHIST_CPU_ISA)

namespace pairhist::cpu {

enum class KernelIsa { avx2, avx512 };

/// "avx2" or "avx512".
const char* kernel_isa_name(KernelIsa isa);

/// Whether this build has the AVX-512 kernels and this CPU (and its OS) can run them:
/// AVX-512 F, CD, BW, DQ and VL (x86-64-v4).
bool avx512_kernels_available();

/// The kernels the entry points without an explicit KernelIsa run: AVX-512 where available,
/// unless AVX2 was forced.
KernelIsa kernel_isa();

/// Forces the AVX2 kernels (true) or lets the entry points pick the best (false), for the whole
/// process: the engine applies Settings::force_avx2_kernels (PAIRHIST_CPU_KERNELS=avx2).
void force_avx2_kernels(bool force);

}  // namespace pairhist::cpu
