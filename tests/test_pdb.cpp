// PdbReader and read_pdb_topology against PDB files written at test time by gmx trjconv (checked
// against the XTC frames they came from and the .gro they describe), plus hand-written cells and
// truncated or malformed files. Needs gmx: PAIRHIST_GMX names the executable (default "gmx").
#include <doctest/doctest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "io/topology/gro_reader.hpp"
#include "io/trajectory/pdb_reader.hpp"
#include "io/xtc/xtc_reader.hpp"
#include "pairhist/errors.hpp"
#include "tests/test_paths.hpp"
#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using pairhist::InputError;
using pairhist::io::PdbReader;
using pairhist::io::TrajectoryFrame;
using pairhist::io::XtcReader;

namespace {

const std::string kSampleXtc = pairhist::test::data_dir() + "/spce_water.xtc";
const std::string kSampleGro = pairhist::test::data_dir() + "/spce_water.gro";
constexpr double kPi = 3.14159265358979323846;

using pairhist::test::contains;
using pairhist::test::gmx;
using pairhist::test::input_error_of;
using pairhist::test::read_all;
using pairhist::test::require_gmx;
using pairhist::test::run_shell;
using pairhist::test::shell_quote;
using pairhist::test::write_all;

struct TempDir : pairhist::test::TempDir {
  TempDir() : pairhist::test::TempDir("pdb") {}
};

std::string read_to_end(const std::string& path, int64_t* frames = nullptr) {
  return pairhist::test::read_to_end_with<PdbReader>(path, frames);
}

/// The first `frames` frames of the sample as PDB, written by gmx trjconv.
std::string sample_pdb(const TempDir& tmp, double end_ps) {
  const std::string out = tmp.file("sample.pdb");
  REQUIRE(run_shell("echo 0 | " + shell_quote(gmx()) + " -quiet trjconv -f " +
                    shell_quote(kSampleXtc) + " -s " + shell_quote(kSampleGro) + " -o " +
                    shell_quote(out) + " -e " + std::to_string(end_ps) + " >/dev/null 2>&1"));
  return out;
}

/// A CRYST1 record in the PDB column layout.
std::string cryst1(double a, double b, double c, double alpha, double beta, double gamma) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "CRYST1%9.3f%9.3f%9.3f%7.2f%7.2f%7.2f P 1           1\n", a, b, c,
                alpha, beta, gamma);
  return buf;
}

std::string atom(int serial, const char* name, const char* res, int resnr, double x, double y,
                 double z, const char* record = "ATOM  ") {
  char buf[128];
  std::snprintf(buf, sizeof buf, "%-6s%5d %-4s %-4s%5d    %8.3f%8.3f%8.3f  1.00  0.00\n", record,
                serial, name, res, resnr, x, y, z);
  return buf;
}

/// Byte offset just after the line that holds the n-th occurrence (0-based) of `needle`.
size_t after_line(const std::string& text, const std::string& needle, int n) {
  size_t pos = 0;
  for (int k = 0; k <= n; ++k) {
    pos = text.find(needle, k == 0 ? 0 : pos + 1);
    REQUIRE(pos != std::string::npos);
  }
  return text.find('\n', pos) + 1;
}

double norm(const float* v) {
  return std::sqrt(double{v[0]} * v[0] + double{v[1]} * v[1] + double{v[2]} * v[2]);
}

double angle_deg(const float* u, const float* v) {
  const double dot = double{u[0]} * v[0] + double{u[1]} * v[1] + double{u[2]} * v[2];
  return std::acos(dot / (norm(u) * norm(v))) * 180.0 / kPi;
}

}  // namespace

TEST_CASE("PdbReader reads a gmx trjconv multi-model PDB like the XTC it came from") {
  require_gmx();
  TempDir tmp;
  const std::string pdb = sample_pdb(tmp, 3);
  PdbReader reader(pdb);
  XtcReader xtc(kSampleXtc);
  CHECK(reader.natoms() == xtc.natoms());
  CHECK(reader.path() == pdb);
  TrajectoryFrame p, x;
  double worst = 0, worst_box = 0;
  int64_t n = 0;
  while (reader.next(p)) {
    REQUIRE(xtc.next(x));
    CHECK(p.step == x.step);
    CHECK(p.time == doctest::Approx(x.time).epsilon(1e-6));
    CHECK(p.precision == 0);
    REQUIRE(p.xyz.size() == x.xyz.size());
    for (size_t k = 0; k < p.xyz.size(); ++k) {
      worst = std::max(worst, std::fabs(double{p.xyz[k]} - x.xyz[k]));
    }
    for (size_t k = 0; k < 9; ++k) {
      worst_box = std::max(worst_box, std::fabs(double{p.box[k]} - x.box[k]));
      if (x.box[k] == 0) CHECK(p.box[k] == 0.0f);
    }
    ++n;
  }
  CHECK(n == 11);
  CHECK(reader.frames_read() == 11);
  // PDB keeps 3 decimals in Angstrom: half a unit is 5e-5 nm, plus float rounding.
  CHECK(worst <= 5e-5 + 2e-6);
  CHECK(worst_box <= 5e-5 + 2e-6);
  CHECK(worst > 0);  // Angstrom -> nm conversion really happened (XTC stores 1e-3 nm)
}

