// read_gro on the bundled sample (cross-checked against the XTC written from it) and on small
// hand-written files, well-formed and malformed.
#include <doctest/doctest.h>
#include <stdlib.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "io/topology/gro_reader.hpp"
#include "io/xtc/xtc_reader.hpp"
#include "pairhist/errors.hpp"
#include "tests/test_paths.hpp"
#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using pairhist::InputError;
using pairhist::analysis::Topology;
using pairhist::io::read_gro;

using pairhist::test::contains;

namespace {

const std::string kDataDir = pairhist::test::data_dir();

/// A fresh, uniquely named directory holding one file at a time, removed afterwards.
struct TempGro : pairhist::test::TempDir {
  TempGro() : TempDir("gro") {}
  std::string write(const std::string& text) const {
    const std::string path = file("test.gro");
    std::ofstream out(path, std::ios::binary);
    out << text;
    REQUIRE(out.good());
    return path;
  }
};

std::string error_of(const std::string& path) {
  return pairhist::test::input_error_of([&] { read_gro(path); });
}

// Three SPC/E-like atoms in the default %8.3f layout.
const std::string kTitle = "two waters, t= 0.0\n";
const std::string kAtom1 = "    1SOL     OW    1   0.126   1.624   1.679\n";
const std::string kAtom2 = "    1SOL    HW1    2   0.190   1.661   1.747\n";
const std::string kAtom3 = "    2SOL    HW2    3  -0.177   1.568   1.613\n";
const std::string kBox = "   1.86206   1.86206   1.86206\n";

}  // namespace

TEST_CASE("read_gro reads the sample topology consistently with the sample trajectory") {
  const Topology top = read_gro(kDataDir + "/spce_water.gro");
  pairhist::io::XtcReader xtc(kDataDir + "/spce_water.xtc");
  REQUIRE(top.natoms() == xtc.natoms());
  REQUIRE(top.natoms() % 3 == 0);
  REQUIRE(top.residue_names.size() == static_cast<size_t>(top.natoms()));
  REQUIRE(top.residue_numbers.size() == static_cast<size_t>(top.natoms()));
  REQUIRE(top.xyz.size() == 3 * static_cast<size_t>(top.natoms()));
  CHECK(!top.title.empty());

  int pattern_errors = 0;
  for (int i = 0; i < top.natoms(); ++i) {
    static const char* const kNames[3] = {"OW", "HW1", "HW2"};
    if (top.residue_names[i] != "SOL" || top.atom_names[i] != kNames[i % 3] ||
        top.residue_numbers[i] != (i / 3 + 1) % 100000) {
      if (pattern_errors++ < 5) {
        MESSAGE("atom " << i << ": " << top.residue_numbers[i] << " '" << top.residue_names[i]
                        << "' '" << top.atom_names[i] << "'");
      }
    }
  }
  CHECK(pattern_errors == 0);

  // The trajectory starts from this structure and box (its first frame may differ by the XTC
  // rounding and by the initial constraint step, both far below 0.01 nm).
  pairhist::io::TrajectoryFrame frame;
  REQUIRE(xtc.next(frame));
  for (size_t k = 0; k < 9; ++k) CHECK(top.box[k] == doctest::Approx(frame.box[k]).epsilon(1e-5));
  CHECK(top.box[0] > 0);
  CHECK(top.box[1] == 0);
  double worst = 0;
  for (size_t k = 0; k < top.xyz.size(); ++k) {
    worst = std::max(worst, std::fabs(double{top.xyz[k]} - frame.xyz[k]));
  }
  CHECK(worst < 0.01);
}

