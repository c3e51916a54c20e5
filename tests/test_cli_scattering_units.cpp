// `pairhist scattering` and `run --scattering` with other form factors and units: q in 1/A,
// intensities per molecule and in 1/cm, Waasmaier-Kirfel, the free H atom and MAFF on the water
// sample, against the default run's numbers and hand computations; the refusals.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "analysis/scattering_factors.hpp"
#include "io/scattering/q_table_reader.hpp"
#include "io/scattering/scattering_hdf5.hpp"
#include "tests/scattering_csv.hpp"
#include "tests/test_support.hpp"

namespace {

using pairhist::test::contains;
using pairhist::test::pairhist_cmd;
using pairhist::test::read_all;
using pairhist::test::shell_quote;
using pairhist::test::TempDir;
using Columns = std::map<std::string, std::vector<double>>;

const std::string kData = pairhist::test::data_dir();

/// The first 5 frames of the water sample, O and H (residue SOL), 240 bins to 1.2 nm.
const std::string& water_run() {
  static const std::unique_ptr<TempDir> dir = [] {
    auto d = std::make_unique<TempDir>("scattering-units");
    const auto r =
        pairhist_cmd("run " + kData + "/spce_water.xtc --top " + kData +
                     "/spce_water.gro --species O=OW --species H=HW1,HW2 --rmax 1.2 " +
                     "--nbins 240 --last 4 --ncpu 2 -q -o " + shell_quote(d->file("run")));
    INFO(r.output);
    REQUIRE(r.status == 0);
    return d;
  }();
  static const std::string path = dir->file("run");
  return path;
}

/// `pairhist scattering RUN ARGS -o OUT` (status 0 required) and its intensity.csv (or STEM):
/// the water run is periodic, so its Debye intensity is asked for (--cut-sphere-intensity).
Columns scattering(const std::string& args, const std::string& out, std::string* comments = nullptr,
                   const std::string& stem = "intensity") {
  const std::string which = stem == "intensity" ? " --cut-sphere-intensity" : "";
  const auto r = pairhist_cmd("scattering " + shell_quote(water_run()) + " " + args + which +
                              " --overwrite -o " + shell_quote(out));
  INFO(args << "\n" << r.output);
  REQUIRE(r.status == 0);
  return pairhist::test::read_scattering_csv(out + "/" + stem + ".csv", comments);
}

void check_close(const std::vector<double>& got, const std::vector<double>& want, double rel) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(std::abs(got[i] - want[i]) <= rel * std::abs(want[i]) + 1e-300);
  }
}

}  // namespace

