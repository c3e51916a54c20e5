// `pairhist run --sphere SELECTION,R` end to end: a fresh random periodic system with a small
// "solute" that crosses the box edge; the sphere run's histograms against a brute-force
// per-frame reference (membership by minimum image around the solute's centre made whole, every
// pair counted without a box, in double), its Debye intensity against the brute-force double
// Debye sum over each frame's sphere atoms, and the one-line errors.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "analysis/scattering_debye.hpp"
#include "analysis/scattering_factors.hpp"
#include "tests/h5_counts.hpp"
#include "tests/scattering_csv.hpp"
#include "tests/test_support.hpp"

namespace {

using pairhist::test::contains;
using pairhist::test::pairhist_cmd;
using pairhist::test::read_all;
using pairhist::test::shell_quote;
using pairhist::test::TempDir;
using namespace pairhist::analysis;

const std::vector<std::string> kSpecies = {"C", "O", "Na", "Cl"};
constexpr int kFrames = 3;

/// Box rows a, b, c in Angstrom (GROMACS's lower-triangular form).
using Lattice = std::array<double, 9>;
const Lattice kCube = {30, 0, 0, 0, 30, 0, 0, 0, 30};  // a 3 nm cube
// A rhombic dodecahedron (xy-square), 3.2 nm vectors: the minimum image needs its lattice search.
const Lattice kDodecahedron = {32, 0, 0, 0, 32, 0, 16, 16, 22.627417};

struct Atom {
  int species;
  float x[3];  // nm, as the XYZ reader makes them: float(Angstrom * 0.1)
};

/// Moves a point (Angstrom) into the cell by whole lattice vectors (c, then b, then a).
void wrap_into_cell(const Lattice& l, double* x) {
  for (int v = 2; v >= 0; --v) {
    const double n = std::floor(x[v] / l[static_cast<size_t>(4 * v)]);
    for (int c = 0; c < 3; ++c) x[c] -= n * l[static_cast<size_t>(3 * v + c)];
  }
}

/// kFrames frames of a periodic box (extended XYZ, Angstrom): 12 solute atoms (C) on a chain of
/// 0.15 nm steps starting near a corner, wrapped into the box so that the chain crosses its
/// faces, then 200 O, 60 Na, 60 Cl uniform in the cell. Fresh every run; the seed is printed.
std::vector<std::vector<Atom>> write_system(const std::string& path, const Lattice& lattice) {
  const uint64_t seed = std::random_device{}();
  std::printf("test_cli_sphere: system from seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  std::normal_distribution<double> step(0, 1.5 / std::sqrt(3.0));  // Angstrom
  std::vector<std::vector<Atom>> frames(kFrames);
  std::string text;
  char line[240];
  for (auto& atoms : frames) {
    const int counts[4] = {12, 200, 60, 60};
    int natoms = 0;
    for (int c : counts) natoms += c;
    std::snprintf(line, sizeof line,
                  "%d\nLattice=\"%.6f %.6f %.6f %.6f %.6f %.6f %.6f %.6f %.6f\" "
                  "Properties=species:S:1:pos:R:3\n",
                  natoms, lattice[0], lattice[1], lattice[2], lattice[3], lattice[4], lattice[5],
                  lattice[6], lattice[7], lattice[8]);
    text += line;
    double walk[3] = {3 * unit(rng), 3 * unit(rng), -3 * unit(rng)};  // Angstrom, at a corner
    for (int s = 0; s < 4; ++s) {
      for (int i = 0; i < counts[s]; ++i) {
        double a[3];
        if (s == 0) {
          for (int c = 0; c < 3; ++c) walk[c] += i > 0 ? step(rng) : 0;
          for (int c = 0; c < 3; ++c) a[c] = walk[c];
        } else {
          const double f[3] = {unit(rng), unit(rng), unit(rng)};
          for (int c = 0; c < 3; ++c)
            a[c] = f[0] * lattice[static_cast<size_t>(c)] + f[1] * lattice[3 + c] +
                   f[2] * lattice[6 + c];
        }
        wrap_into_cell(lattice, a);
        std::snprintf(line, sizeof line, "%s %.6f %.6f %.6f\n", kSpecies[s].c_str(), a[0], a[1],
                      a[2]);
        text += line;
        double parsed[3];
        std::sscanf(line + kSpecies[s].size(), "%lf %lf %lf", &parsed[0], &parsed[1], &parsed[2]);
        Atom atom{s, {}};
        for (int c = 0; c < 3; ++c) atom.x[c] = static_cast<float>(parsed[c] * 0.1);
        atoms.push_back(atom);
      }
    }
  }
  pairhist::test::write_all(path, text);
  return frames;
}

/// The shortest of d + i a + j b + k c over |i|, |j|, |k| <= 2 (nm; the box as the reader
/// rounds it to float), by brute force.
void nearest_image(const Lattice& lattice, double* d) {
  double box[9];
  for (int k = 0; k < 9; ++k) box[k] = static_cast<float>(lattice[static_cast<size_t>(k)] * 0.1);
  double best[3] = {d[0], d[1], d[2]}, best2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
  for (int i = -2; i <= 2; ++i)
    for (int j = -2; j <= 2; ++j)
      for (int k = -2; k <= 2; ++k) {
        double e[3], e2 = 0;
        for (int c = 0; c < 3; ++c) {
          e[c] = d[c] + i * box[c] + j * box[3 + c] + k * box[6 + c];
          e2 += e[c] * e[c];
        }
        if (e2 < best2) best2 = e2, best[0] = e[0], best[1] = e[1], best[2] = e[2];
      }
  for (int c = 0; c < 3; ++c) d[c] = best[c];
}

/// One frame's sphere: per species, the positions inside (relative to the centre, as floats).
std::vector<std::vector<std::array<float, 3>>> cut_sphere(const std::vector<Atom>& atoms,
                                                          double radius, const Lattice& lattice) {
  // The solute made whole along its atoms' order, its centre of geometry (XYZ has no masses).
  double previous[3] = {0, 0, 0}, sum[3] = {0, 0, 0};
  int solute = 0;
  for (const Atom& a : atoms) {
    if (a.species != 0) continue;
    double d[3];
    for (int c = 0; c < 3; ++c) d[c] = a.x[c] - previous[c];
    if (solute > 0) nearest_image(lattice, d);
    for (int c = 0; c < 3; ++c) {
      previous[c] += d[c];
      sum[c] += previous[c];
    }
    ++solute;
  }
  double centre[3];
  for (int c = 0; c < 3; ++c) centre[c] = sum[c] / solute;
  std::vector<std::vector<std::array<float, 3>>> inside(kSpecies.size());
  for (const Atom& a : atoms) {
    double d[3];
    for (int c = 0; c < 3; ++c) d[c] = a.x[c] - centre[c];
    nearest_image(lattice, d);
    if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] <= radius * radius)
      inside[static_cast<size_t>(a.species)].push_back(
          {static_cast<float>(d[0]), static_cast<float>(d[1]), static_cast<float>(d[2])});
  }
  return inside;
}

