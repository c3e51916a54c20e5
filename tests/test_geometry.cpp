// Geometry: hand-computed minimum images and bins, then random displacements against the
// brute-force lattice search.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "pairhist/box_setup.hpp"
#include "tests/double_reference.hpp"
#include "tests/random_points.hpp"

using namespace pairhist;

TEST_CASE("bin_of: floor of the distance in bin units, nbins itself and NaN are not counted") {
  CHECK(bin_of(16.0, 10) == 4);  // r = 4
  CHECK(bin_of(0.0, 10) == 0);
  CHECK(bin_of(99.0, 10) == 9);    // r = 9.95
  CHECK(bin_of(100.0, 10) == 10);  // r = nbins: outside
  CHECK(bin_of(1e30, 10) == 10);
  CHECK(bin_of(std::nan(""), 10) == 10);
  CHECK(bin_of(std::nanf(""), 10) == 10);
  CHECK(bin_of(9.0f, 10) == 3);  // r = 3 exactly
}

TEST_CASE(
    "squared distances never fall below 2^-100 (the GPU root's range), even for coincident "
    "points") {
  CHECK(norm2(0.0f, 0.0f, 0.0f) == 0x1p-100f);
  CHECK(norm2(-0.0f, 0.0f, -0.0f) == 0x1p-100f);
  CHECK(norm2(1e-30f, -1e-35f, 1e-40f) >= 0x1p-100f);
  CHECK(norm2(0.0, 0.0, 0.0) == 0x1p-100);
  CHECK(norm2(3.0f, 4.0f, 0.0f) == 25.0f);  // far above the floor it changes nothing
  CHECK(bin_of_points<BoxKind::none>(make_params<float>(BoxMatrix{}, BoxKind::none, 1.0, 10), 0.5f,
                                     0.5f, 0.5f, 0.5f, 0.5f, 0.5f) == 0);
}

TEST_CASE("bin_of_points scales coordinates and box to bin units") {
  // 2 bins per unit; a box of length 10 is 20 bins long.
  const BoxMatrix m{10, 0, 0, 0, 10, 0, 0, 0, 10};
  const HistogramParams<double> p = make_params<double>(m, BoxKind::orthorhombic, 5.0, 10);
  CHECK(p.scale == 2.0);
  CHECK(p.box.ax == 20.0);
  CHECK(p.box.inv_ax == 0.05);
  // r = 2 -> 4 bins; r = 1.5 through the boundary (9.0 to 0.5) -> bin 3; r = 4.9 -> bin 9.
  CHECK(bin_of_points<BoxKind::orthorhombic>(p, 1.0, 1.0, 1.0, 3.0, 1.0, 1.0) == 4);
  CHECK(bin_of_points<BoxKind::orthorhombic>(p, 9.0, 0.0, 0.0, 0.5, 0.0, 0.0) == 3);
  CHECK(bin_of_points<BoxKind::orthorhombic>(p, 0.0, 0.0, 0.0, 0.0, 4.9, 0.0) == 9);
  CHECK(bin_of_points<BoxKind::orthorhombic>(p, 0.0, 0.0, 0.0, 0.0, 0.0, 5.0) == 10);
  CHECK(bin_of_points<BoxKind::orthorhombic>(p, 0.0, 0.0, 0.0, 0.0, 0.0, 6.0) == 8);  // image 4
  CHECK(bin_of_points<BoxKind::none>(p, 0.0, 0.0, 0.0, 0.0, 0.0, 6.0) == 10);
}

TEST_CASE("orthorhombic minimum image, hand-computed") {
  const BoxMatrix m{10, 0, 0, 0, 20, 0, 0, 0, 30};
  REQUIRE(classify_box(m) == BoxKind::orthorhombic);
  const Box<double> box = make_box<double>(m, BoxKind::orthorhombic, max_minimum_image_rmax(m));
  CHECK(distance2<BoxKind::orthorhombic>(box, 9.0, 0.0, 0.0) == doctest::Approx(1.0));
  CHECK(distance2<BoxKind::orthorhombic>(box, -9.0, 19.0, 29.0) == doctest::Approx(3.0));
  CHECK(distance2<BoxKind::orthorhombic>(box, 31.0, -41.0, 61.0) == doctest::Approx(3.0));
  CHECK(distance2<BoxKind::orthorhombic>(box, 3.0, 4.0, 0.0) == doctest::Approx(25.0));
  CHECK(max_minimum_image_rmax(m) == doctest::Approx(5.0));
}

