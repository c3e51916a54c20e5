// XyzReader against extended XYZ / XYZ files written by ASE (data/fixtures/ase_*, made by
// scripts/make-reader-fixtures.sh) and the positions and cells ASE reads back from them
// (*.ref.txt, Angstrom), plus truncated and malformed variants made here.
#include <doctest/doctest.h>
#include <stdlib.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "io/trajectory/xyz_reader.hpp"
#include "pairhist/errors.hpp"
#include "tests/test_paths.hpp"
#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using pairhist::InputError;
using pairhist::io::read_xyz_topology;
using pairhist::io::TrajectoryFrame;
using pairhist::io::XyzReader;

namespace {

using pairhist::test::contains;
using pairhist::test::fixture;
using pairhist::test::input_error_of;
using pairhist::test::read_all;
using pairhist::test::read_reference;
using pairhist::test::RefFrame;
using pairhist::test::write_all;

struct TempDir : pairhist::test::TempDir {
  TempDir() : pairhist::test::TempDir("xyz") {}
};

std::string read_to_end(const std::string& path, int64_t* frames = nullptr) {
  return pairhist::test::read_to_end_with<XyzReader>(path, frames);
}

// Converts a reference frame (Angstrom) into nm.
std::vector<double> nm(const std::vector<double>& v) {
  std::vector<double> out(v);
  for (double& x : out) x *= 0.1;
  return out;
}

double dot3(const double* a, const double* b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

}  // namespace

TEST_CASE("XyzReader matches ASE for a lower-triangular extended XYZ and a plain XYZ") {
  for (const char* name : {"ase_triclinic.extxyz", "ase_plain.xyz"}) {
    CAPTURE(name);
    const std::string stem = std::string(name).substr(0, std::string(name).find('.'));
    const auto ref = read_reference(fixture(stem + ".ref.txt"));
    XyzReader reader(fixture(name));
    CHECK(reader.natoms() == 90);
    TrajectoryFrame frame;
    for (size_t f = 0; f < ref.size(); ++f) {
      CAPTURE(f);
      REQUIRE(reader.next(frame));
      CHECK(frame.step == static_cast<int64_t>(f));
      for (int k = 0; k < 9; ++k) {
        CAPTURE(k);
        CHECK(std::fabs(frame.box[k] - ref[f].box[k] * 0.1) <= 1e-6);
      }
      const std::vector<double> want = nm(ref[f].xyz);
      REQUIRE(frame.xyz.size() == want.size());
      double worst = 0;
      for (size_t i = 0; i < want.size(); ++i) {
        worst = std::max(worst, std::fabs(frame.xyz[i] - want[i]));
      }
      CHECK(worst <= 1e-6);
    }
    CHECK_FALSE(reader.next(frame));
    CHECK(reader.frames_read() == static_cast<int64_t>(ref.size()));
  }
  XyzReader plain(fixture("ase_plain.xyz"));
  TrajectoryFrame frame;
  REQUIRE(plain.next(frame));
  for (float v : frame.box) CHECK(v == 0);
}

TEST_CASE("XyzReader rotates a general lattice into GROMACS form, keeping geometry") {
  const auto ref = read_reference(fixture("ase_rotated.ref.txt"));
  XyzReader reader(fixture("ase_rotated.extxyz"));
  TrajectoryFrame frame;
  for (size_t f = 0; f < ref.size(); ++f) {
    CAPTURE(f);
    REQUIRE(reader.next(frame));
    const auto& b = frame.box;
    CHECK(b[1] == 0);
    CHECK(b[2] == 0);
    CHECK(b[5] == 0);
    CHECK(b[0] > 0);
    CHECK(b[4] > 0);
    CHECK(b[8] > 0);
    // The reference lattice really is general, or this case would test nothing.
    CHECK(std::fabs(ref[f].box[1]) > 0.5);
    double got_box[9], ref_box[9];
    for (int k = 0; k < 9; ++k) {
      got_box[k] = b[k];
      ref_box[k] = ref[f].box[k] * 0.1;
    }
    // An orthogonal map keeps every dot product among lattice vectors and positions.
    for (int r = 0; r < 3; ++r) {
      for (int s = 0; s < 3; ++s) {
        CHECK(dot3(got_box + 3 * r, got_box + 3 * s) ==
              doctest::Approx(dot3(ref_box + 3 * r, ref_box + 3 * s)).epsilon(1e-6));
      }
    }
    const std::vector<double> want = nm(ref[f].xyz);
    REQUIRE(frame.xyz.size() == want.size());
    double worst = 0;
    for (size_t i = 0; i < want.size(); i += 3) {
      const double got[3] = {frame.xyz[i], frame.xyz[i + 1], frame.xyz[i + 2]};
      for (int r = 0; r < 3; ++r) {
        worst = std::max(worst,
                         std::fabs(dot3(got, got_box + 3 * r) - dot3(&want[i], ref_box + 3 * r)));
      }
    }
    CHECK(worst <= 2e-6);
  }
  CHECK_FALSE(reader.next(frame));
}

TEST_CASE("read_xyz_topology gives the species as atom names") {
  const auto top = read_xyz_topology(fixture("ase_triclinic.extxyz"));
  std::ifstream in(fixture("ase_triclinic.species.txt"));
  std::vector<std::string> species;
  for (std::string s; in >> s;) species.push_back(s);
  CHECK(top.atom_names == species);
  CHECK(top.elements == species);  // ASE's species column holds chemical symbols
  CHECK(top.types.empty());
  CHECK(top.natoms() == 90);
  CHECK(top.residue_names.size() == 90);
  CHECK(top.residue_numbers.size() == 90);
  CHECK(top.xyz.size() == 270);
  CHECK(top.box[0] == doctest::Approx(1.4));
  CHECK(contains(top.title, "Lattice="));
}

TEST_CASE("truncated XYZ files report the last complete frame") {
  TempDir tmp;
  const std::string text = read_all(fixture("ase_triclinic.extxyz"));
  // Frame k starts at line k * 92 (count, comment, 90 atoms).
  std::vector<size_t> line_starts = {0};
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') line_starts.push_back(i + 1);
  }
  REQUIRE(line_starts.size() == 3 * 92 + 1);
  const std::string path = tmp.file("cut.extxyz");
  const size_t frame1 = line_starts[92], frame2 = line_starts[184];

