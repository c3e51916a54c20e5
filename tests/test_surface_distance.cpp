// The surface distances of gmx rdf -surf (analysis/surface_distance.hpp) against a brute-force
// double-precision reference: every group's atoms searched directly, every lattice image.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>

#include "analysis/surface_distance.hpp"
#include "tests/double_reference.hpp"
#include "tests/random_points.hpp"

namespace {

using pairhist::BoxKind;
using pairhist::BoxMatrix;
using pairhist::analysis::SurfaceDistances;
namespace test = pairhist::test;

struct Frame {
  std::vector<float> xyz;
  std::vector<int> ref, group, sel;
  int groups = 0;
};

/// `nref` reference atoms in runs of 1..6 per group (gmx's molecules, residues), spread over
/// [lo, hi)^3 in clumps, then `nsel` positions of which some sit on reference atoms (distance 0)
/// and some on their periodic images.
Frame random_frame(const BoxMatrix& box, int nref, int nsel, double lo, double hi) {
  Frame f;
  auto& rng = test::rng();
  std::uniform_int_distribution<int> run(1, 6);
  std::uniform_real_distribution<double> jitter(-0.15, 0.15), pick(0, 1);
  const std::vector<double> centres = test::random_points(nref, lo, hi);
  int in_group = 0;
  for (int k = 0; k < nref; ++k) {
    if (in_group == 0) in_group = run(rng), ++f.groups;
    --in_group;
    f.ref.push_back(k);
    f.group.push_back(f.groups - 1);
    const size_t c = 3 * static_cast<size_t>(k - k % 3);  // groups' atoms near each other
    for (int d = 0; d < 3; ++d)
      f.xyz.push_back(static_cast<float>(centres[c + static_cast<size_t>(d)] + jitter(rng)));
  }
  const std::vector<double> points = test::random_points(nsel, lo, hi);
  std::uniform_int_distribution<int> any_ref(0, nref - 1), shift(-1, 1);
  for (int i = 0; i < nsel; ++i) {
    f.sel.push_back(static_cast<int>(f.xyz.size() / 3));
    const double u = pick(rng);
    if (u < 0.05) {  // on a reference atom
      const int r = any_ref(rng);
      for (int d = 0; d < 3; ++d) f.xyz.push_back(f.xyz[3 * static_cast<size_t>(r) + d]);
    } else if (u < 0.1 &&
               pairhist::classify_box(box) != BoxKind::none) {  // near one, an image away
      const int r = any_ref(rng);
      const int s[3] = {shift(rng), shift(rng), shift(rng)};
      for (int d = 0; d < 3; ++d) {
        double v = f.xyz[3 * static_cast<size_t>(r) + d] + 0.3 * jitter(rng);
        for (int v3 = 0; v3 < 3; ++v3) v += s[v3] * box[static_cast<size_t>(3 * v3 + d)];
        f.xyz.push_back(static_cast<float>(v));
      }
    } else {
      for (int d = 0; d < 3; ++d)
        f.xyz.push_back(static_cast<float>(points[3 * static_cast<size_t>(i) + d]));
    }
  }
  return f;
}

/// Checks every position's nearest bins against the double reference (a bin may differ only
/// where the exact distance lies within rounding of a bin edge) and count() against nearest().
void check(const char* name, const BoxMatrix& box, const Frame& f, double r_max, int nbins) {
  CAPTURE(name);
  CAPTURE(r_max);
  CAPTURE(nbins);
  std::vector<int> all = f.ref;
  all.insert(all.end(), f.sel.begin(), f.sel.end());
  const double max_abs = pairhist::analysis::largest_coordinate(f.xyz.data(), all);
  const SurfaceDistances s(f.xyz.data(), f.ref, f.group, f.groups, box, r_max, nbins, 0.0, max_abs);
  const double tolerance = 16 * std::numeric_limits<float>::epsilon() * max_abs * nbins / r_max;
  SurfaceDistances::Scratch scratch = s.scratch();
  std::vector<SurfaceDistances::Hit> hits;
  std::vector<uint64_t> expected(static_cast<size_t>(nbins), 0);
  const int first_bin = nbins / 4;
  uint64_t found = 0, off_edge = 0, at_zero = 0;
  for (int i : f.sel) {
    const float* p = &f.xyz[3 * static_cast<size_t>(i)];
    s.nearest(p, scratch, hits);
    std::map<int, int> got;
    for (const auto& h : hits) {
      CHECK(got.count(h.group) == 0);  // one per group
      got[h.group] = h.bin;
      if (h.bin >= first_bin) ++expected[static_cast<size_t>(h.bin)];
    }
    const double pd[3] = {p[0], p[1], p[2]};
    std::vector<double> nearest(static_cast<size_t>(f.groups), INFINITY);
    for (size_t k = 0; k < f.ref.size(); ++k) {
      const float* q = &f.xyz[3 * static_cast<size_t>(f.ref[k])];
      const double qd[3] = {q[0], q[1], q[2]};
      double& best = nearest[static_cast<size_t>(f.group[k])];
      best = std::min(best, test::reference_distance(box, qd, pd));
    }
    for (int g = 0; g < f.groups; ++g) {
      const double r = nearest[static_cast<size_t>(g)];
      const double x = r * nbins / r_max;
      const int exact = x < nbins ? static_cast<int>(x) : nbins;
      const auto it = got.find(g);
      const int bin = it == got.end() ? nbins : it->second;
      if (r == 0) {  // the position is the atom: not counted, whatever the roundings
        ++at_zero;
        CHECK(bin == nbins);
        continue;
      }
      found += bin < nbins;
      if (bin != exact) {
        ++off_edge;
        INFO("position " << i << " group " << g << " exact " << x << " got " << bin);
        REQUIRE(std::fabs(x - std::round(x)) <= tolerance);
      }
    }
  }
  MESSAGE(std::string(name) << ": " << found << " nearest distances counted, " << at_zero
                            << " at distance 0, " << off_edge << " rounded across a bin edge");
  CHECK(found > 0);
  std::vector<uint64_t> counts(static_cast<size_t>(nbins), 0);
  s.count(f.xyz.data(), f.sel, first_bin, counts.data());
  CHECK(counts == expected);
}

}  // namespace