TEST_CASE("rhombic dodecahedron: lattice vectors vanish, inradius is 0.5") {
  const BoxMatrix m = test::rhombic_dodecahedron();
  REQUIRE(classify_box(m) == BoxKind::triclinic);
  CHECK(box_problem(m).empty());
  CHECK(shortest_lattice_vector(m) == doctest::Approx(1.0).epsilon(1e-7));
  CHECK(max_minimum_image_rmax(m) == doctest::Approx(0.5).epsilon(1e-7));
  const Box<double> box = make_box<double>(m, BoxKind::triclinic, max_minimum_image_rmax(m));
  CHECK(distance2<BoxKind::triclinic>(box, 0.5, 0.5, 0.70710678) == doctest::Approx(0.0));
  CHECK(distance2<BoxKind::triclinic>(box, 1.5, -0.5, 0.70710678) == doctest::Approx(0.0));
  // (0.5, 0.5, 0.7) is c minus 0.00710678 in z.
  CHECK(std::sqrt(distance2<BoxKind::triclinic>(box, 0.5, 0.5, 0.7)) ==
        doctest::Approx(0.00710678).epsilon(1e-6));
  // (0.5, 0.5, 0) has four images at the same distance sqrt(0.5) in the plane; c - it is
  // (0, 0, 0.707) of the same length: the minimum is sqrt(0.5).
  CHECK(std::sqrt(distance2<BoxKind::triclinic>(box, 0.5, 0.5, 0.0)) ==
        doctest::Approx(std::sqrt(0.5)).epsilon(1e-7));
}

TEST_CASE("box checks: zero box is none, upper-triangular entries and bad diagonals refused") {
  CHECK(classify_box(BoxMatrix{}) == BoxKind::none);
  CHECK(box_problem(BoxMatrix{}).empty());
  CHECK_FALSE(box_problem(BoxMatrix{1, 0.1, 0, 0, 1, 0, 0, 0, 1}).empty());
  CHECK_FALSE(box_problem(BoxMatrix{1, 0, 0, 0, 0, 0, 0, 0, 1}).empty());
  CHECK_FALSE(box_problem(BoxMatrix{1, 0, 0, 0, NAN, 0, 0, 0, 1}).empty());
}

template <BoxKind K>
void check_random_displacements(const BoxMatrix& m, int samples) {
  const Box<double> box = make_box<double>(m, K, max_minimum_image_rmax(m));
  const double limit = max_minimum_image_rmax(m);
  const double span = 3 * std::fmax(m[0], std::fmax(m[4], m[8]));
  int checked = 0;
  for (int s = 0; s < samples; ++s) {
    const auto p = test::random_points(2, -span, span);
    const double ref = test::reference_distance(m, &p[0], &p[3]);
    const double got = std::sqrt(distance2<K>(box, p[3] - p[0], p[4] - p[1], p[5] - p[2]));
    if (ref < limit) {
      // Exact for every pair the histogram can count.
      REQUIRE(got == doctest::Approx(ref).epsilon(1e-12));
      ++checked;
    } else {
      CHECK(got >= ref * (1 - 1e-12));  // never shorter than the true minimum image
    }
  }
  CHECK(checked > 0);
}

TEST_CASE("minimum image agrees with a brute-force lattice search on random boxes") {
  for (int trial = 0; trial < 20; ++trial) {
    check_random_displacements<BoxKind::orthorhombic>(test::random_orthorhombic(0.5, 3.0), 2000);
    check_random_displacements<BoxKind::triclinic>(test::random_triclinic(0.8, 2.0), 2000);
  }
  check_random_displacements<BoxKind::triclinic>(test::rhombic_dodecahedron(), 20000);
}