  for (size_t cut :
       {frame1 + 1, frame1 + 4, line_starts[95], line_starts[150] + 20, frame2 - 3, frame2 - 1}) {
    CAPTURE(cut);
    write_all(path, text.substr(0, cut));
    int64_t frames = 0;
    const std::string msg = read_to_end(path, &frames);
    CHECK(frames == 1);
    CHECK(contains(msg, path + ": frame 1: "));
    CHECK(contains(msg, "(last complete frame is 0)"));
    CHECK(msg.find('\n') == std::string::npos);
  }
  SUBCASE("cut at a frame boundary is a clean end, also with blank lines") {
    write_all(path, text.substr(0, frame2) + "\n\n");
    int64_t frames = 0;
    CHECK(read_to_end(path, &frames).empty());
    CHECK(frames == 2);
  }
}

TEST_CASE("XyzReader rejects malformed input") {
  TempDir tmp;
  const std::string path = tmp.file("bad.xyz");
  const std::string good = read_all(fixture("ase_triclinic.extxyz"));
  auto with_comment = [&](const std::string& comment) {
    const size_t a = good.find('\n') + 1;
    const size_t b = good.find('\n', a);
    std::string text = good;
    text.replace(a, b - a, comment);
    write_all(path, text);
    return read_to_end(path);
  };

  SUBCASE("missing file") {
    const std::string missing = tmp.file("nope.xyz");
    CHECK(contains(input_error_of([&] { XyzReader r(missing); }), missing));
  }
  SUBCASE("binary garbage") {
    write_all(path, read_all(fixture("mda_ortho.dcd")));
    CHECK(contains(input_error_of([&] { XyzReader r(path); }), "not an XYZ"));
  }
  SUBCASE("empty") {
    write_all(path, "");
    CHECK(contains(input_error_of([&] { XyzReader r(path); }), "empty"));
  }
  SUBCASE("bad numbers") {
    std::string text = good;
    text.replace(text.find("O ", 100), 2, "O x");
    write_all(path, text);
    CHECK(contains(read_to_end(path), "frame 0: line 3: bad coordinate"));
  }
  SUBCASE("atom count changes") {
    std::string text = good + "3\n\nH 0 0 0\nH 0 0 1\nH 0 1 0\n";
    write_all(path, text);
    const std::string msg = read_to_end(path);
    CHECK(contains(msg, "frame 3:"));
    CHECK(contains(msg, "atom count 3"));
  }
  SUBCASE("lattice errors") {
    CHECK(contains(with_comment("Lattice=\"1 0 0 0 1 0\" pbc=\"T T T\""), "9 numbers"));
    CHECK(contains(with_comment("Lattice=\"10 0 0 0 10 0 0 0 10\" pbc=\"T T F\""),
                   "partly periodic"));
    CHECK(contains(with_comment("Lattice=\"10 0 0 20 0 0 0 0 10\""), "parallel"));
    CHECK(contains(with_comment("Properties=species:S:1:vel:R:3"), "no pos"));
  }
  SUBCASE("pbc F F F means no box") {
    CHECK(with_comment("Lattice=\"10 0 0 0 10 0 0 0 10\" pbc=\"F F F\"").empty());
    XyzReader r(path);
    TrajectoryFrame frame;
    REQUIRE(r.next(frame));
    for (float v : frame.box) CHECK(v == 0);
  }
  SUBCASE("positions after other columns") {
    std::string text =
        "2\nProperties=species:S:1:mass:R:1:pos:R:3 Lattice=\"10 0 0 0 10 0 0 0 10\"\n"
        "O 16.0 1 2 3\nH 1.0 4 5 6\n";
    write_all(path, text);
    XyzReader r(path);
    TrajectoryFrame frame;
    REQUIRE(r.next(frame));
    CHECK(frame.xyz == std::vector<float>{0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f});
    CHECK(frame.box[8] == doctest::Approx(1.0));
  }
}