TEST_CASE("q in 1/A: every row is the 1/nm run's q / 10 with the same intensities") {
  TempDir dir("scattering-units-q");
  std::string nm_comments, a_comments;
  const Columns nm = scattering("--q-max 40 --nq 81", dir.file("nm"), &nm_comments);
  const Columns a = scattering("--q-unit A --q-max 4 --nq 81", dir.file("a"), &a_comments);
  REQUIRE(a.count("q_per_A") == 1);
  CHECK(a.count("q_per_nm") == 0);
  std::vector<double> tenth;
  for (double q : nm.at("q_per_nm")) tenth.push_back(q / 10);
  check_close(a.at("q_per_A"), tenth, 1e-12);
  for (const char* column : {"I", "I_O-O", "I_O-H", "I_H-H", "f_O", "f_H"}) {
    CAPTURE(column);
    check_close(a.at(column), nm.at(column), 1e-9);
  }
  CHECK(!contains(nm_comments, "units:"));
  CHECK(contains(nm_comments, "# q in 1/nm (4 pi sin(theta) / lambda)"));
  CHECK(contains(a_comments, "# q in 1/A (4 pi sin(theta) / lambda)"));
  CHECK(contains(a_comments, "# units: q in 1/A\n"));
  CHECK(
      contains(read_all(dir.file("a") + "/intensity.xvg"), "xaxis  label \"q (\\cE\\C\\S-1\\N)\""));
  const auto h5 = pairhist::io::read_scattering_hdf5(dir.file("a") + "/intensity.h5");
  CHECK(h5.q_unit == "1/A");
  CHECK(h5.q.back() == 4.0);
  CHECK(pairhist::io::read_scattering_hdf5(dir.file("nm") + "/intensity.h5").q_unit == "1/nm");
  // `pairhist plot` reads it back with its unit.
  REQUIRE(pairhist::io::is_q_table_csv(dir.file("a") + "/intensity.csv"));
  const auto table = pairhist::io::read_q_table_csv(dir.file("a") + "/intensity.csv");
  CHECK(table.q_unit == "A");
  CHECK(table.q == a.at("q_per_A"));
  CHECK(pairhist::io::read_q_table_csv(dir.file("nm") + "/intensity.csv").q_unit == "nm");
  // S(q) too; a q file is read in the unit.
  pairhist::test::write_all(dir.file("q.txt"), "0.5\n1.0\n2.0\n");
  const Columns sq = scattering("--q-unit angstrom --q-file " + shell_quote(dir.file("q.txt")) +
                                    " --structure-factor --window none",
                                dir.file("sq"), nullptr, "sq");
  const Columns sq_nm = scattering("--q-max 20 --nq 5 --structure-factor --window none",
                                   dir.file("sqnm"), nullptr, "sq");
  CHECK(sq.at("q_per_A") == std::vector<double>{0.5, 1.0, 2.0});
  CHECK(sq.at("S")[0] == doctest::Approx(sq_nm.at("S")[1]).epsilon(1e-9));
  CHECK(sq.at("S")[2] == doctest::Approx(sq_nm.at("S")[4]).epsilon(1e-9));
}

TEST_CASE("intensities per molecule and in 1/cm against a hand computation") {
  TempDir dir("scattering-units-abs");
  const Columns frame = scattering("--q-max 30 --nq 31", dir.file("frame"));
  std::string per_comments, abs_comments;
  const Columns per =
      scattering("--q-max 30 --nq 31 --per molecule --molecules 4", dir.file("per"), &per_comments);
  const Columns abs = scattering("--q-max 30 --nq 31 --concentration 0.002 --molecules 2",
                                 dir.file("abs"), &abs_comments);
  const Columns dens =
      scattering("--q-max 30 --nq 31 --number-density 0.003 --radiation neutron", dir.file("dens"));
  const Columns neutron = scattering("--q-max 30 --nq 31 --radiation neutron", dir.file("n"));
  // By hand: r_e^2 = (2.8179403262e-13 cm)^2; 0.002 mol/L = 0.002 x 6.02214076e23 / 1000 per cm^3.
  const double re2 = 2.8179403262e-13 * 2.8179403262e-13;
  const double n_abs = 0.002 * 6.02214076e23 / 1000;
  for (const char* column : {"I", "I_O-O", "I_O-H", "I_H-H"}) {
    CAPTURE(column);
    std::vector<double> quarter, absolute, neutron_abs;
    for (double v : frame.at(column)) quarter.push_back(v / 4);
    for (double v : frame.at(column)) absolute.push_back(v / 2 * re2 * n_abs);
    for (double v : neutron.at(column)) neutron_abs.push_back(v * 1e-26 * 0.003e21);
    check_close(per.at(column), quarter, 1e-9);
    check_close(abs.at(column), absolute, 1e-9);
    check_close(dens.at(column), neutron_abs, 1e-9);
  }
  CHECK(abs.at("f_O") == frame.at("f_O"));  // weights stay electrons
  CHECK(contains(per_comments, "# units: q in 1/nm; I per solute molecule in electrons^2"));
  CHECK(contains(abs_comments, "# units: q in 1/nm; I in 1/cm (absolute"));
  CHECK(contains(abs_comments, "I(q) in the unit below"));
  CHECK(!contains(abs_comments, "I(q) per frame in electrons^2"));
  const auto h5 = pairhist::io::read_scattering_hdf5(dir.file("abs") + "/intensity.h5");
  CHECK(h5.curves.at(0).unit == "1/cm");
  CHECK(h5.option("intensity_unit") == "1/cm");
  CHECK(h5.option("concentration_mol_per_L") == "0.002");
  CHECK(pairhist::io::read_scattering_hdf5(dir.file("per") + "/intensity.h5").curves.at(0).unit ==
        "electrons^2 per molecule");
}

