// DCD unit cells in every convention CHARMM and NAMD write, against the dimensions MDAnalysis's
// own tests expect of the real files (testsuite/MDAnalysisTests/coordinates/test_dcd.py:
// RefCHARMMtriclinicDCD, RefNAMDtriclinicDCD), and the same cell rewritten in each convention.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "io/trajectory/dcd_reader.hpp"
#include "io/trajectory/unit_cell.hpp"
#include "pairhist/errors.hpp"
#include "tests/double_reference.hpp"
#include "tests/test_support.hpp"

namespace {

using pairhist::io::DcdReader;
using pairhist::io::TrajectoryFrame;
using pairhist::test::fixture;

// A, B, C (Angstrom), alpha, beta, gamma (degrees) per frame, as test_dcd.py lists them.
const double kCharmmTriclinic[10][6] = {
    {35.44604, 35.06156, 34.1585, 91.32802, 61.73521, 44.40703},
    {34.65957, 34.22689, 33.09897, 90.56206, 61.79192, 44.14549},
    {34.52772, 34.66422, 33.53881, 90.55859, 63.11228, 40.14044},
    {34.43749, 33.38432, 34.02133, 88.82457, 64.98057, 36.77397},
    {33.73129, 32.47752, 34.18961, 89.88102, 65.89032, 36.10921},
    {33.78703, 31.90317, 34.98833, 90.03092, 66.12877, 35.07141},
    {33.24708, 31.18271, 34.9654, 93.11122, 68.17743, 35.73643},
    {32.92599, 30.31393, 34.99197, 93.89051, 69.3799, 33.48945},
    {32.15295, 30.43056, 34.96157, 96.01416, 71.50115, 32.56111},
    {31.99748, 30.21518, 35.24292, 95.85821, 71.08429, 31.85939}};
const double kNamdTriclinic[6] = {38.426594, 38.393101, 44.759800, 90.0, 90.0, 60.028915};

// The frame's cell as lengths (Angstrom) and angles, from the reader's box (nm).
std::array<double, 6> cell_of(const TrajectoryFrame& frame) {
  std::array<double, 9> box;
  for (int k = 0; k < 9; ++k) box[static_cast<size_t>(k)] = 10.0 * frame.box[k];
  return pairhist::io::cell_from_box(box);
}

// assert_array_almost_equal(decimal=4) with the float32 box's rounding on top.
void check_cell(const std::array<double, 6>& got, const double* expected) {
  for (int k = 0; k < 6; ++k) {
    CAPTURE(k);
    CHECK(std::fabs(got[static_cast<size_t>(k)] - expected[k]) < 3e-4);
  }
}

// Offset of frame 0's unit cell values in the tip125 file: 92-byte control record, title record
// (4 + 4 + 80 * ntitle + 4), atom count record (12), then the cell record's leading marker.
size_t first_cell_offset(const std::string& bytes) {
  int32_t title = 0;
  std::memcpy(&title, bytes.data() + 92, 4);
  return 92 + 4 + static_cast<size_t>(title) + 4 + 12 + 4;
}

std::string with_first_cell(const std::string& bytes, const std::array<double, 6>& w) {
  std::string out = bytes;
  std::memcpy(out.data() + first_cell_offset(bytes), w.data(), 48);
  return out;
}

}  // namespace

TEST_CASE("DCD cells: CHARMM c36's shape matrix and NAMD's cosines give MDAnalysis's dimensions") {
  DcdReader charmm(fixture("charmm/tip125_tric_C36.dcd"));
  REQUIRE(charmm.natoms() == 375);
  TrajectoryFrame frame;
  int frames = 0;
  while (charmm.next(frame)) {
    CAPTURE(frames);
    REQUIRE(frames < 10);
    check_cell(cell_of(frame), kCharmmTriclinic[frames]);
    ++frames;
  }
  CHECK(frames == 10);

  DcdReader namd(fixture("charmm/SiN_tric_namd.dcd"));
  REQUIRE(namd.next(frame));
  check_cell(cell_of(frame), kNamdTriclinic);
  CHECK(!namd.next(frame));

  // NAMD's orthorhombic water box (cosines 0): exactly 90 degrees, no tilt.
  DcdReader water(fixture("charmm/watdyn.dcd"));
  REQUIRE(water.next(frame));
  CHECK(frame.box[0] == doctest::Approx(5.0));
  CHECK(frame.box[4] == doctest::Approx(5.0));
  CHECK(frame.box[8] == doctest::Approx(5.0));
  CHECK(frame.box[3] == 0.0f);
  CHECK(frame.box[6] == 0.0f);
  CHECK(frame.box[7] == 0.0f);
}

