// The CPU kernels built for AVX2 and for AVX-512 (codelets/cpu/kernel_isa.hpp) on fresh random
// points: both algorithms, in every box kind, float and double, bins from 0 and from r_min, must
// give the brute-force reference's counts bit for bit, and so each other's. The AVX-512 half is
// skipped, with a message, where this build or this CPU has no AVX-512 kernels.
#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "codelets/cpu/cell_histogram_cpu.hpp"
#include "codelets/cpu/kernel_isa.hpp"
#include "codelets/cpu/pair_histogram_cpu.hpp"
#include "tests/cell_list_setups.hpp"

using namespace pairhist;
using cpu::KernelIsa;
using test::Setup;
using test::Species;

namespace {

std::vector<KernelIsa> isas_here() {
  std::vector<KernelIsa> isas{KernelIsa::avx2};
  if (cpu::avx512_kernels_available()) {
    isas.push_back(KernelIsa::avx512);
  } else {
    static bool told = false;
    if (!told) std::printf("test_kernel_isa: no AVX-512 kernels on this build or CPU; AVX2 only\n");
    told = true;
  }
  return isas;
}

/// All pairs and cell lists (reach 1 and 2, every cell order) of each kernel build against the
/// reference loop.
template <class T>
void check_isas(const Setup& s, const std::vector<double>& pa, const std::vector<double>& pb,
                bool same, const BinRange& bins) {
  const std::string name = s.name;
  CAPTURE(name);
  CAPTURE(sizeof(T));
  CAPTURE(same);
  CAPTURE(bins.r_min);
  const Species<T> a(pa), b(same ? pa : pb);
  const HistogramParams<T> p = make_params<T>(s.box, s.kind(), bins);
  std::vector<uint64_t> reference(static_cast<size_t>(bins.nbins), 0);
  cpu::pair_histogram_reference(a.coords(), b.coords(), same, p, reference.data());
  for (KernelIsa isa : isas_here()) {
    const std::string kernels = cpu::kernel_isa_name(isa);
    CAPTURE(kernels);
    std::vector<uint64_t> all_pairs(static_cast<size_t>(bins.nbins), 0);
    cpu::pair_histogram(isa, a.coords(), b.coords(), same, 0, a.n, p, all_pairs.data());
    REQUIRE(all_pairs == reference);
    for (CellOrder order : test::kOrders)
      for (int reach : {1, 2}) {
        CAPTURE(reach);
        const CellGrid g = test::grid_for<T>(s, {&a, &b}, reach, order);
        cpu::CellSortedSpecies<T> sa, sb;
        cpu::sort_into_cells(isa, a.coords(), g, p, sa);
        cpu::sort_into_cells(isa, b.coords(), g, p, sb);
        std::vector<uint64_t> cells(static_cast<size_t>(bins.nbins) + 1, 0);
        cpu::cell_histogram(isa, sa, sb, same, g, 0, g.keys, p, cells.data());
        cells.pop_back();  // the candidates
        REQUIRE(cells == reference);
      }
  }
}

template <class T>
void check_setup(const Setup& s, int64_t na, int64_t nb, int nbins) {
  const double extent = 4 * s.r_max;
  const auto pa = test::cell_points(s.box, extent, na, 1);
  const auto pb = test::cell_points(s.box, extent, nb, 1);
  // Odd sizes: the vector loops' remainders; bins from 0 and from r_min.
  for (double r_min : {0.0, 0.3 * s.r_max}) {
    const BinRange bins{s.r_max, nbins, 0, r_min};
    check_isas<T>(s, pa, pa, true, bins);
    check_isas<T>(s, pa, pb, false, bins);
  }
}

}  // namespace

TEST_CASE("AVX2 and AVX-512 kernels count every pair as the reference does") {
  for (const Setup& s : test::limit_setups()) {
    check_setup<float>(s, 701, 333, 97);
    check_setup<double>(s, 613, 259, 200);
  }
  for (const Setup& s : test::small_rmax_setups()) {
    check_setup<float>(s, 1501, 777, 240);
    check_setup<double>(s, 1203, 555, 64);
  }
}

TEST_CASE("the kernels' build: AVX-512 where available unless AVX2 is forced") {
  const KernelIsa best = cpu::avx512_kernels_available() ? KernelIsa::avx512 : KernelIsa::avx2;
  CHECK(cpu::kernel_isa() == best);
  cpu::force_avx2_kernels(true);
  CHECK(cpu::kernel_isa() == KernelIsa::avx2);
  cpu::force_avx2_kernels(false);
  CHECK(cpu::kernel_isa() == best);
  CHECK(std::string(cpu::kernel_isa_name(KernelIsa::avx512)) == "avx512");
  if (!cpu::avx512_kernels_available()) {
    std::vector<uint64_t> hist(4, 0);
    const float xyz[3] = {0, 0, 0};
    const HistogramParams<float> p = make_params<float>(BoxMatrix{}, BoxKind::none, 1.0, 4);
    CHECK_THROWS_AS(cpu::pair_histogram(KernelIsa::avx512, cpu::Coords<float>{xyz, 1},
                                        cpu::Coords<float>{xyz, 1}, false, 0, 1, p, hist.data()),
                    std::invalid_argument);
  }
}