TEST_CASE("read_pdb_topology matches the .gro of the same system") {
  require_gmx();
  TempDir tmp;
  const std::string pdb = sample_pdb(tmp, 0);
  const pairhist::analysis::Topology a = pairhist::io::read_pdb_topology(pdb);
  const pairhist::analysis::Topology b = pairhist::io::read_gro(kSampleGro);
  REQUIRE(a.natoms() == b.natoms());
  CHECK(a.atom_names == b.atom_names);
  CHECK(a.residue_names == b.residue_names);
  CHECK(a.residue_numbers == b.residue_numbers);
  CHECK(a.title == b.title);
  // The coordinates come from XTC frame 0, which rounds a few atoms differently from the .gro.
  XtcReader xtc(kSampleXtc);
  TrajectoryFrame x;
  REQUIRE(xtc.next(x));
  REQUIRE(a.xyz.size() == x.xyz.size());
  double worst = 0;
  for (size_t k = 0; k < a.xyz.size(); ++k) {
    worst = std::max(worst, std::fabs(double{a.xyz[k]} - x.xyz[k]));
  }
  CHECK(worst <= 5e-5 + 2e-6);
  for (size_t k = 0; k < 9; ++k) CHECK(a.box[k] == doctest::Approx(x.box[k]).epsilon(1e-5));
}

TEST_CASE("PdbReader turns a gmx dodecahedron CRYST1 into the GROMACS box") {
  require_gmx();
  TempDir tmp;
  const std::string gro = tmp.file("tric.gro");
  const std::string pdb = tmp.file("tric.pdb");
  REQUIRE(run_shell(shell_quote(gmx()) + " -quiet editconf -f " + shell_quote(kSampleGro) +
                    " -bt dodecahedron -d 0.5 -o " + shell_quote(gro) + " >/dev/null 2>&1"));
  REQUIRE(run_shell("echo 0 | " + shell_quote(gmx()) + " -quiet trjconv -s " + shell_quote(gro) +
                    " -f " + shell_quote(gro) + " -o " + shell_quote(pdb) + " >/dev/null 2>&1"));
  const pairhist::analysis::Topology top = pairhist::io::read_gro(gro);
  PdbReader reader(pdb);
  TrajectoryFrame frame;
  REQUIRE(reader.next(frame));
  CHECK(frame.box[6] != 0.0f);
  CHECK(frame.box[7] != 0.0f);
  // CRYST1 rounds lengths to 1e-3 Angstrom and angles to 0.01 degree: ~2e-4 rad of a ~4 nm cell.
  for (size_t k = 0; k < 9; ++k) {
    CAPTURE(k);
    CHECK(std::fabs(frame.box[k] - top.box[k]) < 1e-3);
  }
  for (size_t k : {1, 2, 5}) CHECK(frame.box[k] == 0.0f);
  CHECK_FALSE(reader.next(frame));
}

