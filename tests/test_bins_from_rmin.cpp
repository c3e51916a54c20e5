// Bins from r_min > 0 (MDAnalysis's range[0], freud's r_min): on fresh random points every run,
// the CPU kernels (all pairs, cell lists; single and double; with and without a cut-off inside
// the last bin) count no pair at r < r_min or r >= r_cut, agree with a brute-force double
// reference but for pairs within rounding of a bin edge or of either bound, and agree with each
// other bit for bit. r_min = 0 is bit for bit the bins from 0.
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

template <class T>
std::vector<uint64_t> all_pairs(const Species<T>& a, const Species<T>& b, bool same,
                                const HistogramParams<T>& p) {
  std::vector<uint64_t> h(static_cast<size_t>(p.nbins), 0);
  cpu::pair_histogram(a.coords(), b.coords(), same, 0, a.n, p, h.data());
  return h;
}

/// The exact histogram of the pairs at r_min <= r < r_cut, and how many pairs lie within
/// `tolerance` (in bins) of a bin edge or of a bound, where rounding may move them.
struct Reference {
  std::vector<uint64_t> counts;
  uint64_t near_edge = 0;
  uint64_t near_bound = 0;
};

template <class T>
Reference reference(const Setup& s, const Species<T>& a, const Species<T>& b, bool same,
                    const BinRange& bins, double tolerance) {
  Reference ref;
  ref.counts.assign(static_cast<size_t>(bins.nbins), 0);
  const double span = bins.r_max - bins.r_min;
  const double cut = (bins.r_cut > 0 ? bins.r_cut : bins.r_max) - bins.r_min;
  const double cut_bins = cut * bins.nbins / span;
  for (int64_t i = 0; i < a.n; ++i)
    for (int64_t j = same ? i + 1 : 0; j < b.n; ++j) {
      const double p[3] = {a.at(i, 0), a.at(i, 1), a.at(i, 2)};
      const double q[3] = {b.at(j, 0), b.at(j, 1), b.at(j, 2)};
      const double x = (test::reference_distance(s.box, p, q) - bins.r_min) * bins.nbins / span;
      if (std::fabs(x - cut_bins) <= tolerance || std::fabs(x) <= tolerance) ++ref.near_bound;
      if (std::fabs(x - std::round(x)) <= tolerance) ++ref.near_edge;
      if (x >= 0 && x < cut_bins) ++ref.counts[static_cast<size_t>(x)];
    }
  return ref;
}

template <class T>
void check_setup(const Setup& s, int64_t na, int64_t nb, bool same, int nbins, double r_min_part,
                 bool cut) {
  const std::string name = s.name;
  CAPTURE(name);
  CAPTURE(sizeof(T));
  CAPTURE(same);
  CAPTURE(cut);
  const double extent = 4 * s.r_max;
  const Species<T> a(test::cell_points(s.box, extent, na, 1));
  const Species<T> b(same ? test::cell_points(s.box, extent, 0, 1)
                          : test::cell_points(s.box, extent, nb, 1));
  const Species<T>& other = same ? a : b;
  BinRange bins{s.r_max, nbins, 0, r_min_part * s.r_max};
  if (cut) bins.r_cut = s.r_max - 0.37 * (s.r_max - bins.r_min) / nbins;
  const HistogramParams<T> p = make_params<T>(s.box, s.kind(), bins);
  REQUIRE(p.lower > T(0));
  REQUIRE(fp::sub(p.limit, p.lower) < T(nbins + 1));
  CAPTURE(p.lower);
  CAPTURE(p.limit);

  const std::vector<uint64_t> got = all_pairs(a, other, same, p);

  const double max_coordinate = 2 * extent + std::fabs(s.box[0]) + std::fabs(s.box[3]) +
                                std::fabs(s.box[6]) + s.box[4] + s.box[7] + s.box[8];
  const double tolerance =
      16 * std::numeric_limits<T>::epsilon() * max_coordinate * nbins / (bins.r_max - bins.r_min);
  const Reference ref = reference(s, a, other, same, bins, tolerance);
  uint64_t moved = 0, got_total = 0, ref_total = 0;
  for (size_t k = 0; k < got.size(); ++k) {
    moved += got[k] > ref.counts[k] ? got[k] - ref.counts[k] : ref.counts[k] - got[k];
    got_total += got[k], ref_total += ref.counts[k];
  }
  INFO("pairs near an edge " << ref.near_edge << ", near a bound " << ref.near_bound);
  REQUIRE(ref_total > 0);
  REQUIRE(moved <= 2 * (ref.near_edge + ref.near_bound));
  REQUIRE(got_total + ref.near_bound >= ref_total);
  REQUIRE(got_total <= ref_total + ref.near_bound);

  // Cell lists: the same counts bit for bit, every order and reach.
  test::require_cells_equal(s, a, other, same, p, got);
}

}  // namespace

