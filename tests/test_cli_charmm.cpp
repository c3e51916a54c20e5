// `pairhist run` on a real CHARMM PSF + DCD (MDAnalysis's tip125_tric_C36: 125 TIP3P waters in
// CHARMM c36's triclinic cell) and with fixed points as species, against an independent
// double-precision brute force over the same coordinates: exact counts in every bin.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "io/trajectory/dcd_reader.hpp"
#include "tests/double_reference.hpp"
#include "tests/h5_counts.hpp"
#include "tests/test_support.hpp"

namespace {

using pairhist::test::contains;
using pairhist::test::fixture;
using pairhist::test::shell_quote;
using pairhist::test::TempDir;

const std::string kPsf = fixture("charmm/tip125_tric_C36.psf");
const std::string kDcd = fixture("charmm/tip125_tric_C36.dcd");
constexpr double kRmax = 0.8;  // nm, below the 0.86 nm minimum-image limit of the last frame
constexpr int kBins = 80;

// Atom indices whose name (the PSF's fifth field, read here by splitting) is `name`.
std::vector<size_t> atoms_named(const std::string& name) {
  std::ifstream in(kPsf);
  std::string line;
  while (std::getline(in, line) && !contains(line, "!NATOM")) {
  }
  const int n = std::stoi(line);
  std::vector<size_t> out;
  for (int i = 0; i < n && std::getline(in, line); ++i) {
    std::istringstream f(line);
    std::string number, segid, resid, resname, atom;
    f >> number >> segid >> resid >> resname >> atom;
    if (atom == name) out.push_back(static_cast<size_t>(i));
  }
  return out;
}

struct Frames {
  std::vector<pairhist::io::TrajectoryFrame> frames;
};

Frames read_frames() {
  Frames all;
  pairhist::io::DcdReader reader(kDcd);
  pairhist::io::TrajectoryFrame frame;
  while (reader.next(frame)) all.frames.push_back(frame);
  REQUIRE(all.frames.size() == 10);
  return all;
}

pairhist::BoxMatrix box_of(const pairhist::io::TrajectoryFrame& frame) {
  pairhist::BoxMatrix box;
  for (int k = 0; k < 9; ++k) box[k] = frame.box[k];
  return box;
}

// Adds the bins of the pairs (a in A, b in B; i < j within one species) of every frame; `near`
// counts distances within 1e-9 bins of an edge, which a last-place rounding could move.
void reference_counts(const Frames& all, const std::vector<std::array<double, 3>>& points_a,
                      bool same, const std::vector<size_t>& b_atoms, std::vector<uint64_t>& h,
                      uint64_t& near, size_t frame_index, const std::vector<size_t>* a_atoms) {
  const auto& frame = all.frames[frame_index];
  const pairhist::BoxMatrix box = box_of(frame);
  const size_t na = a_atoms ? a_atoms->size() : points_a.size();
  for (size_t i = 0; i < na; ++i) {
    double p[3];
    for (int c = 0; c < 3; ++c)
      p[c] = a_atoms ? frame.xyz[3 * (*a_atoms)[i] + c] : points_a[i][static_cast<size_t>(c)];
    for (size_t j = same ? i + 1 : 0; j < b_atoms.size(); ++j) {
      double q[3];
      for (int c = 0; c < 3; ++c) q[c] = frame.xyz[3 * b_atoms[j] + c];
      const double x = pairhist::test::reference_bin_position(box, p, q, kRmax, kBins);
      if (std::fabs(x - std::round(x)) < 1e-9) ++near;
      if (x < kBins) ++h[static_cast<size_t>(x)];
    }
  }
}

int run(const std::string& args, std::string& log) {
  return pairhist::test::capture(shell_quote(pairhist::test::pairhist_binary()) + " run " + kDcd +
                                     " --top " + kPsf + " " + args +
                                     " --rmax 0.8 --nbins 80 --precision double --ncpu 2 -q",
                                 log);
}

}  // namespace

