// LammpsDumpReader against dumps written by a real LAMMPS run (data/fixtures/lmp_*, made by
// scripts/make-reader-fixtures.sh): the dumps under test use LAMMPS's default format, the
// reference is a 12-digit dump of the same steps (*.ref.txt) and LAMMPS's own box values
// (*.box.txt). Truncated and malformed variants are made here.
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

#include "io/trajectory/lammps_dump_reader.hpp"
#include "pairhist/errors.hpp"
#include "tests/test_paths.hpp"
#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using pairhist::InputError;
using pairhist::io::LammpsDumpReader;
using pairhist::io::read_lammps_dump_topology;
using pairhist::io::TrajectoryFrame;

namespace {

using pairhist::test::contains;
using pairhist::test::fixture;
using pairhist::test::input_error_of;
using pairhist::test::read_all;
using pairhist::test::write_all;

struct TempDir : pairhist::test::TempDir {
  TempDir() : pairhist::test::TempDir("lmp") {}
};

std::string read_to_end(const std::string& path, int64_t* frames = nullptr) {
  return pairhist::test::read_to_end_with<LammpsDumpReader>(path, frames);
}

// "frame STEP" then "id x y z" lines (Angstrom, sorted by id), from the fixture script's
// reference dump of the same run.
struct LmpRef {
  int64_t step = 0;
  std::vector<double> xyz;
};

std::vector<LmpRef> read_lmp_reference(const std::string& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  std::vector<LmpRef> frames;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    if (line.rfind("frame", 0) == 0) {
      std::string w;
      frames.emplace_back();
      s >> w >> frames.back().step;
    } else {
      long long id;
      double x, y, z;
      s >> id >> x >> y >> z;
      REQUIRE(!s.fail());
      REQUIRE(static_cast<size_t>(id) == frames.back().xyz.size() / 3 + 1);
      frames.back().xyz.insert(frames.back().xyz.end(), {x, y, z});
    }
  }
  REQUIRE(frames.size() == 3);
  return frames;
}

// Box a, b, c rows in nm from LAMMPS's own xlo xhi ylo yhi zlo zhi xy xz yz.
std::array<double, 9> lmp_box(const std::string& path) {
  std::ifstream in(path);
  std::string word;
  double v[9];
  in >> word;
  for (double& x : v) in >> x;
  REQUIRE(!in.fail());
  return {0.1 * (v[1] - v[0]), 0, 0, 0.1 * v[6], 0.1 * (v[3] - v[2]), 0, 0.1 * v[7], 0.1 * v[8],
          0.1 * (v[5] - v[4])};
}

void check_dump(const std::string& dump, const std::string& kind) {
  CAPTURE(dump);
  const auto ref = read_lmp_reference(fixture("lmp_" + kind + ".ref.txt"));
  const auto box = lmp_box(fixture("lmp_" + kind + ".box.txt"));
  LammpsDumpReader reader(dump);
  CHECK(reader.natoms() == 108);
  TrajectoryFrame frame;
  for (size_t f = 0; f < ref.size(); ++f) {
    CAPTURE(f);
    REQUIRE(reader.next(frame));
    CHECK(frame.step == ref[f].step);
    for (int k = 0; k < 9; ++k) {
      CAPTURE(k);
      CHECK(std::fabs(frame.box[k] - box[k]) <= 1e-6);
    }
    REQUIRE(frame.xyz.size() == ref[f].xyz.size());
    double worst = 0;
    for (size_t i = 0; i < frame.xyz.size(); ++i) {
      worst = std::max(worst, std::fabs(frame.xyz[i] - 0.1 * ref[f].xyz[i]));
    }
    // The dumps under test print 6 significant digits.
    CHECK(worst <= 1e-5);
  }
  CHECK_FALSE(reader.next(frame));
  CHECK(reader.frames_read() == 3);
}

// Line offsets of a text file.
std::vector<size_t> line_starts_of(const std::string& text) {
  std::vector<size_t> starts = {0};
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') starts.push_back(i + 1);
  }
  return starts;
}

}  // namespace