TEST_CASE(
    "hand-written CRYST1 cells give lower-triangular boxes with the right lengths and angles") {
  TempDir tmp;
  const std::string path = tmp.file("cells.pdb");
  struct Cell {
    double a, b, c, alpha, beta, gamma;
  };
  const Cell cells[] = {{30, 40, 50, 80, 70, 60},
                        {40, 40, 40, 60, 60, 90},
                        {25, 25, 35, 90, 90, 120},
                        {10, 10, 10, 90, 90, 90}};
  std::string text;
  for (int m = 0; m < 4; ++m) {
    const Cell& c = cells[m];
    text += cryst1(c.a, c.b, c.c, c.alpha, c.beta, c.gamma);
    text += "MODEL " + std::to_string(m + 1) + "\n";
    text += atom(1, "OW", "SOL", 1, 1.0, 2.0, 3.0);
    text += "ENDMDL\n";
  }
  // A model without CRYST1 keeps the last cell; the PDB placeholder cell means no box.
  text += "MODEL 5\n" + atom(1, "OW", "SOL", 1, 1, 2, 3) + "ENDMDL\n";
  text += cryst1(1, 1, 1, 90, 90, 90) + "MODEL 6\n" + atom(1, "OW", "SOL", 1, 1, 2, 3) +
          "ENDMDL\nEND\n";
  write_all(path, text);

  PdbReader reader(path);
  TrajectoryFrame frame;
  std::vector<std::array<float, 9>> boxes;
  for (int m = 0; m < 4; ++m) {
    const Cell& c = cells[m];
    CAPTURE(m);
    REQUIRE(reader.next(frame));
    boxes.push_back(frame.box);
    CHECK(frame.step == m);
    CHECK(frame.time == 0);
    const float* a = frame.box.data();
    const float* b = a + 3;
    const float* cv = a + 6;
    CHECK(a[1] == 0.0f);
    CHECK(a[2] == 0.0f);
    CHECK(b[2] == 0.0f);
    CHECK(a[0] > 0);
    CHECK(b[1] > 0);
    CHECK(cv[2] > 0);
    CHECK(norm(a) == doctest::Approx(c.a / 10).epsilon(1e-6));
    CHECK(norm(b) == doctest::Approx(c.b / 10).epsilon(1e-6));
    CHECK(norm(cv) == doctest::Approx(c.c / 10).epsilon(1e-6));
    CHECK(angle_deg(b, cv) == doctest::Approx(c.alpha).epsilon(1e-5));
    CHECK(angle_deg(a, cv) == doctest::Approx(c.beta).epsilon(1e-5));
    CHECK(angle_deg(a, b) == doctest::Approx(c.gamma).epsilon(1e-5));
    CHECK(frame.xyz == std::vector<float>{0.1f, 0.2f, 0.3f});
  }
  // The GROMACS rhombic dodecahedron (xy-square) of side 4 nm: c = (2, 2, 2 sqrt 2).
  const std::array<float, 9> dodec = boxes[1];
  CHECK(dodec[0] == doctest::Approx(4.0));
  CHECK(dodec[3] == 0.0f);  // exactly: gamma is a right angle
  CHECK(dodec[4] == doctest::Approx(4.0));
  CHECK(dodec[6] == doctest::Approx(2.0));
  CHECK(dodec[7] == doctest::Approx(2.0));
  CHECK(dodec[8] == doctest::Approx(2.0 * std::sqrt(2.0)));
  // A rectangular cell has exact zeros off the diagonal.
  CHECK(boxes[3] == std::array<float, 9>{1, 0, 0, 0, 1, 0, 0, 0, 1});
  REQUIRE(reader.next(frame));
  CHECK(frame.box == boxes[3]);
  REQUIRE(reader.next(frame));
  CHECK(frame.box == std::array<float, 9>{});
  CHECK_FALSE(reader.next(frame));
  CHECK(reader.frames_read() == 6);
}

TEST_CASE("a PDB without MODEL records is one frame; HETATM and CRLF line ends are read") {
  TempDir tmp;
  const std::string path = tmp.file("single.pdb");
  std::string text = "HEADER    test\r\nTITLE     two atoms\r\n";
  text += atom(1, "C1", "LIG", 7, -1.5, 0.25, 100.125, "HETATM");
  text += atom(2, "N", "ALA", 8, 9999.999, -999.999, 0);
  text += "TER\r\nEND\r\n";
  write_all(path, text);
  PdbReader reader(path);
  CHECK(reader.natoms() == 2);
  TrajectoryFrame frame;
  REQUIRE(reader.next(frame));
  CHECK(frame.box == std::array<float, 9>{});
  CHECK(frame.step == 0);
  const std::vector<double> want = {-0.15, 0.025, 10.0125, 999.9999, -99.9999, 0};
  REQUIRE(frame.xyz.size() == 6);
  for (size_t k = 0; k < 6; ++k) CHECK(frame.xyz[k] == static_cast<float>(want[k]));
  CHECK_FALSE(reader.next(frame));
  CHECK_FALSE(reader.next(frame));

  const pairhist::analysis::Topology top = pairhist::io::read_pdb_topology(path);
  CHECK(top.atom_names == std::vector<std::string>{"C1", "N"});
  CHECK(top.residue_names == std::vector<std::string>{"LIG", "ALA"});
  CHECK(top.residue_numbers == std::vector<int>{7, 8});
  CHECK(top.elements == std::vector<std::string>{"", ""});  // no element columns: none guessed
  CHECK(top.types.empty());
  CHECK(top.title == "two atoms");
}