/// The bin of a pair as docs/design.md defines it in double precision (no box).
int bin_of(const std::array<float, 3>& p, const std::array<float, 3>& q, double scale, int nbins) {
  double d[3];
  for (int c = 0; c < 3; ++c) d[c] = q[c] * scale - p[c] * scale;
  const double d2 = std::fma(d[0], d[0], std::fma(d[1], d[1], std::fma(d[2], d[2], 0x1p-100)));
  const double r = std::sqrt(d2);
  return r < nbins ? static_cast<int>(r) : -1;
}

std::string species_options() {
  std::string s;
  for (const std::string& name : kSpecies) s += " --species " + name + "=" + name;
  return s;
}

}  // namespace

/// A --sphere run on a fresh system in `lattice` against the brute force: counts, per-frame
/// atoms, I(q), and `pairhist scattering` of the run.
static void check_sphere_run(const Lattice& lattice) {
  TempDir dir("sphere");
  const std::string xyz = dir.file("system.xyz");
  const auto frames = write_system(xyz, lattice);
  const double radius = 1.2;  // nm; r_max defaults to 2R
  const int nbins = 480;
  const std::string run = dir.file("run");
  const auto done = pairhist_cmd(
      "run " + shell_quote(xyz) + " --top " + shell_quote(xyz) + species_options() +
      " --sphere C,1.2 --nbins 480 --precision double --ncpu 2 -o " + shell_quote(run) +
      " --scattering xray --q-max 40 "
      "--nq 41");
  INFO(done.output);
  REQUIRE(done.status == 0);
  CHECK(contains(done.output, "sphere        : C,1.2, centre of geometry, no box"));

  // The reference, frame by frame.
  const double scale = nbins / (2 * radius);
  const size_t ns = kSpecies.size();
  std::vector<std::vector<uint64_t>> expected(ns * ns, std::vector<uint64_t>(nbins, 0));
  std::vector<std::vector<uint64_t>> frame_counts(ns);
  std::vector<std::vector<std::vector<std::array<float, 3>>>> spheres;
  for (const auto& atoms : frames) {
    spheres.push_back(cut_sphere(atoms, radius, lattice));
    const auto& inside = spheres.back();
    for (size_t a = 0; a < ns; ++a) {
      frame_counts[a].push_back(inside[a].size());
      for (size_t b = a; b < ns; ++b)
        for (size_t i = 0; i < inside[a].size(); ++i)
          for (size_t j = a == b ? i + 1 : 0; j < inside[b].size(); ++j) {
            const int k = bin_of(inside[a][i], inside[b][j], scale, nbins);
            if (k >= 0) ++expected[a * ns + b][static_cast<size_t>(k)];
          }
    }
  }
  const std::string h5 = run + "/pairhist.h5";
  const std::string block = "/" + std::to_string(kFrames - 1) + "/histograms/";
  for (size_t a = 0; a < ns; ++a) {
    CAPTURE(kSpecies[a]);
    CHECK(pairhist::test::h5_counts(h5, "/pairhist/frame_species_counts/" + kSpecies[a]) ==
          frame_counts[a]);
    for (size_t b = a; b < ns; ++b) {
      CAPTURE(kSpecies[b]);
      CHECK(pairhist::test::h5_counts(h5, block + kSpecies[a] + "," + kSpecies[b]) ==
            expected[a * ns + b]);
    }
  }

  // Debye: the mean over frames of the brute-force sum over each sphere's atoms, within the bin
  // bound; the self term takes each frame's own atoms.
  const auto csv = pairhist::test::read_scattering_csv(run + "/intensity.csv");
  REQUIRE(csv.at("q_per_nm").size() == 41);
  const double dr = 2 * radius / nbins;
  for (size_t iq = 0; iq < 41; ++iq) {
    const double q = csv.at("q_per_nm")[iq];
    double exact = 0, pair_weight = 0;
    for (const auto& inside : spheres) {
      std::vector<double> f;
      std::vector<std::array<float, 3>> x;
      for (size_t s = 0; s < ns; ++s)
        for (const auto& p : inside[s]) {
          f.push_back(builtin_scatterer(kSpecies[s], Radiation::xray)->at(q));
          x.push_back(p);
        }
      for (size_t m = 0; m < x.size(); ++m) {
        exact += f[m] * f[m];
        for (size_t n = m + 1; n < x.size(); ++n) {
          const double d = std::sqrt(std::pow(double(x[m][0]) - x[n][0], 2) +
                                     std::pow(double(x[m][1]) - x[n][1], 2) +
                                     std::pow(double(x[m][2]) - x[n][2], 2));
          exact += 2 * f[m] * f[n] * sinc(q * d);
          pair_weight += 2 * std::abs(f[m] * f[n]);
        }
      }
    }
    exact /= kFrames;
    pair_weight /= kFrames;
    CAPTURE(q);
    CHECK(std::abs(csv.at("I")[iq] - exact) <= pair_weight * 0.4362 * q * dr * 1.01 + 1e-9 * exact);
  }
  // `pairhist scattering RUN` reads the per-frame counts back: the same intensity.
  const std::string written = read_all(run + "/intensity.csv");
  const auto again = pairhist_cmd("scattering " + shell_quote(run) + " --q-max 40 --nq 41");
  INFO(again.output);
  REQUIRE(again.status == 0);
  CHECK(read_all(run + "/intensity.csv") == written);
  CHECK(contains(written, "mean per frame"));
}

