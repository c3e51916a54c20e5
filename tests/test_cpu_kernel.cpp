// CPU kernel against references, on fresh random inputs every run:
//  - exactly equal to the plain loop of the same precision (blocking, tiling, flushing are exact);
//  - every pair's bin equal to the brute-force double reference except within rounding of an edge.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <numeric>

#include "codelets/cpu/pair_histogram_cpu.hpp"
#include "tests/double_reference.hpp"
#include "tests/random_points.hpp"

using namespace pairhist;

namespace {

struct Case {
  BoxMatrix box;
  BoxKind kind;
  double r_max;
  const char* name;
};

std::vector<Case> cases() {
  const BoxMatrix ortho = test::random_orthorhombic(2.0, 3.0);
  const BoxMatrix tric = test::random_triclinic(2.0, 3.0);
  return {
      {BoxMatrix{}, BoxKind::none, 2.5, "none"},
      {ortho, BoxKind::orthorhombic, max_minimum_image_rmax(ortho), "orthorhombic"},
      {tric, BoxKind::triclinic, max_minimum_image_rmax(tric), "triclinic"},
      {test::rhombic_dodecahedron(), BoxKind::triclinic, 0.5, "rhombic dodecahedron"},
  };
}

template <class T>
std::vector<uint64_t> run_kernel(const std::vector<T>& a, const std::vector<T>& b, bool same,
                                 const HistogramParams<T>& p, std::vector<uint64_t> start) {
  cpu::Coords<T> ca{a.data(), static_cast<int64_t>(a.size() / 3)};
  cpu::Coords<T> cb{b.data(), static_cast<int64_t>(b.size() / 3)};
  cpu::pair_histogram(ca, cb, same, 0, ca.n, p, start.data());
  return start;
}

/// Every pair whose float/double bin differs from the exact one must sit within rounding of a
/// bin edge: a few units in the last place of the largest coordinate magnitude, in bins.
/// Returns how many pairs the exact reference counts.
template <class T>
uint64_t check_pairs_against_double(const std::vector<double>& pa, const std::vector<double>& pb,
                                    bool same, const Case& c, int nbins, double max_coordinate) {
  const double tolerance =
      16 * std::numeric_limits<T>::epsilon() * max_coordinate * nbins / c.r_max;
  const HistogramParams<T> p = make_params<T>(c.box, c.kind, c.r_max, nbins);
  const size_t na = pa.size() / 3, nb = same ? na : pb.size() / 3;
  const std::vector<double>& qb = same ? pa : pb;
  uint64_t counted = 0, off_edge = 0;
  for (size_t i = 0; i < na; ++i) {
    for (size_t j = same ? i + 1 : 0; j < nb; ++j) {
      const double x = test::reference_bin_position(c.box, &pa[3 * i], &qb[3 * j], c.r_max, nbins);
      const int exact = x < nbins ? static_cast<int>(x) : nbins;
      counted += exact < nbins;
      const T ax = static_cast<T>(pa[3 * i]), ay = static_cast<T>(pa[3 * i + 1]),
              az = static_cast<T>(pa[3 * i + 2]);
      const T bx = static_cast<T>(qb[3 * j]), by = static_cast<T>(qb[3 * j + 1]),
              bz = static_cast<T>(qb[3 * j + 2]);
      int got;
      if (c.kind == BoxKind::none)
        got = bin_of_points<BoxKind::none>(p, ax, ay, az, bx, by, bz);
      else if (c.kind == BoxKind::orthorhombic)
        got = bin_of_points<BoxKind::orthorhombic>(p, ax, ay, az, bx, by, bz);
      else
        got = bin_of_points<BoxKind::triclinic>(p, ax, ay, az, bx, by, bz);
      if (got != exact) {
        ++off_edge;
        const double to_edge = std::fabs(x - std::round(x));
        INFO("pair " << i << "," << j << " exact position " << x << " bin " << exact << " got "
                     << got);
        REQUIRE(to_edge <= tolerance);
      }
    }
  }
  MESSAGE(std::string(c.name) << (sizeof(T) == 4 ? " float" : " double") << ": " << off_edge
                              << " pairs rounded across a bin edge");
  return counted;
}

template <class T>
void check_kernel_equals_plain_loop(const Case& c, int64_t na, int64_t nb, bool same, int nbins) {
  const double span = std::fmax(c.box[0], 1.0);
  // Unwrapped coordinates: points up to two boxes outside the primary cell.
  const auto pa = test::random_points(na, -2 * span, 3 * span);
  const auto pb = test::random_points(nb, -2 * span, 3 * span);
  const auto a = test::to_soa<T>(pa);
  const auto b = test::to_soa<T>(pb);
  const HistogramParams<T> p = make_params<T>(c.box, c.kind, c.r_max, nbins);

  // Poison: start from random counts, so a kernel that overwrites instead of adding fails.
  std::vector<uint64_t> poison(static_cast<size_t>(nbins));
  for (auto& v : poison) v = test::rng()() >> 8;
  const auto got = run_kernel(a, b, same, p, poison);

  std::vector<uint64_t> expected = poison;
  cpu::pair_histogram_reference(cpu::Coords<T>{a.data(), na}, cpu::Coords<T>{b.data(), nb}, same, p,
                                expected.data());
  REQUIRE(got == expected);

  // Split into row tiles: the sum must not change.
  std::vector<uint64_t> tiled(static_cast<size_t>(nbins), 0);
  uint64_t examined = 0;
  for (int64_t r = 0; r < na; r += 7)
    examined += cpu::pair_histogram(cpu::Coords<T>{a.data(), na}, cpu::Coords<T>{b.data(), nb},
                                    same, r, r + 7, p, tiled.data());
  for (size_t k = 0; k < tiled.size(); ++k) REQUIRE(tiled[k] + poison[k] == got[k]);
  const uint64_t all =
      same ? uint64_t(na) * uint64_t(na > 0 ? na - 1 : 0) / 2 : uint64_t(na) * uint64_t(nb);
  CHECK(examined == all);
}

}  // namespace