TEST_CASE("Waasmaier-Kirfel, the free H atom and MAFF on the water sample") {
  using namespace pairhist::analysis;
  TempDir dir("scattering-units-factors");
  std::string wk_comments, maff_comments;
  const Columns itc = scattering("--q-max 60 --nq 61", dir.file("itc"));
  const Columns wk =
      scattering("--q-max 60 --nq 61 --form-factors wk", dir.file("wk"), &wk_comments);
  const Columns free_h = scattering("--q-max 60 --nq 61 --hydrogen isolated", dir.file("free"));
  const Columns maff =
      scattering("--q-max 60 --nq 61 --water-factors maff", dir.file("maff"), &maff_comments);
  const Columns named = scattering("--q-max 60 --nq 61 --maff O,H", dir.file("named"));
  const std::vector<double>& q = itc.at("q_per_nm");
  for (size_t i = 0; i < q.size(); ++i) {
    CAPTURE(q[i]);
    const double q_a = q[i] / 10, gauss = std::exp(-q_a * q_a / (2 * 2.2 * 2.2));
    CHECK(wk.at("f_O")[i] ==
          doctest::Approx(
              builtin_scatterer("O", Radiation::xray, {FormFactorSet::wk, HydrogenModel::bonded})
                  ->at(q[i]))
              .epsilon(1e-9));
    CHECK(std::abs(wk.at("f_O")[i] / itc.at("f_O")[i] - 1) < 0.005);
    CHECK(wk.at("f_H")[i] == itc.at("f_H")[i]);
    CHECK(
        free_h.at("f_H")[i] ==
        doctest::Approx(1 / std::pow(1 + std::pow(q_a * 0.529177210903 / 2, 2), 2)).epsilon(1e-9));
    CHECK(maff.at("f_O")[i] ==
          doctest::Approx(itc.at("f_O")[i] * (1 + 0.12 * gauss)).epsilon(1e-9));
    CHECK(maff.at("f_H")[i] ==
          doctest::Approx(itc.at("f_H")[i] * (1 - 0.48 * gauss)).epsilon(1e-9));
    CHECK(named.at("f_O")[i] == maff.at("f_O")[i]);
    // The intensity re-weights with the partials (docs/scattering.md): the same pair sums.
    const double fo = maff.at("f_O")[i] / itc.at("f_O")[i],
                 fh = maff.at("f_H")[i] / itc.at("f_H")[i];
    CHECK(maff.at("I")[i] ==
          doctest::Approx(itc.at("I_O-O")[i] * fo * fo + itc.at("I_O-H")[i] * fo * fh +
                          itc.at("I_H-H")[i] * fh * fh)
              .epsilon(1e-8));
  }
  CHECK(contains(wk_comments, "from Waasmaier & Kirfel 1995 (Acta Cryst. A51, 416)"));
  // A --table row of W-K's 11 numbers (a1..a5 b1..b5 c) is their O; 10 numbers are refused.
  pairhist::test::write_all(dir.file("wk.txt"),
                            "O 2.960427 2.508818 0.637853 0.722838 1.142756 14.182259 5.936858 "
                            "0.112726 34.958481 0.390240 0.027014\n");
  const Columns table = scattering("--q-max 60 --nq 61 --table " + shell_quote(dir.file("wk.txt")),
                                   dir.file("table"));
  check_close(table.at("f_O"), wk.at("f_O"), 1e-9);
  pairhist::test::write_all(dir.file("ten.txt"), "O 1 2 3 4 5 6 7 8 9 10\n");
  const auto ten =
      pairhist_cmd("scattering " + shell_quote(water_run()) + " --table " +
                   shell_quote(dir.file("ten.txt")) + " -o " + shell_quote(dir.file("ten")));
  CHECK(ten.status == 1);
  CHECK(contains(ten.output, "ten.txt line 1: 10 numbers after 'O': expected 1"));
  CHECK(contains(maff_comments, "MAFF alpha -0.48 (Sorenson et al. 2000)"));
  CHECK(
      pairhist::io::read_scattering_hdf5(dir.file("wk") + "/intensity.h5").option("form_factors") ==
      "wk");
}