TEST_CASE("LammpsDumpReader matches LAMMPS for orthogonal and triclinic boxes") {
  for (const char* kind : {"ortho", "triclinic"}) {
    check_dump(fixture(std::string("lmp_") + kind + ".lammpstrj"), kind);
    check_dump(fixture(std::string("lmp_") + kind + "_scaled.lammpstrj"), kind);
  }
  // The triclinic fixture must really be tilted, or the tilt conversion is untested.
  const auto box = lmp_box(fixture("lmp_triclinic.box.txt"));
  CHECK(box[3] != 0);
  CHECK(box[6] != 0);
  CHECK(box[7] != 0);
}

TEST_CASE("LammpsDumpReader sorts atoms by id") {
  TempDir tmp;
  const std::string text = read_all(fixture("lmp_triclinic.lammpstrj"));
  const auto starts = line_starts_of(text);
  // 117 lines per frame: 9 header lines and 108 atoms. Reverse the atoms of every frame.
  REQUIRE(starts.size() == 3 * 117 + 1);
  std::string shuffled;
  for (size_t f = 0; f < 3; ++f) {
    const size_t h = f * 117;
    shuffled += text.substr(starts[h], starts[h + 9] - starts[h]);
    for (size_t k = 0; k < 108; ++k) {
      const size_t l = h + 9 + (k * 37) % 108;  // a permutation: gcd(37, 108) = 1
      shuffled += text.substr(starts[l], starts[l + 1] - starts[l]);
    }
  }
  REQUIRE(shuffled != text);
  const std::string path = tmp.file("shuffled.lammpstrj");
  write_all(path, shuffled);
  check_dump(path, "triclinic");
}

TEST_CASE("read_lammps_dump_topology names atoms by type") {
  const auto top = read_lammps_dump_topology(fixture("lmp_ortho.lammpstrj"));
  REQUIRE(top.natoms() == 108);
  std::ifstream in(fixture("lmp_ortho.lammpstrj"));
  std::string line;
  for (int k = 0; k < 9; ++k) std::getline(in, line);
  int type2 = 0;
  for (int k = 0; k < 108; ++k) {
    long long id;
    std::string type;
    in >> id >> type;
    std::getline(in, line);
    REQUIRE(id >= 1);
    REQUIRE(id <= 108);
    CHECK(top.atom_names[static_cast<size_t>(id - 1)] == type);
    type2 += type == "2";
  }
  CHECK(type2 > 0);  // set type/fraction made some type-2 atoms
  CHECK(top.types == top.atom_names);
  CHECK(top.elements.empty());  // a type number is no element
  CHECK(top.residue_names.size() == 108);
  CHECK(top.box[0] == doctest::Approx(1.62));
}

TEST_CASE("truncated LAMMPS dumps report the last complete frame") {
  TempDir tmp;
  const std::string text = read_all(fixture("lmp_ortho.lammpstrj"));
  const auto starts = line_starts_of(text);
  const std::string path = tmp.file("cut.lammpstrj");
  const size_t frame1 = starts[117], frame2 = starts[234];
  for (size_t cut :
       {frame1 + 5, starts[119], starts[122] + 3, starts[126], starts[200] + 4, frame2 - 2}) {
    CAPTURE(cut);
    write_all(path, text.substr(0, cut));
    int64_t frames = 0;
    const std::string msg = read_to_end(path, &frames);
    CHECK(frames == 1);
    CHECK(contains(msg, path + ": frame 1: "));
    CHECK(contains(msg, "(last complete frame is 0)"));
    CHECK(msg.find('\n') == std::string::npos);
  }
  SUBCASE("cut at a frame boundary is a clean end") {
    write_all(path, text.substr(0, frame2));
    int64_t frames = 0;
    CHECK(read_to_end(path, &frames).empty());
    CHECK(frames == 2);
  }
  SUBCASE("cut inside the first frame") {
    write_all(path, text.substr(0, starts[50]));
    CHECK(contains(read_to_end(path), "frame 0: "));
    CHECK(contains(read_to_end(path), "(no complete frame)"));
  }
}

