// `pairhist run` on DCDs NAMD wrote (MDAnalysis's test data, data/fixtures/charmm/README.md):
// watdyn (5 waters, 10 frames, a 50 A cubic cell) as it is, and every 8th atom of SiN_tric_namd
// (a triclinic cell stored as cosines; scripts/make-namd-fixture.py), against an independent
// double-precision brute force over the same coordinates: exact counts in every bin.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <functional>
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

struct PsfAtom {
  std::string segid, resname, name;
  double mass = 0;
};

// The atoms of a PSF as its blank-separated fields say, read here without pairhist's reader.
std::vector<PsfAtom> psf_atoms(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line) && !contains(line, "!NATOM")) {
  }
  const int n = std::stoi(line);
  std::vector<PsfAtom> out;
  for (int i = 0; i < n && std::getline(in, line); ++i) {
    std::istringstream f(line);
    std::string number, resid, type;
    double charge = 0;
    PsfAtom a;
    f >> number >> a.segid >> resid >> a.resname >> a.name >> type >> charge >> a.mass;
    out.push_back(a);
  }
  return out;
}

std::vector<size_t> atoms_where(const std::vector<PsfAtom>& atoms,
                                const std::function<bool(const PsfAtom&)>& keep) {
  std::vector<size_t> out;
  for (size_t i = 0; i < atoms.size(); ++i)
    if (keep(atoms[i])) out.push_back(i);
  return out;
}

struct Pair {
  std::string name;  // "A,B" as the run's output names it
  std::vector<size_t> a, b;
  bool same = false;
};

// Runs pairhist on `dcd` + `psf` and compares every pair's counts with the brute force.
void check_counts(const std::string& dcd, const std::string& psf, const std::string& species,
                  const std::vector<Pair>& pairs, double r_max, int bins, size_t frames) {
  TempDir dir("namd-counts");
  const std::string out = dir.file("out");
  std::string log;
  const int status = pairhist::test::capture(
      shell_quote(pairhist::test::pairhist_binary()) + " run " + dcd + " --top " + psf + " " +
          species + " --rmax " + std::to_string(r_max) + " --nbins " + std::to_string(bins) +
          " --precision double --ncpu 2 -q -o " + shell_quote(out),
      log);
  INFO(log);
  REQUIRE(status == 0);
  pairhist::io::DcdReader reader(dcd);
  pairhist::io::TrajectoryFrame frame;
  std::vector<std::vector<uint64_t>> want(pairs.size(), std::vector<uint64_t>(bins, 0));
  size_t nframes = 0;
  uint64_t near = 0, counted = 0;
  while (reader.next(frame)) {
    ++nframes;
    pairhist::BoxMatrix box;
    for (int k = 0; k < 9; ++k) box[k] = frame.box[k];
    for (size_t p = 0; p < pairs.size(); ++p) {
      const Pair& pair = pairs[p];
      for (size_t i = 0; i < pair.a.size(); ++i)
        for (size_t j = pair.same ? i + 1 : 0; j < pair.b.size(); ++j) {
          double x[3], y[3];
          for (int c = 0; c < 3; ++c) {
            x[c] = frame.xyz[3 * pair.a[i] + c];
            y[c] = frame.xyz[3 * pair.b[j] + c];
          }
          const double at = pairhist::test::reference_bin_position(box, x, y, r_max, bins);
          if (std::fabs(at - std::round(at)) < 1e-9) ++near;
          if (at < bins) ++want[p][static_cast<size_t>(at)], ++counted;
        }
    }
  }
  REQUIRE(nframes == frames);
  MESSAGE(near << " pairs within 1e-9 bins of an edge; " << counted << " pairs counted");
  CHECK(counted > 0);
  const std::string group = "/" + std::to_string(frames - 1) + "/histograms/";
  for (size_t p = 0; p < pairs.size(); ++p) {
    INFO(pairs[p].name);
    CHECK(pairhist::test::h5_counts(out + "/pairhist.h5", group + pairs[p].name) == want[p]);
  }
}

}  // namespace

TEST_CASE("NAMD DCD, cubic cell (watdyn): counts equal a brute force in every bin") {
  const std::string psf = fixture("charmm/watdyn.psf");
  const auto atoms = psf_atoms(psf);
  REQUIRE(atoms.size() == 15);
  const auto O = atoms_where(atoms, [](const PsfAtom& a) { return a.name == "OH2"; });
  const auto H = atoms_where(atoms, [](const PsfAtom& a) { return a.name[0] == 'H'; });
  REQUIRE(O.size() == 5);
  REQUIRE(H.size() == 10);
  // r_max 2.4 nm: within the minimum-image limit of the 5 nm cell.
  check_counts(fixture("charmm/watdyn.dcd"), psf,
               "--species O=\"name OH2\" --species H=\"name H1 H2\"",
               {{"O,O", O, O, true}, {"O,H", O, H, false}, {"H,H", H, H, true}}, 2.4, 96, 10);
}

TEST_CASE("NAMD DCD, triclinic cell as cosines (SiN, every 8th atom): counts equal a brute force") {
  const std::string psf = fixture("charmm/SiN_tric_namd_every8.psf");
  const auto atoms = psf_atoms(psf);
  REQUIRE(atoms.size() == 694);
  const auto N = atoms_where(atoms, [](const PsfAtom& a) { return a.mass == 14.007; });
  const auto Si = atoms_where(atoms, [](const PsfAtom& a) { return a.mass == 28.0855; });
  const auto O =
      atoms_where(atoms, [](const PsfAtom& a) { return a.resname == "TIP3" && a.name == "OH2"; });
  REQUIRE(N.size() > 50);
  REQUIRE(Si.size() > 50);
  REQUIRE(O.size() > 50);
  // r_max 1.6 nm: within the minimum-image limit (half the cell's smallest height, 1.66 nm).
  check_counts(fixture("charmm/SiN_tric_namd_every8.dcd"), psf,
               "--species N=\"element N\" --species Si=\"element Si\""
               " --species O=\"resname TIP3 and name OH2\"",
               {{"N,N", N, N, true},
                {"N,Si", N, Si, false},
                {"N,O", N, O, false},
                {"Si,Si", Si, Si, true},
                {"Si,O", Si, O, false},
                {"O,O", O, O, true}},
               1.6, 80, 1);
}