TEST_CASE("strongly skewed cells: same lattice written with long, slanted vectors stays exact") {
  std::uniform_int_distribution<int> shear(-2, 2);
  int tested = 0, refused = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const BoxMatrix r = test::random_triclinic(0.8, 2.0);
    // b' = b + p a, c' = c + q b + s a: a unimodular change of basis, the lattice is unchanged.
    const int p = shear(test::rng()), q = shear(test::rng()), s = shear(test::rng());
    BoxMatrix m = r;
    m[3] = r[3] + p * r[0];
    m[6] = r[6] + q * r[3] + s * r[0];
    m[7] = r[7] + q * r[4];
    const double limit = max_minimum_image_rmax(r);
    CHECK(max_minimum_image_rmax(m) == doctest::Approx(limit));
    if (triclinic_search_size(m, limit) > static_cast<size_t>(kMaxOctantImages)) {
      CHECK_THROWS_AS(make_box<double>(m, BoxKind::triclinic, limit), std::invalid_argument);
      ++refused;
      continue;
    }
    const Box<double> box = make_box<double>(m, BoxKind::triclinic, limit);
    for (int k = 0; k < 500; ++k) {
      const auto pts = test::random_points(2, -6.0, 6.0);
      const double ref = test::reference_distance(r, &pts[0], &pts[3]);
      if (ref >= limit) continue;
      const double got = std::sqrt(
          distance2<BoxKind::triclinic>(box, pts[3] - pts[0], pts[4] - pts[1], pts[5] - pts[2]));
      REQUIRE(got == doctest::Approx(ref).epsilon(1e-12));
      ++tested;
    }
  }
  MESSAGE("skewed cells: " << tested << " pairs checked, " << refused << " cells refused");
  CHECK(tested > 1000);
}

TEST_CASE("the rhombic dodecahedron at its inradius searches one translation per octant") {
  CHECK(triclinic_images(test::rhombic_dodecahedron(), 0.5).size() == 8);
  const auto lists = triclinic_octant_images(test::rhombic_dodecahedron(), 0.5);
  for (const auto& list : lists) CHECK(list.size() == 1);
  CHECK(make_box<float>(test::rhombic_dodecahedron(), BoxKind::triclinic, 0.5).octant_images == 1);
}

TEST_CASE("octant lists: every translation that beats a reduced vector below r_max is listed") {
  // Brute force over reduced displacements of random skewed cells: whenever some lattice vector
  // brings d below r_max and below |d|, it is in d's octant list.
  int checked = 0;
  for (int cell = 0; cell < 31; ++cell) {
    const BoxMatrix m = cell == 0 ? test::rhombic_dodecahedron() : test::random_triclinic(0.8, 2.0);
    const double r_max = max_minimum_image_rmax(m);
    const auto all = triclinic_images(m, r_max);
    const auto lists = triclinic_octant_images(m, r_max);
    const Box<double> box = make_box<double>(m, BoxKind::triclinic, r_max);
    for (int k = 0; k < 5000; ++k) {
      const auto pts = test::random_points(2, -3.0, 3.0);
      double dx = pts[3] - pts[0], dy = pts[4] - pts[1], dz = pts[5] - pts[2];
      reduce_triclinic(box, dx, dy, dz);
      const int o = octant_of(dx, dy, dz);
      const double d2 = dx * dx + dy * dy + dz * dz;
      for (const auto& l : all) {
        const double x = dx + l[0], y = dy + l[1], z = dz + l[2];
        const double s2 = x * x + y * y + z * z;
        if (s2 < r_max * r_max * (1 - 1e-9) && s2 < d2) {
          const auto& list = lists[static_cast<size_t>(o)];
          CHECK(std::find(list.begin(), list.end(), l) != list.end());
          ++checked;
        }
      }
    }
  }
  MESSAGE(checked << " beating translations checked");
  CHECK(checked > 100);
}