TEST_CASE("CHARMM PSF + triclinic DCD: counts equal a brute force in every bin") {
  TempDir dir("charmm-counts");
  const std::string out = dir.file("out");
  std::string log;
  const int status = run(
      "--species O=\"segid SOLV and name OH2\" --species H=\"type 4\" -o " + shell_quote(out), log);
  INFO(log);
  REQUIRE(status == 0);
  const std::vector<size_t> O = atoms_named("OH2");
  std::vector<size_t> H = atoms_named("H1");
  for (size_t h : atoms_named("H2")) H.push_back(h);
  std::sort(H.begin(), H.end());
  REQUIRE(O.size() == 125);
  REQUIRE(H.size() == 250);
  const Frames all = read_frames();
  std::vector<uint64_t> oo(kBins, 0), oh(kBins, 0), hh(kBins, 0);
  uint64_t near = 0;
  for (size_t f = 0; f < all.frames.size(); ++f) {
    REQUIRE(pairhist::classify_box(box_of(all.frames[f])) == pairhist::BoxKind::triclinic);
    reference_counts(all, {}, true, O, oo, near, f, &O);
    reference_counts(all, {}, false, H, oh, near, f, &O);
    reference_counts(all, {}, true, H, hh, near, f, &H);
  }
  MESSAGE(near << " pairs within 1e-9 bins of an edge");
  const std::string h5 = out + "/pairhist.h5";
  CHECK(pairhist::test::h5_counts(h5, "/9/histograms/O,O") == oo);
  CHECK(pairhist::test::h5_counts(h5, "/9/histograms/O,H") == oh);
  CHECK(pairhist::test::h5_counts(h5, "/9/histograms/H,H") == hh);
  uint64_t total = 0;
  for (uint64_t c : oh) total += c;
  CHECK(total > 10u * 125u * 250u / 10u);  // the cell's far corners counted too
}

TEST_CASE("point X,Y,Z and point centre as species: counts equal a brute force") {
  TempDir dir("charmm-points");
  const std::string out = dir.file("out");
  std::string log;
  // In Angstrom (--units angstrom, r_max 8 A): the fixed point is 15, 12, 9 A = 1.5, 1.2, 0.9 nm.
  const int status = pairhist::test::capture(
      shell_quote(pairhist::test::pairhist_binary()) + " run " + kDcd + " --top " + kPsf +
          " --species P=\"point 15,12,9\" --species C=\"point centre\" --species O=:TIP3@OH2" +
          " --pairs P-O,C-O,P-C --units angstrom --rmax 8 --nbins 80 --precision double" +
          " --ncpu 2 -q -o " + shell_quote(out),
      log);
  INFO(log);
  REQUIRE(status == 0);
  const std::vector<size_t> O = atoms_named("OH2");
  const Frames all = read_frames();
  std::vector<uint64_t> po(kBins, 0), co(kBins, 0), pc(kBins, 0);
  uint64_t near = 0;
  for (size_t f = 0; f < all.frames.size(); ++f) {
    const float* b = all.frames[f].box.data();
    // The centre as the run computes it: (a + b + c) / 2 in double, kept as float.
    std::array<double, 3> centre;
    for (size_t d = 0; d < 3; ++d)
      centre[d] = static_cast<float>(0.5 * (static_cast<double>(b[d]) + b[3 + d] + b[6 + d]));
    const std::array<double, 3> fixed = {static_cast<float>(1.5), static_cast<float>(1.2),
                                         static_cast<float>(0.9)};
    reference_counts(all, {fixed}, false, O, po, near, f, nullptr);
    reference_counts(all, {centre}, false, O, co, near, f, nullptr);
    // P-C: one pair per frame, from the fixed point to the centre.
    const double x = pairhist::test::reference_bin_position(box_of(all.frames[f]), fixed.data(),
                                                            centre.data(), kRmax, kBins);
    if (x < kBins) ++pc[static_cast<size_t>(x)];
  }
  MESSAGE(near << " pairs within 1e-9 bins of an edge");
  const std::string h5 = out + "/pairhist.h5";
  CHECK(pairhist::test::h5_counts(h5, "/9/histograms/P,O") == po);
  CHECK(pairhist::test::h5_counts(h5, "/9/histograms/C,O") == co);
  CHECK(pairhist::test::h5_counts(h5, "/9/histograms/P,C") == pc);
  uint64_t total = 0;
  for (uint64_t c : co) total += c;
  CHECK(total > 100u);  // waters within 1 nm of the centre, every frame
}

TEST_CASE("CHARMM inputs: a damaged PSF or a bad point is one line, nothing written") {
  TempDir dir("charmm-bad");
  const std::string bad = dir.file("bad.psf");
  std::string text = pairhist::test::read_all(kPsf);
  text.replace(text.find("     375 !NATOM"), 15, "     375 !NATUM");
  pairhist::test::write_all(bad, text);
  const std::string out = dir.file("out");
  std::string log;
  int status = pairhist::test::capture(
      shell_quote(pairhist::test::pairhist_binary()) + " run " + kDcd + " --top " + bad +
          " --species O=OH2 --rmax 0.8 --nbins 80 -q -o " + shell_quote(out),
      log);
  CHECK(status != 0);
  CHECK(contains(log, bad + ": line 11: expected 'N !NATOM'"));
  CHECK(std::count(log.begin(), log.end(), '\n') == 1);
  CHECK(!std::filesystem::exists(out));

  status = run("--species P=\"point 1,2\" --species O=OH2 -o " + shell_quote(out), log);
  CHECK(status != 0);
  CHECK(contains(log, "species P: selection 'point 1,2': 'point X,Y,Z'"));
  CHECK(!std::filesystem::exists(out));
}