TEST_CASE("DCD cells: one cell in degrees, cosines and the shape matrix reads the same") {
  const std::string original = pairhist::test::read_all(fixture("charmm/tip125_tric_C36.dcd"));
  const double* e = kCharmmTriclinic[0];
  const double kPi = 3.14159265358979323846;
  auto cosd = [&](double deg) { return std::cos(deg * kPi / 180); };
  pairhist::test::TempDir dir("dcd-cells");
  const std::string path = dir.file("cell.dcd");
  auto first_cell = [&](const std::array<double, 6>& w) {
    pairhist::test::write_all(path, with_first_cell(original, w));
    DcdReader r(path);
    TrajectoryFrame frame;
    REQUIRE(r.next(frame));
    return frame;
  };
  // The slots are A, gamma, B, beta, alpha, C.
  check_cell(cell_of(first_cell({e[0], e[5], e[1], e[4], e[3], e[2]})), e);  // degrees
  check_cell(cell_of(first_cell({e[0], cosd(e[5]), e[1], cosd(e[4]), cosd(e[3]), e[2]})), e);

  // Shape matrices, with their rows' lengths and angles computed here: one whose off-diagonals
  // are all positive, as degrees (12, 3, 4) no cell (3 + 4 < 12), so the matrix; one with a
  // negative off-diagonal, which as degrees (10, 8, -5) would be a needle-thin cell.
  for (const auto& h : {std::array<double, 9>{30, 12, 3, 12, 31, 4, 3, 4, 32},
                        std::array<double, 9>{30, 10, 8, 10, 31, -5, 8, -5, 32}}) {
    auto len = [&](int u) {
      return std::sqrt(h[3 * u] * h[3 * u] + h[3 * u + 1] * h[3 * u + 1] +
                       h[3 * u + 2] * h[3 * u + 2]);
    };
    auto angle = [&](int u, int v) {
      return std::acos(
                 (h[3 * u] * h[3 * v] + h[3 * u + 1] * h[3 * v + 1] + h[3 * u + 2] * h[3 * v + 2]) /
                 (len(u) * len(v))) *
             180 / kPi;
    };
    const double matrix_cell[6] = {len(0), len(1), len(2), angle(1, 2), angle(0, 2), angle(0, 1)};
    CAPTURE(h[1]);
    check_cell(cell_of(first_cell({h[0], h[3], h[4], h[6], h[7], h[8]})), matrix_cell);
  }

  // All zero: no box.
  const TrajectoryFrame none = first_cell({0, 0, 0, 0, 0, 0});
  for (float v : none.box) CHECK(v == 0.0f);

  // No reading forms a cell (a slot above 180: the shape matrix, whose first two rows are equal):
  // one line naming the frame.
  pairhist::test::write_all(path, with_first_cell(original, {200, 200, 200, 0, 0, 10}));
  const std::string why = pairhist::test::input_error_of([&] {
    DcdReader r(path);
    TrajectoryFrame frame;
    r.next(frame);
  });
  CHECK(pairhist::test::contains(why, path + ": frame 0: degenerate unit cell"));
}

TEST_CASE("DCD cells: CHARMM's shape matrix is the lattice of the coordinates (rotated with it)") {
  // Rotated into the lower-triangular box's frame, every O-H pair of the 125 TIP3P waters is at
  // least the 0.9572 A bond apart in every frame. Lengths and angles alone, put along GROMACS's
  // axes as MDAnalysis does, give O-H pairs at 0.40-0.51 A in frames 7-9.
  DcdReader reader(fixture("charmm/tip125_tric_C36.dcd"));
  TrajectoryFrame frame;
  int frames = 0;
  double nearest = 1e9;
  while (reader.next(frame)) {
    pairhist::BoxMatrix box;
    for (int k = 0; k < 9; ++k) box[k] = frame.box[k];
    REQUIRE(pairhist::classify_box(box) == pairhist::BoxKind::triclinic);
    for (size_t o = 0; o < 375; o += 3)
      for (size_t h = 0; h < 375; ++h) {
        if (h % 3 == 0) continue;
        double p[3], q[3];
        for (size_t d = 0; d < 3; ++d) p[d] = frame.xyz[3 * o + d], q[d] = frame.xyz[3 * h + d];
        const double r = pairhist::test::reference_distance(box, p, q);
        nearest = std::min(nearest, r);
        if (h / 3 == o / 3) CHECK(std::fabs(r - 0.09572) < 1e-5);  // its own water, whole
      }
    ++frames;
  }
  CHECK(frames == 10);
  CHECK(nearest > 0.0957);
}
