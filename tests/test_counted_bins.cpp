// The cell-list kernel's counting step: the squared-distance threshold equals bin_of's own
// decision, and the vector compaction keeps exactly the counted entries, in order.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "codelets/cpu/counted_bins.hpp"
#include "codelets/cpu/kernel_isa.hpp"
#include "tests/random_points.hpp"

using namespace pairhist;

#if defined(PAIRHIST_TEST_AVX512_COMPACTION)
namespace pairhist::test {  // counted_bins_avx512.cpp: compact_below of the AVX-512 build
int64_t compact_below_avx512(bool count_all, const float* d2, int64_t m, int64_t valid, float limit,
                             int lead, float* out);
int64_t compact_below_avx512(bool count_all, const double* d2, int64_t m, int64_t valid,
                             double limit, int lead, double* out);
}  // namespace pairhist::test
#endif

namespace {

template <class T>
void check_threshold(int nbins) {
  CAPTURE(nbins);
  const T t = cpu::uncounted_from<T>(nbins);
  CHECK(bin_of(t, nbins) >= nbins);
  const T below = std::nextafter(t, T(0));
  if (t > T(0)) CHECK(bin_of(below, nbins) < nbins);
  // Around the threshold and everywhere else, d2 < t decides as bin_of does.
  std::uniform_real_distribution<double> u(0.0, 2.0);
  for (int i = 0; i < 2000; ++i) {
    const T d2 = static_cast<T>(u(test::rng()) * static_cast<double>(t));
    REQUIRE((d2 < t) == (bin_of(d2, nbins) < nbins));
  }
}

/// compact_below of the build these tests are compiled for.
template <bool CountAll, class T>
int64_t compact_here(const T* d2, int64_t m, int64_t valid, T limit, int lead, T* out) {
  return cpu::compact_below<CountAll>(d2, m, valid, limit, lead, out);
}

template <bool CountAll, class T, class Compact>
void check_compaction(Compact compact) {
  const T limit = T(100);
  std::uniform_real_distribution<double> u(0.0, 200.0);
  std::uniform_int_distribution<int> lead_of(0, 7), blocks_of(1, 40), pad_of(0, 7);
  for (int round = 0; round < 500; ++round) {
    const int lead = lead_of(test::rng());
    const int64_t m = 8 * blocks_of(test::rng());
    const int64_t valid = std::max<int64_t>(m - pad_of(test::rng()), lead + 1);
    std::vector<T> d2(static_cast<size_t>(m)), out(static_cast<size_t>(m));
    for (int64_t k = 0; k < m; ++k) {
      const double v = u(test::rng());
      d2[static_cast<size_t>(k)] =
          (k >= valid || v < 10) ? std::numeric_limits<T>::quiet_NaN() : static_cast<T>(v);
    }
    std::vector<T> expected;
    for (int64_t k = lead; k < valid; ++k) {
      const T v = d2[static_cast<size_t>(k)];
      if (CountAll || v < limit) expected.push_back(v);
    }
    const int64_t w = compact(d2.data(), m, valid, limit, lead, out.data());
    REQUIRE(w == static_cast<int64_t>(expected.size()));
    for (int64_t k = 0; k < w; ++k) {
      const T got = out[static_cast<size_t>(k)], want = expected[static_cast<size_t>(k)];
      REQUIRE((got == want || (std::isnan(got) && std::isnan(want))));
    }
  }
}

}  // namespace

TEST_CASE("counted squared distances: the threshold is bin_of's own decision") {
  for (int nbins : {1, 2, 7, 97, 240, 1000, 10000, 1 << 20, 16777218}) {
    check_threshold<float>(nbins);
    check_threshold<double>(nbins);
  }
  check_threshold<double>(16777217);
  // Where T(nbins) rounds below nbins, every pair gets a bin below nbins, NaN and infinity too
  // (as in the all-pairs kernel): the kernel then counts them all.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(bin_of(nan, 16777217) < 16777217);
  CHECK(bin_of(inf, 16777217) < 16777217);
  CHECK(bin_of(nan, 240) == 240);
}

TEST_CASE("counted squared distances: compaction keeps exactly the counted, in order") {
  check_compaction<false, float>(compact_here<false, float>);
  check_compaction<true, float>(compact_here<true, float>);
  check_compaction<false, double>(compact_here<false, double>);
  check_compaction<true, double>(compact_here<true, double>);
}

TEST_CASE("counted squared distances: the AVX-512 build's compaction") {
#if defined(PAIRHIST_TEST_AVX512_COMPACTION)
  if (!cpu::avx512_kernels_available()) {
    MESSAGE("no AVX-512 on this CPU: the AVX-512 compaction is not checked");
    return;
  }
  for (bool all : {false, true}) {
    const auto in_float = [all](const float* d2, int64_t m, int64_t valid, float limit, int lead,
                                float* out) {
      return test::compact_below_avx512(all, d2, m, valid, limit, lead, out);
    };
    const auto in_double = [all](const double* d2, int64_t m, int64_t valid, double limit, int lead,
                                 double* out) {
      return test::compact_below_avx512(all, d2, m, valid, limit, lead, out);
    };
    if (all) {
      check_compaction<true, float>(in_float);
      check_compaction<true, double>(in_double);
    } else {
      check_compaction<false, float>(in_float);
      check_compaction<false, double>(in_double);
    }
  }
#else
  MESSAGE("built without the AVX-512 kernels: nothing to check");
#endif
}