TEST_CASE("bins from r_min: nothing below it or beyond r_max, all pairs == cell lists") {
  for (const Setup& s : test::limit_setups()) {
    check_setup<float>(s, 900, 0, true, 40, 0.3137, false);
    check_setup<double>(s, 900, 0, true, 40, 0.3137, true);
    check_setup<float>(s, 500, 600, false, 7, 0.5, true);
    check_setup<double>(s, 500, 600, false, 7, 0.05, false);
  }
  for (const Setup& s : test::small_rmax_setups()) {
    check_setup<float>(s, 1200, 0, true, 13, 0.41, true);
    check_setup<double>(s, 700, 800, false, 13, 0.41, false);
  }
}

TEST_CASE("r_min 0 is the bins from 0, bit for bit") {
  for (const Setup& s : test::limit_setups()) {
    const HistogramParams<float> from0 = make_params<float>(s.box, s.kind(), s.r_max, 30);
    const HistogramParams<float> given = make_params<float>(s.box, s.kind(), {s.r_max, 30, 0, 0});
    CHECK(from0.lower == 0.0f);
    CHECK(given.lower == 0.0f);
    CHECK(given.limit == from0.limit);
    CHECK(given.scale == from0.scale);
    const Species<float> a(test::cell_points(s.box, 4 * s.r_max, 400, 1));
    CHECK(all_pairs(a, a, true, from0) == all_pairs(a, a, true, given));
  }
}

TEST_CASE("bins from r_min whose edges are those of bins from 0: the same counts there") {
  // r_min a multiple of the width, the scale the same: the bins from r_min are the last ones of
  // the bins from 0, bit for bit (r - lower is exact for a whole lower below 2^24).
  int compared = 0;
  for (const Setup& s : test::limit_setups()) {
    const int nbins = 50, skip = 15;
    const BinRange from0{s.r_max, nbins, 0, 0};
    const BinRange tail{s.r_max, nbins - skip, 0, s.r_max * skip / nbins};
    const HistogramParams<float> p0 = make_params<float>(s.box, s.kind(), from0);
    const HistogramParams<float> p1 = make_params<float>(s.box, s.kind(), tail);
    // The rounding of r_max - r_min can make another scale, or a lower bound off the edge.
    if (p0.scale != p1.scale || p1.lower != float(skip)) continue;
    ++compared;
    const Species<float> a(test::cell_points(s.box, 4 * s.r_max, 700, 1));
    const std::vector<uint64_t> all = all_pairs(a, a, true, p0);
    const std::vector<uint64_t> part = all_pairs(a, a, true, p1);
    CHECK(std::vector<uint64_t>(all.begin() + skip, all.end()) == part);
  }
  CHECK(compared > 0);
}

TEST_CASE("bin_of_distance from r_min: below it and at or beyond the cut-off nbins") {
  CHECK(bin_of_distance(6.2f, 6.25f, 81.25f, 75) == 75);
  CHECK(bin_of_distance(6.25f, 6.25f, 81.25f, 75) == 0);
  CHECK(bin_of_distance(7.3f, 6.25f, 81.25f, 75) == 1);
  CHECK(bin_of_distance(81.2f, 6.25f, 81.25f, 75) == 74);
  CHECK(bin_of_distance(81.25f, 6.25f, 81.25f, 75) == 75);
  CHECK(bin_of_distance(std::nanf(""), 6.25f, 81.25f, 75) == 75);
  CHECK(bin_of_distance(0.0f, 6.25f, 81.25f, 75) == 75);
  // lower 0: the unshifted rule for every r.
  for (float r : {0.0f, 0.5f, 9.999f, 10.0f, 11.0f, 1e30f})
    CHECK(bin_of_distance(r, 0.0f, 9.6f, 10) == bin_of_distance(r, 9.6f, 10));
  // The CPU's squared-distance threshold: the least d2 above the counted ones.
  const float t = cpu::uncounted_from<float>(6.25f, 81.25f, 75);
  CHECK(bin_of(t, 6.25f, 81.25f, 75) == 75);
  CHECK(bin_of(std::nextafter(t, 0.0f), 6.25f, 81.25f, 75) < 75);
  CHECK(cpu::uncounted_from<float>(0.0f, 9.6f, 10) == cpu::uncounted_from<float>(9.6f, 10));
}
