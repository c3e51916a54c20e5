// `pairhist run --precision double` on the NaCl solution in a rhombic dodecahedron (a GROMACS
// trajectory, triclinic box) against an independent brute-force minimum-image count: exact
// integer equality in every bin of every pair.
#include <doctest/doctest.h>
#include <hdf5.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "io/trajectory/trajectory_reader.hpp"
#include "tests/double_reference.hpp"
#include "tests/h5_counts.hpp"
#include "tests/test_support.hpp"

namespace {

using pairhist::test::TempDir;

const std::string kXtc = pairhist::test::data_dir() + "/nacl_dodecahedron.xtc";
const std::string kGro = pairhist::test::data_dir() + "/nacl_dodecahedron.gro";

/// Atom names from the .gro's fixed columns (read here, not with our reader, to stay independent).
std::vector<std::string> gro_atom_names(const std::string& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  std::string line;
  std::getline(in, line);
  std::getline(in, line);
  const int natoms = std::stoi(line);
  std::vector<std::string> names;
  for (int i = 0; i < natoms && std::getline(in, line); ++i) {
    std::string name = line.substr(10, 5);
    name.erase(0, name.find_first_not_of(' '));
    names.push_back(name);
  }
  REQUIRE(static_cast<int>(names.size()) == natoms);
  return names;
}

}  // namespace

TEST_CASE("NaCl in a rhombic dodecahedron: double-precision counts equal a brute-force reference") {
  // r_max 1.5 nm, just under the 1.6 nm minimum-image limit of the 3.2 nm dodecahedron, so the
  // far corners of the cell, where a plain triclinic reduction picks the wrong image, count.
  const double r_max = 1.5;
  const int nbins = 150;
  const int step = 6;  // frames 0, 6, ..., 60: keeps the brute force to about a second
  TempDir dir("triclinic-counts");
  const std::string out = dir.file("out");
  std::string log;
  const int status = pairhist::test::capture(
      pairhist::test::shell_quote(pairhist::test::pairhist_binary()) + " run " + kXtc + " --top " +
          kGro + " --species Na=NA --species Cl=CL --species OW=OW --rmax 1.5 --nbins 150" +
          " --precision double --step 6 --ncpu 2 -q -o " + pairhist::test::shell_quote(out),
      log);
  INFO(log);
  REQUIRE(status == 0);

  const std::vector<std::string> names = gro_atom_names(kGro);
  const std::vector<std::string> species = {"NA", "CL", "OW"};
  std::vector<std::vector<size_t>> atoms(species.size());
  for (size_t i = 0; i < names.size(); ++i)
    for (size_t s = 0; s < species.size(); ++s)
      if (names[i] == species[s]) atoms[s].push_back(i);
  CHECK(atoms[0].size() == 14);
  CHECK(atoms[1].size() == 14);
  CHECK(atoms[2].size() == 724);

  // Reference histograms per species pair (a <= b), in the run's species order.
  std::map<std::pair<size_t, size_t>, std::vector<uint64_t>> ref;
  for (size_t a = 0; a < species.size(); ++a)
    for (size_t b = a; b < species.size(); ++b) ref[{a, b}].assign(nbins, 0);
  auto reader = pairhist::io::open_trajectory(kXtc);
  pairhist::io::TrajectoryFrame frame;
  int64_t index = 0, used = 0, last = -1;
  uint64_t near_edge = 0;  // pairs whose bin a rounding in the last place could change
  while (reader->next(frame)) {
    const int64_t f = index++;
    if (f % step != 0) continue;
    ++used;
    last = f;
    pairhist::BoxMatrix box;
    for (int k = 0; k < 9; ++k) box[k] = frame.box[k];
    REQUIRE(pairhist::classify_box(box) == pairhist::BoxKind::triclinic);
    for (auto& [key, h] : ref) {
      const auto& A = atoms[key.first];
      const auto& B = atoms[key.second];
      for (size_t i = 0; i < A.size(); ++i) {
        double p[3];
        for (int c = 0; c < 3; ++c) p[c] = frame.xyz[3 * A[i] + c];
        for (size_t j = key.first == key.second ? i + 1 : 0; j < B.size(); ++j) {
          double q[3];
          for (int c = 0; c < 3; ++c) q[c] = frame.xyz[3 * B[j] + c];
          const double x = pairhist::test::reference_bin_position(box, p, q, r_max, nbins);
          if (std::fabs(x - std::round(x)) < 1e-9) ++near_edge;
          if (x < nbins) ++h[static_cast<size_t>(x)];
        }
      }
    }
  }
  REQUIRE(used == 11);
  MESSAGE("reference: " << used << " frames, " << near_edge
                        << " pairs within 1e-9 bins of an edge");

  const std::string h5 = out + "/pairhist.h5";
  uint64_t total = 0;
  for (const auto& [key, expected] : ref) {
    const std::string pair = std::string(key.first == 0   ? "Na"
                                         : key.first == 1 ? "Cl"
                                                          : "OW") +
                             "," +
                             (key.second == 0   ? "Na"
                              : key.second == 1 ? "Cl"
                                                : "OW");
    CAPTURE(pair);
    const std::vector<uint64_t> got =
        pairhist::test::h5_counts(h5, "/" + std::to_string(last) + "/histograms/" + pair);
    REQUIRE(got.size() == expected.size());
    for (size_t k = 0; k < got.size(); ++k) {
      CAPTURE(k);
      CHECK(got[k] == expected[k]);
      total += expected[k];
    }
  }
  // Most pairs of the cell are within 1.5 nm: the far corners really were exercised.
  CHECK(total > 11u * (724u * 723u / 2) / 2);
}