TEST_CASE("CPU kernel equals the plain loop of the same precision, all boxes and sizes") {
  const int64_t sizes[] = {0, 1, 2, 3, 17, 1023, 1025, 2100};
  for (const Case& c : cases()) {
    for (int64_t na : sizes) {
      CAPTURE(c.name);
      CAPTURE(na);
      check_kernel_equals_plain_loop<float>(c, na, na, true, 97);
      check_kernel_equals_plain_loop<double>(c, na, na, true, 1000);
      check_kernel_equals_plain_loop<float>(c, na, 1500 - na / 2, false, 64);
      check_kernel_equals_plain_loop<double>(c, na, 3, false, 7);
    }
  }
}

TEST_CASE("float and double bins differ from the exact distance only within rounding of an edge") {
  for (const Case& c : cases()) {
    const double span = std::fmax(c.box[0], 1.0);
    const auto pa = test::random_points(700, -span, 2 * span);
    const auto pb = test::random_points(600, -span, 2 * span);
    const uint64_t nf =
        check_pairs_against_double<float>(pa, pb, false, c, 10000, 2 * span + c.box[0]);
    const uint64_t nd =
        check_pairs_against_double<double>(pa, pa, true, c, 10000, 2 * span + c.box[0]);
    CHECK(nf > 0);
    CHECK(nd > 0);
  }
}

TEST_CASE("distances exactly on bin edges land in the upper bin") {
  // Points on a line at integer multiples of the bin width 0.25 (exact in binary).
  std::vector<double> line;
  for (int i = 0; i < 40; ++i) line.insert(line.end(), {0.25 * i, 0.0, 0.0});
  const auto a = test::to_soa<float>(line);
  const HistogramParams<float> p{Box<float>{}, bin_scale<float>(10.0, 40), 40};
  std::vector<uint64_t> h(40, 0);
  cpu::pair_histogram(cpu::Coords<float>{a.data(), 40}, cpu::Coords<float>{a.data(), 40}, true, 0,
                      40, p, h.data());
  // Distance k * 0.25 occurs 40 - k times and belongs to bin k.
  for (int k = 1; k < 40; ++k) CHECK(h[static_cast<size_t>(k)] == uint64_t(40 - k));
  CHECK(h[0] == 0);
}

TEST_CASE("one bin counting beyond 2^32 in one kernel call stays exact") {
  // 65,536 x 65,540 coincident points: 4,295,229,440 pairs in bin 0, above 2^32 - 1, so the
  // 32-bit partial counters must be flushed during the call.
  const int64_t na = 65536, nb = 65540;
  const std::vector<float> a(3 * na, 0.5f), b(3 * nb, 0.5f);
  const HistogramParams<float> p{Box<float>{}, bin_scale<float>(1.0, 4), 4};
  std::vector<uint64_t> h(4, 0);
  cpu::pair_histogram(cpu::Coords<float>{a.data(), na}, cpu::Coords<float>{b.data(), nb}, false, 0,
                      na, p, h.data());
  CHECK(h[0] == uint64_t(na) * uint64_t(nb));
  CHECK(h[0] > uint64_t(UINT32_MAX));
  CHECK(h[1] + h[2] + h[3] == 0);
}