TEST_CASE("read_gro parses fields, CRLF, variable precision and triclinic boxes") {
  TempGro tmp;
  SUBCASE("default layout") {
    const Topology top = read_gro(tmp.write(kTitle + "    3\n" + kAtom1 + kAtom2 + kAtom3 + kBox));
    CHECK(top.title == "two waters, t= 0.0");
    REQUIRE(top.natoms() == 3);
    CHECK(top.atom_names[1] == "HW1");
    CHECK(top.residue_names[2] == "SOL");
    CHECK(top.residue_numbers[2] == 2);
    CHECK(top.xyz[6] == -0.177f);
    CHECK(top.xyz[8] == 1.613f);
    CHECK(top.box == std::array<float, 9>{1.86206f, 0, 0, 0, 1.86206f, 0, 0, 0, 1.86206f});
  }
  SUBCASE("CRLF line ends") {
    std::string text = kTitle + "    3\n" + kAtom1 + kAtom2 + kAtom3 + kBox;
    std::string crlf;
    for (char c : text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
    const Topology top = read_gro(tmp.write(crlf));
    REQUIRE(top.natoms() == 3);
    CHECK(top.atom_names[2] == "HW2");
    CHECK(top.xyz[8] == 1.613f);
    CHECK(top.box[8] == 1.86206f);
  }
  SUBCASE("five decimals with velocities") {
    const std::string text =
        kTitle + "2\n" +
        "    1SOL     OW    1   0.12345   1.62401  -1.67900 0.123456 -0.5000000 "
        "1.0000000\n"
        "    1SOL    HW1    2  10.19000   1.66100   1.74700\n" +
        kBox;
    const Topology top = read_gro(tmp.write(text));
    REQUIRE(top.natoms() == 2);
    CHECK(top.xyz[0] == 0.12345f);
    CHECK(top.xyz[2] == -1.679f);
    CHECK(top.xyz[3] == 10.19f);
  }
  SUBCASE("triclinic box: v1x v2y v3z v1y v1z v2x v2z v3x v3y") {
    const Topology top =
        read_gro(tmp.write(kTitle + "1\n" + kAtom1 + " 3 4 5 0.1 0.2 0.3 0.4 0.5 0.6\n"));
    CHECK(top.box == std::array<float, 9>{3, 0.1f, 0.2f, 0.3f, 4, 0.4f, 0.5f, 0.6f, 5});
  }
  SUBCASE("further frames after the box are ignored") {
    const std::string frame = kTitle + "1\n" + kAtom1 + kBox;
    CHECK(read_gro(tmp.write(frame + frame)).natoms() == 1);
  }
}

TEST_CASE("malformed GRO files give InputError with the line number") {
  TempGro tmp;
  SUBCASE("missing file") {
    const std::string missing = (tmp.dir / "none.gro").string();
    CHECK(contains(error_of(missing), missing));
  }
  SUBCASE("empty file") {
    CHECK(contains(error_of(tmp.write("")), "line 1: empty"));
  }
  SUBCASE("non-numeric atom count") {
    CHECK(contains(error_of(tmp.write(kTitle + "three\n" + kAtom1)), "line 2: bad atom count"));
  }
  SUBCASE("short atom line") {
    const std::string path =
        tmp.write(kTitle + "    3\n" + kAtom1 + kAtom2.substr(0, 30) + "\n" + kAtom3 + kBox);
    const std::string msg = error_of(path);
    CHECK(contains(msg, path + ": line 4: "));
    CHECK(contains(msg, "too short"));
  }
  SUBCASE("short atom line where the layout's line end falls on the next line's end") {
    // Line 4 ends after 20 characters; line 5 is 23 long, so its newline sits exactly where a
    // whole line 4 would end (the reader's fast path must not join the two lines).
    const std::string line4 = kAtom2.substr(0, 20) + "\n";
    const std::string line5 = kAtom3.substr(0, 23) + "\n";
    REQUIRE(line4.size() + line5.size() - 1 == kAtom1.size() - 1);
    const std::string msg = error_of(tmp.write(kTitle + "    3\n" + kAtom1 + line4 + line5 + kBox));
    CHECK(contains(msg, ": line 4: atom line too short (20 characters"));
  }
  SUBCASE("bad coordinate") {
    std::string bad = kAtom3;
    bad.replace(33, 1, "x");  // inside the y field
    const std::string msg = error_of(tmp.write(kTitle + "    3\n" + kAtom1 + kAtom2 + bad + kBox));
    CHECK(contains(msg, "line 5: bad y coordinate"));
  }
  SUBCASE("bad residue number") {
    std::string bad = kAtom2;
    bad[3] = 'Q';
    CHECK(contains(error_of(tmp.write(kTitle + "3\n" + kAtom1 + bad + kAtom3 + kBox)),
                   "line 4: bad residue number"));
  }
  SUBCASE("atom count one too large: the box line is read as an atom") {
    const std::string msg =
        error_of(tmp.write(kTitle + "    4\n" + kAtom1 + kAtom2 + kAtom3 + kBox));
    CHECK(contains(msg, "line 6: "));
    CHECK(contains(msg, "atom count"));
  }
  SUBCASE("atom count much too large") {
    const std::string msg =
        error_of(tmp.write(kTitle + "   10\n" + kAtom1 + kAtom2 + kAtom3 + kBox));
    CHECK(contains(msg, "line 6: "));
    CHECK(contains(msg, "atom count"));
  }
  SUBCASE("atom count too small: an atom line is read as the box") {
    const std::string msg =
        error_of(tmp.write(kTitle + "    2\n" + kAtom1 + kAtom2 + kAtom3 + kBox));
    CHECK(contains(msg, "line 5: bad box line"));
  }
  SUBCASE("missing box line") {
    CHECK(contains(error_of(tmp.write(kTitle + "    3\n" + kAtom1 + kAtom2 + kAtom3)),
                   "line 6: missing box line"));
  }
  SUBCASE("box line with a wrong number of values") {
    CHECK(contains(error_of(tmp.write(kTitle + "1\n" + kAtom1 + " 3 4\n")),
                   "line 4: box line must hold 3 or 9 numbers"));
  }
  SUBCASE("no decimal points in the coordinates") {
    CHECK(
        contains(error_of(tmp.write(kTitle + "1\n" + "    1SOL     OW    1   1   2   3\n" + kBox)),
                 "line 3: cannot find the decimal points"));
  }
}

// Where an atom line's coordinates start (resnr, resname, atomname, atomnr before them).
constexpr size_t kCoordColumnForTests = 20;

TEST_CASE("a GRO file big enough for several parsing threads reads as a single thread would") {
  // 300k atoms (13 MB): more than one 4 MB chunk per thread on any machine with 2+ cores.
  TempGro tmp;
  std::mt19937_64 rng(std::random_device{}());
  std::uniform_real_distribution<double> coord(-99.0, 999.0);
  const int natoms = 300000;
  const int decimals = 3 + static_cast<int>(rng() % 4);  // GROMACS writes 3 to 6 (gmx -ndec)
  std::string text = kTitle + std::to_string(natoms) + "\n";
  std::vector<float> expect;
  std::vector<std::string> atom_names, residue_names;
  char line[160];
  for (int i = 0; i < natoms; ++i) {
    // Waters, and from atom 200000 on a "protein" of thousands of distinct names (each thread
    // numbers the names it meets; the tables are merged).
    const bool water = i < 200000;
    atom_names.push_back(water ? (i % 3 ? "HW1" : "OW") : "C" + std::to_string(rng() % 5000));
    residue_names.push_back(water ? "SOL" : "R" + std::to_string(rng() % 300));
    int n =
        std::snprintf(line, sizeof line, "%5d%-5s%5s%5d", i / 3 % 100000,
                      residue_names.back().c_str(), atom_names.back().c_str(), (i + 1) % 100000);
    for (int d = 0; d < 3; ++d) {
      const double v = coord(rng);
      char field[40];
      std::snprintf(field, sizeof field, "%*.*f", decimals + 5, decimals, v);
      n += std::snprintf(line + n, sizeof line - n, "%s", field);
      expect.push_back(static_cast<float>(std::strtod(field, nullptr)));
    }
    text += std::string(line, n) + (i % 7 ? "\n" : "\r\n");
  }
  const std::string good = text + kBox;
  const Topology top = read_gro(tmp.write(good));
  REQUIRE(top.natoms() == natoms);
  CHECK(top.xyz == expect);  // bit for bit: the fast path rounds as strtod + float does
  CHECK(top.atom_names == atom_names);
  CHECK(top.residue_names == residue_names);
  CHECK(top.residue_numbers[natoms - 1] == (natoms - 1) / 3 % 100000);
  CHECK(top.box[8] == 1.86206f);
  // What a run reads: the same names and box, no coordinates, and a bad coordinate unnoticed
  // (a short line is still an error).
  const Topology names = read_gro(tmp.write(good), pairhist::io::TopologyContent::names);
  CHECK(names.xyz.empty());
  CHECK(names.natoms() == natoms);
  CHECK(names.atom_names == atom_names);
  CHECK(names.residue_names == residue_names);
  CHECK(names.residue_numbers == top.residue_numbers);
  CHECK(names.box == top.box);
  std::string bad_coordinate = good;
  const size_t line3 = bad_coordinate.find('\n', bad_coordinate.find('\n') + 1) + 1;
  bad_coordinate[line3 + kCoordColumnForTests + 2] = 'x';
  CHECK_NOTHROW(read_gro(tmp.write(bad_coordinate), pairhist::io::TopologyContent::names));
  CHECK(contains(error_of(tmp.write(bad_coordinate)), ": line 3: bad x coordinate"));
  // The first bad line wins, wherever its thread is; a second one later does not hide it.
  std::string bad = good;
  size_t at = 0;
  for (int l = 0; l < 2 + natoms * 2 / 3; ++l) at = bad.find('\n', at) + 1;
  bad[at + 1] = 'Q';  // residue number of atom line natoms*2/3, i.e. file line natoms*2/3 + 3
  size_t later = at;
  for (int l = 0; l < natoms / 4; ++l) later = bad.find('\n', later) + 1;
  bad[later + 1] = 'Q';
  CHECK(contains(error_of(tmp.write(bad)),
                 ": line " + std::to_string(natoms * 2 / 3 + 3) + ": bad residue number"));
  // A count larger than the lines: the box line is the first bad "atom".
  std::string big = good;
  big.replace(kTitle.size(), std::to_string(natoms).size(), std::to_string(natoms + 5));
  CHECK(contains(error_of(tmp.write(big)), ": line " + std::to_string(natoms + 3) + ": "));
}