TEST_CASE("LammpsDumpReader rejects malformed input") {
  TempDir tmp;
  const std::string path = tmp.file("bad.lammpstrj");
  const std::string good = read_all(fixture("lmp_ortho.lammpstrj"));
  auto replaced = [&](const std::string& from, const std::string& to, size_t start = 0) {
    std::string t = good;
    const size_t at = t.find(from, start);
    REQUIRE(at != std::string::npos);
    t.replace(at, from.size(), to);
    write_all(path, t);
    return read_to_end(path);
  };
  const std::string header =
      "ITEM: TIMESTEP\n7\nITEM: NUMBER OF ATOMS\n2\nITEM: BOX BOUNDS pp pp pp\n0 10\n0 10\n0 10\n";

  SUBCASE("missing file") {
    const std::string missing = tmp.file("nope.lammpstrj");
    CHECK(contains(input_error_of([&] { LammpsDumpReader r(missing); }), missing));
  }
  SUBCASE("not a dump") {
    write_all(path, read_all(fixture("ase_plain.xyz")));
    CHECK(contains(input_error_of([&] { LammpsDumpReader r(path); }), "not a LAMMPS dump"));
    write_all(path, read_all(fixture("mda_ortho.dcd")));
    CHECK(contains(input_error_of([&] { LammpsDumpReader r(path); }), "LAMMPS"));
    write_all(path, "");
    CHECK(contains(input_error_of([&] { LammpsDumpReader r(path); }), "empty"));
  }
  SUBCASE("mixed boundaries") {
    CHECK(contains(replaced("pp pp pp", "pp pp fm"), "mixed periodic"));
  }
  SUBCASE("no coordinates") {
    CHECK(contains(replaced("id type x y z", "id type vx vy vz"), "no coordinate columns"));
  }
  SUBCASE("atom set changes in frame 2") {
    const std::string msg = replaced("\n1 1 ", "\n999 1 ", good.find("ITEM: TIMESTEP\n50"));
    CHECK(contains(msg, "frame 2:"));
    CHECK(contains(msg, "atom ids differ from the first frame (id 2 where the first frame has 1)"));
    CHECK(contains(msg, "last complete frame is 1)"));
  }
  SUBCASE("duplicate id") {
    CHECK(contains(replaced("\n2 2 ", "\n1 2 "), "appears twice"));
  }
  SUBCASE("bad number") {
    CHECK(contains(replaced("\n1 1 0 0 0\n", "\n1 1 0 0q 0\n"), "bad coordinate '0q'"));
  }
  SUBCASE("non-periodic = no box; units and time") {
    write_all(path,
              "ITEM: TIMESTEP\n7\nITEM: UNITS\nreal\nITEM: TIME\n3.5\n"
              "ITEM: NUMBER OF ATOMS\n2\nITEM: BOX BOUNDS ff ff ff\n0 10\n0 10\n0 10\n"
              "ITEM: ATOMS id type xu yu zu\n2 1 1 2 3\n1 1 4 5 6\n");
    LammpsDumpReader r(path);
    TrajectoryFrame frame;
    REQUIRE(r.next(frame));
    CHECK(frame.step == 7);
    CHECK(frame.time == doctest::Approx(0.0035));
    for (float v : frame.box) CHECK(v == 0);
    CHECK(frame.xyz == std::vector<float>{0.4f, 0.5f, 0.6f, 0.1f, 0.2f, 0.3f});
  }
  SUBCASE("lj units are refused") {
    write_all(path, "ITEM: TIMESTEP\n7\nITEM: UNITS\nlj\n" + header.substr(17) +
                        "ITEM: ATOMS id x y z\n1 1 2 3\n2 4 5 6\n");
    CHECK(contains(read_to_end(path), "units 'lj'"));
  }
  SUBCASE("no newline at the end") {
    write_all(path, header + "ITEM: ATOMS id x y z\n1 1 2 3\n2 4 5 6");
    CHECK(contains(read_to_end(path), "no newline"));
  }
}