TEST_CASE("a --sphere run counts each frame's cut-out around the solute as the brute force does") {
  check_sphere_run(kCube);
}

TEST_CASE("the same in a rhombic dodecahedron (triclinic minimum image)") {
  check_sphere_run(kDodecahedron);
}

TEST_CASE("--sphere: no atom inside, or R beyond half the box, is one line naming the frame") {
  TempDir dir("sphere-errors");
  const std::string xyz = dir.file("system.xyz");
  write_system(xyz, kCube);
  const std::string base = "run " + shell_quote(xyz) + " --top " + shell_quote(xyz) +
                           " --ncpu 2 -q -o " + shell_quote(dir.file("run"));
  struct Case {
    std::string options, message;
  };
  const Case cases[] = {
      {species_options() + " --sphere C,1.6",
       "frame 0: sphere radius 1.6 nm exceeds half the shortest box vector (1.5 nm)"},
      {" --species O=O --sphere C,0.0001 --rmax 1",
       "frame 0: the sphere of radius 0.0001 nm around ("},
      {species_options() + " --sphere C,-1", "the radius '-1' is not a positive number"},
      {species_options() + " --sphere C", "expected SELECTION,R"},
  };
  for (const Case& c : cases) {
    const auto r = pairhist_cmd(base + c.options);
    CAPTURE(c.options);
    INFO(r.output);
    CHECK(r.status != 0);
    CHECK(contains(r.output, c.message));
    CHECK(r.output.find('\n') == r.output.size() - 1);  // one line
  }
}
