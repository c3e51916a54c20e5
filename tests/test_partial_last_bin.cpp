// A cut-off r_cut inside the last bin (r_max not a multiple of the bin width): on fresh random
// points every run, the CPU kernels (all pairs, cell lists; single and double) count no pair at
// r >= r_cut, agree with a brute-force double reference but for pairs within rounding of a bin
// edge or of r_cut, and agree with each other bit for bit. A cut-off on the last bin's edge is
// the clamp of a whole last bin, bit for bit.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include "codelets/cpu/cell_histogram_cpu.hpp"
#include "codelets/cpu/counted_bins.hpp"
#include "codelets/cpu/pair_histogram_cpu.hpp"
#include "tests/cell_list_setups.hpp"
#include "tests/double_reference.hpp"

using namespace pairhist;
using test::Setup;
using test::Species;

namespace {

/// r_max a bin multiple: the cut-off 0.37 of the last bin below it.
double cut_inside_last_bin(const Setup& s, int nbins) {
  return s.r_max - 0.37 * s.r_max / nbins;
}

template <class T>
std::vector<uint64_t> all_pairs(const Species<T>& a, const Species<T>& b, bool same,
                                const HistogramParams<T>& p) {
  std::vector<uint64_t> h(static_cast<size_t>(p.nbins), 0);
  cpu::pair_histogram(a.coords(), b.coords(), same, 0, a.n, p, h.data());
  return h;
}

/// The exact histogram of the pairs at r < r_cut, and how many pairs lie within `tolerance`
/// (in bins) of a bin edge or of r_cut, where rounding may move them.
struct Reference {
  std::vector<uint64_t> counts;
  uint64_t near_edge = 0;
  uint64_t near_cut = 0;
};

template <class T>
Reference reference(const Setup& s, const Species<T>& a, const Species<T>& b, bool same, int nbins,
                    double r_cut, double tolerance) {
  Reference ref;
  ref.counts.assign(static_cast<size_t>(nbins), 0);
  const double cut_bins = r_cut * nbins / s.r_max;
  for (int64_t i = 0; i < a.n; ++i)
    for (int64_t j = same ? i + 1 : 0; j < b.n; ++j) {
      const double p[3] = {a.at(i, 0), a.at(i, 1), a.at(i, 2)};
      const double q[3] = {b.at(j, 0), b.at(j, 1), b.at(j, 2)};
      const double x = test::reference_bin_position(s.box, p, q, s.r_max, nbins);
      if (std::fabs(x - cut_bins) <= tolerance) ++ref.near_cut;
      if (std::fabs(x - std::round(x)) <= tolerance) ++ref.near_edge;
      if (x < cut_bins) ++ref.counts[static_cast<size_t>(x)];
    }
  return ref;
}

template <class T>
void check_setup(const Setup& s, int64_t na, int64_t nb, bool same, int nbins) {
  const std::string name = s.name;
  CAPTURE(name);
  CAPTURE(sizeof(T));
  CAPTURE(same);
  const double extent = 4 * s.r_max;
  const Species<T> a(test::cell_points(s.box, extent, na, 1));
  const Species<T> b(same ? test::cell_points(s.box, extent, 0, 1)
                          : test::cell_points(s.box, extent, nb, 1));
  const Species<T>& other = same ? a : b;
  const double r_cut = cut_inside_last_bin(s, nbins);
  const HistogramParams<T> whole = make_params<T>(s.box, s.kind(), s.r_max, nbins);
  const HistogramParams<T> partial = make_params<T>(s.box, s.kind(), s.r_max, nbins, r_cut);
  REQUIRE(whole.limit == T(nbins));
  REQUIRE(partial.limit < T(nbins));
  REQUIRE(partial.limit > T(nbins - 1));
  // A cut-off at r_max (or beyond, or 0) is the whole last bin.
  CHECK(make_params<T>(s.box, s.kind(), s.r_max, nbins, s.r_max).limit == T(nbins));
  CHECK(make_params<T>(s.box, s.kind(), s.r_max, nbins, 2 * s.r_max).limit == T(nbins));

  const std::vector<uint64_t> got = all_pairs(a, other, same, partial);
  const std::vector<uint64_t> full = all_pairs(a, other, same, whole);
  // Only the last bin changes, and only downwards.
  for (int k = 0; k + 1 < nbins; ++k)
    REQUIRE(got[static_cast<size_t>(k)] == full[static_cast<size_t>(k)]);
  REQUIRE(got.back() <= full.back());

  // Against the exact distances: the roundings of the coordinates (a few ulps of the largest
  // magnitude, in bins) move only pairs that close to an edge or to the cut-off.
  const double max_coordinate = 2 * extent + std::fabs(s.box[0]) + std::fabs(s.box[3]) +
                                std::fabs(s.box[6]) + s.box[4] + s.box[7] + s.box[8];
  const double tolerance =
      16 * std::numeric_limits<T>::epsilon() * max_coordinate * nbins / s.r_max;
  const Reference ref = reference(s, a, other, same, nbins, r_cut, tolerance);
  uint64_t moved = 0;
  for (size_t k = 0; k < got.size(); ++k)
    moved += got[k] > ref.counts[k] ? got[k] - ref.counts[k] : ref.counts[k] - got[k];
  INFO("pairs near an edge " << ref.near_edge << ", near the cut-off " << ref.near_cut);
  REQUIRE(moved <= 2 * (ref.near_edge + ref.near_cut));
  uint64_t got_total = 0, ref_total = 0;
  for (size_t k = 0; k < got.size(); ++k) got_total += got[k], ref_total += ref.counts[k];
  REQUIRE(got_total + ref.near_cut >= ref_total);
  REQUIRE(got_total <= ref_total + ref.near_cut);

  // Cell lists: the same counts bit for bit, every order and reach.
  test::require_cells_equal(s, a, other, same, partial, got);
}

}  // namespace

TEST_CASE("a cut-off inside the last bin: no pair beyond it, all pairs == cell lists") {
  for (const Setup& s : test::limit_setups()) {
    check_setup<float>(s, 900, 0, true, 40);
    check_setup<double>(s, 900, 0, true, 40);
    check_setup<float>(s, 500, 600, false, 7);
    check_setup<double>(s, 500, 600, false, 7);
  }
  for (const Setup& s : test::small_rmax_setups()) {
    check_setup<float>(s, 1200, 0, true, 13);
    check_setup<double>(s, 700, 800, false, 13);
  }
}

TEST_CASE("bin_of with a cut-off: below it the floor, at or beyond it (and NaN) nbins") {
  CHECK(bin_of_distance(9.5f, 9.6f, 10) == 9);
  CHECK(bin_of_distance(9.6f, 9.6f, 10) == 10);
  CHECK(bin_of_distance(9.99f, 9.6f, 10) == 10);
  CHECK(bin_of_distance(std::nanf(""), 9.6f, 10) == 10);
  CHECK(bin_of_distance(3.5, 9.6, 10) == 3);
  // A cut-off on the last edge is the clamp of a whole last bin.
  for (double r : {0.0, 4.5, 9.999, 10.0, 11.0, 1e30})
    CHECK(bin_of_distance(r, 10.0, 10) == bin_of_distance(r, 10));
  // The CPU's squared-distance threshold follows the cut-off too.
  const float t = cpu::uncounted_from<float>(9.6f, 10);
  CHECK(bin_of(t, 9.6f, 10) == 10);
  CHECK(bin_of(std::nextafter(t, 0.0f), 9.6f, 10) < 10);
  CHECK(cpu::uncounted_from<float>(10.0f, 10) == cpu::uncounted_from<float>(10));
}
