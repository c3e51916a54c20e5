// The plain C kernel API: equal to the reference on random multi-species frames, independent of
// the thread count, and clear errors for bad frames.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "pairhist/pairhist_c.h"
#include "tasks/spatial_order.hpp"
#include "tests/engine_reference.hpp"

using namespace pairhist;

namespace {

/// A ph_frame view of frame t of f (the pointers stay valid while f lives).
struct FrameView {
  std::vector<const void*> coords;
  ph_frame frame{};
  FrameView(const test::RandomFrames& f, size_t t, double r_max, int nbins) {
    for (const auto& s : f.xyz[t]) coords.push_back(s.data());
    frame.n_species = static_cast<int>(f.sizes.size());
    frame.species_sizes = f.sizes.data();
    frame.coordinates = coords.data();
    frame.precision = PH_SINGLE;
    for (int i = 0; i < 9; ++i) frame.box[i] = f.boxes[t][i];
    frame.r_max = r_max;
    frame.n_bins = nbins;
  }
};

std::vector<uint64_t> flatten(const std::vector<std::vector<uint64_t>>& h) {
  std::vector<uint64_t> out;
  for (const auto& v : h) out.insert(out.end(), v.begin(), v.end());
  return out;
}

}  // namespace

TEST_CASE("ph_histograms_cpu equals the reference for any thread count") {
  for (BoxKind kind : {BoxKind::none, BoxKind::orthorhombic, BoxKind::triclinic}) {
    CAPTURE(box_kind_name(kind));
    const auto f = test::make_frames({900, 1, 0, 2500, 40}, 1, kind);
    const EngineConfig config = test::engine_config(f, kind, 300, 1.0, Precision::single);
    const auto expected = flatten(test::reference_histograms<float>(f, config));
    FrameView view(f, 0, 1.0, 300);
    REQUIRE(ph_pair_count(5) == 15);
    for (int threads : {1, 2, 3, 0}) {
      std::vector<uint64_t> got(expected.size(), 0);
      REQUIRE(ph_histograms_cpu(&view.frame, threads, got.data()) == 0);
      REQUIRE(got == expected);
    }
    // Counts are added: a second call doubles them.
    std::vector<uint64_t> twice(expected.size(), 0);
    ph_histograms_cpu(&view.frame, 2, twice.data());
    ph_histograms_cpu(&view.frame, 2, twice.data());
    for (size_t k = 0; k < twice.size(); ++k) REQUIRE(twice[k] == 2 * expected[k]);
  }
}

TEST_CASE("ph_histograms_cpu: every algorithm gives the reference's counts") {
  for (BoxKind kind : {BoxKind::none, BoxKind::orthorhombic, BoxKind::triclinic}) {
    CAPTURE(box_kind_name(kind));
    const auto f = test::make_frames({2000, 1, 0, 3000, 40}, 1, kind);
    const double r_max = 0.45;  // a small part of the 2.0-2.2 boxes: cell lists pay off
    const EngineConfig config = test::engine_config(f, kind, 90, r_max, Precision::single);
    const auto expected = flatten(test::reference_histograms<float>(f, config));
    FrameView view(f, 0, r_max, 90);
    for (ph_algorithm algorithm : {PH_AUTO, PH_ALL_PAIRS, PH_CELL_LIST}) {
      CAPTURE(static_cast<int>(algorithm));
      view.frame.algorithm = algorithm;
      std::vector<uint64_t> got(expected.size(), 0);
      REQUIRE(ph_histograms_cpu(&view.frame, 2, got.data()) == 0);
      REQUIRE(got == expected);
    }
  }
}

TEST_CASE("ph_histograms_cpu in double precision equals the double reference") {
  const auto f = test::make_frames({700, 300}, 1, BoxKind::triclinic);
  const EngineConfig config =
      test::engine_config(f, BoxKind::triclinic, 77, 0.9, Precision::double_);
  const auto expected = flatten(test::reference_histograms<double>(f, config));
  std::vector<std::vector<double>> xyz;
  for (const auto& s : f.xyz[0]) xyz.emplace_back(s.begin(), s.end());
  std::vector<const void*> coords = {xyz[0].data(), xyz[1].data()};
  FrameView view(f, 0, 0.9, 77);
  view.frame.coordinates = coords.data();
  view.frame.precision = PH_DOUBLE;
  std::vector<uint64_t> got(expected.size(), 0);
  REQUIRE(ph_histograms_cpu(&view.frame, 2, got.data()) == 0);
  CHECK(got == expected);
}

