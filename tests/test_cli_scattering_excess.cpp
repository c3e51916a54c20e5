// `pairhist scattering SOLUTION --subtract SOLVENT`: the excess intensity of a solute in a
// random solvent cluster against the brute-force sum over the pairs that involve the solute,
// (sum f)^2 differences at q = 0, per-frame means (a trajectory of repeated frames subtracts
// to zero), runs in other length units; runs that do not subtract are one line each.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "analysis/scattering_debye.hpp"
#include "analysis/scattering_factors.hpp"
#include "io/scattering/scattering_hdf5.hpp"
#include "tests/scattering_csv.hpp"
#include "tests/test_support.hpp"

namespace {

using pairhist::analysis::builtin_scatterer;
using pairhist::analysis::Radiation;
using pairhist::test::contains;
using pairhist::test::pairhist_cmd;
using pairhist::test::shell_quote;
using pairhist::test::TempDir;

const std::string kData = pairhist::test::data_dir();

struct Atom {
  std::string element;
  double x, y, z;  // Angstrom, as written (%.6f)
};
using Frame = std::vector<Atom>;

/// Two frames of 40 O atoms (the solvent) in a 15 A cube, and the same frames with 3 Na and 3
/// Cl atoms added (the solution). Fresh every run; the seed is printed.
void make_frames(std::vector<Frame>& solvent, std::vector<Frame>& solution) {
  const uint64_t seed = std::random_device{}();
  std::printf("test_cli_scattering_excess: clusters from seed %llu\n",
              static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> cube(0, 15.0);
  char text[64];
  const auto atom = [&](const char* element) {
    Atom a{element, 0, 0, 0};
    for (double* c : {&a.x, &a.y, &a.z}) {
      std::snprintf(text, sizeof text, "%.6f", cube(rng));
      *c = std::stod(text);
    }
    return a;
  };
  for (int f = 0; f < 2; ++f) {
    Frame w;
    for (int i = 0; i < 40; ++i) w.push_back(atom("O"));
    solvent.push_back(w);
    for (const char* e : {"Na", "Na", "Na", "Cl", "Cl", "Cl"}) w.push_back(atom(e));
    solution.push_back(w);
  }
}

void write_xyz(const std::string& path, const std::vector<Frame>& frames) {
  std::string text;
  char line[128];
  for (const Frame& f : frames) {
    text += std::to_string(f.size()) + "\ncluster\n";
    for (const Atom& a : f) {
      std::snprintf(line, sizeof line, "%s %.6f %.6f %.6f\n", a.element.c_str(), a.x, a.y, a.z);
      text += line;
    }
  }
  pairhist::test::write_all(path, text);
}

/// `pairhist run` of `xyz` without a box, every pair within r_max (3 nm, 3000 bins).
void run_cluster(const std::string& xyz, const std::string& species, const std::string& out,
                 const std::string& extra = "--rmax 3") {
  const auto r =
      pairhist_cmd("run " + shell_quote(xyz) + " --top " + shell_quote(xyz) + " " + species + " " +
                   extra + " --nbins 3000 --precision double --ncpu 2 -q -o " + shell_quote(out));
  INFO(r.output);
  REQUIRE(r.status == 0);
}

double dist_nm(const Atom& a, const Atom& b) {
  return std::sqrt(std::pow(a.x - b.x, 2) + std::pow(a.y - b.y, 2) + std::pow(a.z - b.z, 2)) / 10;
}

}  // namespace

TEST_CASE("excess intensity: the solute's pairs by brute force, per-frame means, length units") {
  TempDir dir("scattering-excess");
  std::vector<Frame> solvent, solution;
  make_frames(solvent, solution);
  write_xyz(dir.file("solvent.xyz"), solvent);
  write_xyz(dir.file("solution.xyz"), solution);
  run_cluster(dir.file("solvent.xyz"), "--species O=O", dir.file("solvent"));
  run_cluster(dir.file("solution.xyz"), "--species O=O --species Na=Na --species Cl=Cl",
              dir.file("solution"));

  const std::string grid = " --q-max 40 --nq 81";
  const auto r = pairhist_cmd("scattering " + shell_quote(dir.file("solution")) + " --subtract " +
                              shell_quote(dir.file("solvent")) + grid);
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK(contains(r.output, "excess.csv"));
  std::string comments;
  auto excess = pairhist::test::read_scattering_csv(dir.file("solution/excess.csv"), &comments);
  CHECK(contains(comments, "dI(q) = I_solution(q) - I_solvent(q)"));
  CHECK(contains(comments, "# solvent: species O: 40 atoms of O"));
  CHECK(contains(comments, "# solution: species Na: 3 atoms of Na (topology elements)"));
  REQUIRE(pairhist_cmd("scattering " + shell_quote(dir.file("solution")) + grid).status == 0);
  auto alone = pairhist::test::read_scattering_csv(dir.file("solution/intensity.csv"));
  CHECK(excess["I_solution"] == alone["I"]);
  CHECK(excess["dI_Na-Cl"] == alone["I_Na-Cl"]);  // the solvent has no Na, Cl

  const Radiation xray = Radiation::xray;
  const double dr = 3.0 / 3000;
  for (size_t i = 0; i < excess["q_per_nm"].size(); ++i) {
    const double q = excess["q_per_nm"][i];
    CAPTURE(q);
    // Same O atoms, same O-O counts: nothing of O-O is left.
    CHECK(excess["dI_O-O"][i] == 0);
    CHECK(excess["dI"][i] == doctest::Approx(excess["I_solution"][i] - excess["I_solvent"][i])
                                 .epsilon(1e-9)
                                 .scale(std::abs(excess["I_solution"][i])));
    // The solute's self terms and every pair with a solute atom (m >= 40), per frame: what
    // the solution has and the solvent has not.
    double exact = 0, weight = 0;
    for (const Frame& f : solution) {
      for (size_t m = 40; m < f.size(); ++m) {
        const double fm = builtin_scatterer(f[m].element, xray)->at(q);
        exact += fm * fm;
        for (size_t n = 0; n < m; ++n) {
          const double fn = builtin_scatterer(f[n].element, xray)->at(q);
          exact += 2 * fm * fn * pairhist::analysis::sinc(q * dist_nm(f[m], f[n]));
          weight += 2 * std::abs(fm * fn);
        }
      }
    }
    exact /= 2;
    weight /= 2;
    CHECK(std::abs(excess["dI"][i] - exact) <= weight * 0.4362 * q * dr * 1.01 + 1e-9 * exact);
  }
  // At q = 0 each run's I is (sum f)^2.
  const double f_o = builtin_scatterer("O", xray)->at(0);
  const double f_s =
      3 * builtin_scatterer("Na", xray)->at(0) + 3 * builtin_scatterer("Cl", xray)->at(0);
  CHECK(excess["dI"][0] ==
        doctest::Approx(std::pow(40 * f_o + f_s, 2) - std::pow(40 * f_o, 2)).epsilon(1e-9));

  // The .h5: the three curves, both runs.
  const auto h5 = pairhist::io::read_scattering_hdf5(dir.file("solution/excess.h5"));
  CHECK(h5.quantity == "excess_intensity");
  CHECK(h5.runs == std::vector<std::string>{dir.file("solution") + "/pairhist.h5",
                                            dir.file("solvent") + "/pairhist.h5"});
  REQUIRE(h5.curves.size() == 3);
  CHECK((h5.curves[0].name == "dI" && h5.curves[1].name == "I_solution" &&
         h5.curves[2].name == "I_solvent"));
  CHECK(h5.curves[0].unit == "electrons^2 per frame");
  CHECK(h5.partials.size() == 6);

  // Intensities are per-frame means: the solvent's frames each twice subtract to nothing from
  // the solvent, its first frame alone does not.
  write_xyz(dir.file("twice.xyz"), {solvent[0], solvent[0], solvent[1], solvent[1]});
  run_cluster(dir.file("twice.xyz"), "--species O=O", dir.file("twice"));
  write_xyz(dir.file("first.xyz"), {solvent[0]});
  run_cluster(dir.file("first.xyz"), "--species O=O", dir.file("first"));
  // Angstrom: the same solvent counted in other units (the same bins, 30 A = 3 nm).
  run_cluster(dir.file("solvent.xyz"), "--species O=O", dir.file("angstrom"),
              "--units angstrom --rmax 30");
  for (const char* other : {"twice", "first", "angstrom"}) {
    CAPTURE(other);
    REQUIRE(pairhist_cmd("scattering " + shell_quote(dir.file("solvent")) + " --subtract " +
                         shell_quote(dir.file(other)) + grid + " --radiation neutron")
                .status == 0);
    auto d = pairhist::test::read_scattering_csv(dir.file("solvent/excess.csv"));
    double largest = 0;
    for (size_t i = 0; i < d["dI"].size(); ++i)
      largest = std::max(largest, std::abs(d["dI"][i]) / d["I_solution"][0]);
    if (std::string(other) == "first")
      CHECK(largest > 1e-6);
    else if (std::string(other) == "twice")
      CHECK(largest == 0);  // 2h / 4 frames is h / 2 frames, exactly
    else                    // a pair on a bin edge may land in the next bin in other units
      CHECK(largest < 1e-4);
  }
}

TEST_CASE("excess intensity: runs that do not subtract are one line each, nothing written") {
  TempDir dir("scattering-excess-bad");
  std::vector<Frame> solvent, solution;
  make_frames(solvent, solution);
  write_xyz(dir.file("solution.xyz"), solution);
  run_cluster(dir.file("solution.xyz"), "--species O=O --species Na=Na --species Cl=Cl",
              dir.file("solution"));
  run_cluster(dir.file("solution.xyz"), "--species O=O --species W=Na", dir.file("named-w"));
  run_cluster(dir.file("solution.xyz"), "--species O=Cl", dir.file("o-is-cl"));
  const std::string water = "run " + kData + "/spce_water.xtc --last 1 --top " + kData +
                            "/spce_water.gro --species O=OW --nbins 50 --ncpu 2 -q -o ";
  REQUIRE(pairhist_cmd(water + shell_quote(dir.file("water12")) + " --rmax 1.2").status == 0);
  REQUIRE(pairhist_cmd(water + shell_quote(dir.file("water10")) + " --rmax 1.0").status == 0);
  const struct {
    std::string solution, solvent, options;
    int status;
    std::string why;
  } cases[] = {
      {"solution", "named-w", "", 1, "the solvent's species W is not in the solution"},
      {"solution", "o-is-cl", "", 1,
       "species O scatters as O (International Tables"},  // ... but as Cl1- in the solvent
      {"water12", "solution", "", 1,
       "the solution's box is orthorhombic, the solvent's none: a periodic run's cut-sphere"},
      {"water12", "water10", "", 1, "r_max is 1.2 nm in the solution, 1 nm in the solvent"},
      {"water12", "water12", "--structure-factor", 2, "leave out --structure-factor"},
      {"solution", "nothing", "", 1, "nothing"},
      {"solution", "solution", "--element X=O", 2, "--element 'X=O': the run has no species 'X'"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.solvent);
    CAPTURE(c.options);
    const auto r = pairhist_cmd("scattering " + shell_quote(dir.file(c.solution)) + " --subtract " +
                                shell_quote(dir.file(c.solvent)) + " " + c.options + " -o " +
                                shell_quote(dir.file("out")));
    INFO(r.output);
    CHECK(r.status == c.status);
    CHECK(r.output.rfind("pairhist: error: ", 0) == 0);
    CHECK(contains(r.output, c.why));
    CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
    CHECK_FALSE(std::filesystem::exists(dir.file("out/excess.csv")));
  }
  // --element of a solute species applies to the solution only; the solvent has no Na.
  const auto r = pairhist_cmd("scattering " + shell_quote(dir.file("solution")) + " --subtract " +
                              shell_quote(dir.file("named-w")) + " --element W=Na -o " +
                              shell_quote(dir.file("out")));
  CHECK(r.status == 2);  // W is not in the solution: the run's own check speaks first
  CHECK(contains(r.output, "the run has no species 'W'"));
}