TEST_CASE("truncated and malformed PDB files give InputError naming the frame") {
  require_gmx();
  TempDir tmp;
  const std::string text = read_all(sample_pdb(tmp, 2.1));  // frames 0..7
  const std::string path = tmp.file("bad.pdb");
  auto expect = [&](const std::string& bytes, int64_t frames_before, const std::string& what) {
    CAPTURE(what);
    write_all(path, bytes);
    int64_t frames = -1;
    const std::string msg = read_to_end(path, &frames);
    CAPTURE(msg);
    CHECK(frames == frames_before);
    CHECK(contains(msg, path));
    CHECK(contains(msg, "frame " + std::to_string(frames_before) + ":"));
    CHECK(contains(msg, frames_before == 0 ? std::string("(no complete frame)")
                                           : "(last complete frame is " +
                                                 std::to_string(frames_before - 1) + ")"));
    CHECK(contains(msg, what));
    CHECK(msg.find('\n') == std::string::npos);
  };
  const size_t end5 = after_line(text, "ENDMDL", 4);  // after the 5th model
  const size_t atom5 = after_line(text, "ATOM   1000 ", 5);
  SUBCASE("cut between whole lines inside a model") {
    expect(text.substr(0, atom5), 5, "ENDMDL");
  }
  SUBCASE("cut inside the coordinates of an ATOM line") {
    expect(text.substr(0, atom5 + 40), 5, "too short");
  }
  SUBCASE("cut inside ENDMDL") {
    expect(text.substr(0, end5 - 4), 4, "ENDMDL");
  }
  SUBCASE("cut inside the first model") {
    expect(text.substr(0, 2000), 0, "ENDMDL");
  }
  SUBCASE("cut right after ENDMDL is a clean end") {
    write_all(path, text.substr(0, end5));
    int64_t frames = 0;
    CHECK(read_to_end(path, &frames).empty());
    CHECK(frames == 5);
  }
  SUBCASE("a model with an atom missing") {
    std::string bytes = text;
    const size_t at = after_line(text, "ATOM   1000 ", 3);
    bytes.erase(at, text.find('\n', at) + 1 - at);
    expect(bytes, 3, "atoms, the first has 2652");
  }
  SUBCASE("a model with an extra atom") {
    std::string bytes = text;
    const size_t at = after_line(text, "ATOM   1000 ", 2);
    bytes.insert(at, atom(1001, "OW", "SOL", 1, 1, 2, 3));
    expect(bytes, 2, "more atoms than the first");
  }
  SUBCASE("an unreadable coordinate") {
    std::string bytes = text;
    const size_t at = after_line(text, "ATOM   1000 ", 6);
    bytes[at + 33] = 'x';  // inside the x field, columns 31-38
    expect(bytes, 6, "cannot read x coordinate");
  }
  SUBCASE("a broken CRYST1") {
    std::string bytes = text;
    const size_t end = after_line(text, "CRYST1", 6);  // the box of frame 6
    const size_t start = text.rfind('\n', end - 2) + 1;
    bytes.replace(start + 47, 7, "  ab.cd");  // gamma, columns 48-54
    expect(bytes, 6, "gamma");
  }
  SUBCASE("MODEL without ENDMDL before the next MODEL") {
    std::string bytes = text;
    const size_t at = after_line(text, "ENDMDL", 1);
    bytes.erase(at - 7, 7);
    expect(bytes, 1, "MODEL inside a MODEL");
  }
  SUBCASE("missing file") {
    const std::string missing = tmp.file("missing.pdb");
    const std::string msg = input_error_of([&] { PdbReader r(missing); });
    CHECK(contains(msg, missing));
    CHECK(contains(msg, "cannot open"));
    CHECK(contains(input_error_of([&] { pairhist::io::read_pdb_topology(missing); }), missing));
  }
  SUBCASE("a file without atoms") {
    write_all(path, "REMARK nothing here\nEND\n");
    CHECK(contains(input_error_of([&] { PdbReader r(path); }), "no ATOM or HETATM"));
    write_all(path, "");
    CHECK(contains(input_error_of([&] { PdbReader r(path); }), "no ATOM or HETATM"));
  }
  SUBCASE("the error is sticky") {
    write_all(path, text.substr(0, atom5));
    PdbReader reader(path);
    TrajectoryFrame frame;
    for (int k = 0; k < 5; ++k) REQUIRE(reader.next(frame));
    const std::string first = input_error_of([&] { reader.next(frame); });
    CHECK(contains(first, "frame 5:"));
    CHECK(input_error_of([&] { reader.next(frame); }) == first);
  }
}