TEST_CASE("run --scattering writes what the command writes in the units asked for") {
  TempDir dir("scattering-units-run");
  const std::string opts =
      "--q-unit A --q-max 3 --nq 31 --form-factors wk --water-factors maff "
      "--per molecule --molecules 2 --cut-sphere-intensity";
  const auto r = pairhist_cmd("run " + kData + "/spce_water.xtc --top " + kData +
                              "/spce_water.gro --species O=OW --species H=HW1,HW2 --rmax 1.2 " +
                              "--nbins 240 --last 4 --ncpu 2 -q --scattering xray " + opts +
                              " -o " + shell_quote(dir.file("run")));
  INFO(r.output);
  REQUIRE(r.status == 0);
  const auto c = pairhist_cmd("scattering " + shell_quote(dir.file("run")) + " " + opts + " -o " +
                              shell_quote(dir.file("cmd")));
  INFO(c.output);
  REQUIRE(c.status == 0);
  for (const char* file : {"intensity.csv", "intensity.xvg", "intensity.h5"}) {
    CAPTURE(file);
    CHECK(read_all(dir.file("run") + "/" + file) == read_all(dir.file("cmd") + "/" + file));
  }
}

TEST_CASE("unit and form factor options that cannot be: one line each, nothing written") {
  TempDir dir("scattering-units-bad");
  const struct {
    std::string args, says;
    int status;
  } cases[] = {
      {"--q-unit furlong", "--q-unit must be nm or angstrom (A), got 'furlong'", 2},
      {"--form-factors wk95", "--form-factors must be itc", 2},
      {"--hydrogen free", "--hydrogen must be bonded or isolated", 2},
      {"--water-factors tip4p", "--water-factors must be standard or maff", 2},
      {"--radiation neutron --form-factors wk", "--form-factors changes X-ray form factors only",
       2},
      {"--radiation neutron --maff O", "--maff changes X-ray form factors only", 2},
      {"--maff Q", "--maff 'Q': the run has no species 'Q'", 2},
      {"--per molecule", "--per molecule needs --molecules N", 2},
      {"--per atom --molecules 1", "--per must be frame or molecule", 2},
      {"--molecules 3", "--molecules goes with --per molecule, --concentration or", 2},
      {"--concentration 1 --number-density 1 --molecules 1", "say the same: give one", 2},
      {"--concentration -1 --molecules 1", "--concentration must be a positive number", 2},
      {"--structure-factor --concentration 1 --molecules 1", "S(q) and F(q) are per atom", 2},
      {"--q-unit A --q-max 26", "q up to 260/nm: the X-ray form factor fits hold", 2},
  };
  for (const auto& c : cases) {
    CAPTURE(c.args);
    const auto r = pairhist_cmd("scattering " + shell_quote(water_run()) + " " + c.args + " -o " +
                                shell_quote(dir.file("out")));
    CHECK(r.status == c.status);
    CHECK(contains(r.output, c.says));
    CHECK(contains(r.output, "pairhist: error: "));
    CHECK(!std::filesystem::exists(dir.file("out") + "/intensity.csv"));
  }
  // A run without water residues: --water-factors maff finds no species.
  pairhist::test::write_all(dir.file("two.xyz"), "2\nx\nO 0 0 0\nO 1.5 0 0\n");
  REQUIRE(pairhist_cmd("run " + shell_quote(dir.file("two.xyz")) + " --top " +
                       shell_quote(dir.file("two.xyz")) + " --species O=O --rmax 5 --nbins 10 " +
                       "--ncpu 2 -q -o " + shell_quote(dir.file("two")))
              .status == 0);
  const auto r =
      pairhist_cmd("scattering " + shell_quote(dir.file("two")) + " --water-factors maff");
  CHECK(r.status == 2);
  CHECK(contains(r.output, "--water-factors maff: no species is the O or H of water"));
}