TEST_CASE("surface distances: nearest atom of each group against brute force, every box kind") {
  std::uniform_int_distribution<int> bins(20, 400);
  auto& rng = test::rng();
  for (int round = 0; round < 3; ++round) {
    {
      const BoxMatrix box{};
      const Frame f = random_frame(box, 400, 300, -2, 3);
      check("no box", box, f, 1.0 + round, bins(rng));
    }
    {
      const BoxMatrix box = test::random_orthorhombic(2.5, 4);
      const Frame f = random_frame(box, 500, 300, -1, 5);  // also outside the unit cell
      check("orthorhombic", box, f, 0.98 * pairhist::max_minimum_image_rmax(box), bins(rng));
      check("orthorhombic, short r_max", box, f, 0.4, bins(rng));
    }
    {
      const BoxMatrix box = test::random_triclinic(2.5, 4);
      const Frame f = random_frame(box, 500, 300, -1, 5);
      check("triclinic", box, f, 0.98 * pairhist::max_minimum_image_rmax(box), bins(rng));
      check("triclinic, short r_max", box, f, 0.5, bins(rng));
    }
    {
      const BoxMatrix box = pairhist::rhombic_dodecahedron(3.1);
      const Frame f = random_frame(box, 600, 300, -1, 4);
      check("rhombic dodecahedron", box, f, 0.98 * pairhist::max_minimum_image_rmax(box),
            bins(rng));
    }
  }
}

TEST_CASE("surface distances: count() splits many positions among threads, same counts") {
  const BoxMatrix box = test::random_orthorhombic(4, 5);
  const Frame f = random_frame(box, 2000, 9000, 0, 5);
  check("many positions", box, f, 1.2, 300);
}

TEST_CASE("surface distances: non-finite coordinates are refused, an empty reference counts 0") {
  std::vector<float> xyz = {0, 0, 0, 1, NAN, 0};
  CHECK_THROWS_AS(pairhist::analysis::largest_coordinate(xyz.data(), {0, 1}), std::domain_error);
  const SurfaceDistances empty(xyz.data(), {}, {}, 0, BoxMatrix{}, 1.0, 10, 0.0, 1.0);
  std::vector<uint64_t> counts(10, 0);
  empty.count(xyz.data(), {0}, 0, counts.data());
  CHECK(counts == std::vector<uint64_t>(10, 0));
}