TEST_CASE("ph_histograms_cpu: cell list and automatic choice equal all pairs") {
  for (BoxKind kind : {BoxKind::none, BoxKind::orthorhombic, BoxKind::triclinic}) {
    CAPTURE(box_kind_name(kind));
    const auto f = test::make_frames({2500, 1, 0, 900, 40}, 1, kind);
    std::vector<std::vector<double>> xyz;
    for (const auto& s : f.xyz[0]) xyz.emplace_back(s.begin(), s.end());
    std::vector<const void*> doubles;
    for (const auto& s : xyz) doubles.push_back(s.data());
    for (double r_max : {0.25, 1.0}) {
      for (ph_precision precision : {PH_SINGLE, PH_DOUBLE}) {
        CAPTURE(r_max);
        CAPTURE(precision);
        FrameView view(f, 0, r_max, 120);
        if (precision == PH_DOUBLE) view.frame.coordinates = doubles.data();
        view.frame.precision = precision;
        view.frame.algorithm = PH_ALL_PAIRS;
        std::vector<uint64_t> expected(15 * 120, 0);
        REQUIRE(ph_histograms_cpu(&view.frame, 2, expected.data()) == 0);
        // The C API's cells: CellOptions' reach and order (the engine's tests cover the others).
        for (ph_algorithm algorithm : {PH_CELL_LIST, PH_AUTO})
          for (int threads : {1, 3}) {
            CAPTURE(algorithm);
            CAPTURE(threads);
            view.frame.algorithm = algorithm;
            std::vector<uint64_t> got(expected.size(), 0);
            REQUIRE(ph_histograms_cpu(&view.frame, threads, got.data()) == 0);
            REQUIRE(got == expected);
          }
      }
    }
  }
}

TEST_CASE("bad frames are refused with a message") {
  const auto f = test::make_frames({10, 10}, 1, BoxKind::triclinic);
  std::vector<uint64_t> h(3 * 10, 0);
  CHECK(ph_histograms_cpu(nullptr, 1, h.data()) == -1);
  CHECK(std::string(ph_last_error()).find("NULL") != std::string::npos);
  FrameView view(f, 0, 0.5, 10);
  view.frame.r_max = 5.0;  // beyond half the shortest lattice vector (>= 2 nm)
  CHECK(ph_histograms_cpu(&view.frame, 1, h.data()) == -1);
  CHECK(std::string(ph_last_error()).find("minimum-image") != std::string::npos);
  view.frame.r_max = 0.5;
  view.frame.n_bins = 0;
  CHECK(ph_histograms_cpu(&view.frame, 1, h.data()) == -1);
  view.frame.n_bins = 10;
  view.frame.box[1] = 0.3;  // not lower-triangular
  CHECK(ph_histograms_cpu(&view.frame, 1, h.data()) == -1);
  CHECK(std::string(ph_last_error()).find("lower-triangular") != std::string::npos);
  for (uint64_t v : h) CHECK(v == 0);  // nothing written by failed calls
}

TEST_CASE("a NaN or infinite coordinate is refused, naming species and atom") {
  // Before, such an atom was left out of the counts without a word (issue 40).
  for (const float bad : {NAN, INFINITY, -INFINITY}) {
    auto f = test::make_frames({10, 10}, 1, BoxKind::orthorhombic);
    f.xyz[0][1][3 * 7 + 2] = bad;  // species 1, atom 7, z
    std::vector<uint64_t> h(3 * 10, 0);
    FrameView view(f, 0, 0.5, 10);
    for (const ph_algorithm a : {PH_ALL_PAIRS, PH_CELL_LIST, PH_AUTO}) {
      view.frame.algorithm = a;
      CHECK(ph_histograms_cpu(&view.frame, 1, h.data()) == -1);
      CHECK(std::string(ph_last_error()) == "species 1, atom 7 has a non-finite coordinate");
    }
    for (uint64_t v : h) CHECK(v == 0);
  }
}

TEST_CASE("spatial order keeps every point and makes neighbours close") {
  for (int64_t n : {0, 1, 2, 1000, 50000}) {
    CAPTURE(n);
    auto soa = test::to_soa<float>(test::random_points(n, -3.0, 7.0));
    if (n > 2) soa[0] = NAN;  // a bad coordinate must not lose or duplicate its point
    auto sorted = soa;
    sort_spatially(sorted, n);
    auto points = [n](const std::vector<float>& v) {
      std::vector<std::array<uint32_t, 3>> p(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i)
        for (int c = 0; c < 3; ++c)
          std::memcpy(&p[static_cast<size_t>(i)][static_cast<size_t>(c)],
                      &v[static_cast<size_t>(c * n + i)], 4);
      std::sort(p.begin(), p.end());
      return p;
    };
    REQUIRE(points(sorted) == points(soa));
    if (n >= 1000) {
      // Consecutive points of the curve are about one point spacing (10 / n^(1/3)) apart, far
      // closer than random pairs (mean ~5.1 here).
      double sum = 0;
      for (int64_t i = 1; i + 1 < n; ++i) {
        double d2 = 0;
        for (int c = 0; c < 3; ++c) {
          const double d =
              sorted[static_cast<size_t>(c * n + i + 1)] - sorted[static_cast<size_t>(c * n + i)];
          d2 += d * d;
        }
        if (std::isfinite(d2)) sum += std::sqrt(d2);
      }
      CHECK(sum / static_cast<double>(n) < 2.5 * 10.0 / std::cbrt(static_cast<double>(n)));
    }
  }
}
