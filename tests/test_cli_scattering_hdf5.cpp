// The HDF5 output of `pairhist scattering` and `run --scattering` (intensity.h5, sq.h5): read
// back, it holds the CSV's columns (to the CSV's 10 digits, the .h5 holding all 17), its header,
// units and every species' scatterer; a written file reads back bit for bit; bad files are one
// line naming the file.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "io/scattering/scattering_hdf5.hpp"
#include "pairhist/errors.hpp"
#include "tests/scattering_csv.hpp"
#include "tests/test_support.hpp"

namespace {

using pairhist::io::read_scattering_hdf5;
using pairhist::io::ScatteringData;
using pairhist::test::contains;
using pairhist::test::pairhist_cmd;
using pairhist::test::shell_quote;
using pairhist::test::TempDir;

const std::string kData = pairhist::test::data_dir();

/// `a` (from the .h5) printed with 10 significant digits is `b` (from the CSV).
bool csv_equal(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!(std::abs(a[i] - b[i]) <= 5.01e-10 * std::abs(a[i]))) return false;
  return true;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

/// Every column of `stem`.csv in `dir` against `stem`.h5: q, the curves, the partials, the
/// weights, the header lines.
ScatteringData check_against_csv(const std::string& dir, const std::string& stem,
                                 const std::string& partial_prefix) {
  CAPTURE(stem);
  std::string comments;
  auto csv = pairhist::test::read_scattering_csv(dir + "/" + stem + ".csv", &comments);
  const ScatteringData d = read_scattering_hdf5(dir + "/" + stem + ".h5");
  CHECK(csv_equal(d.q, csv["q_per_nm"]));
  size_t columns = 1;
  for (const auto& c : d.curves) {
    CAPTURE(c.name);
    CHECK(csv_equal(c.values, csv[c.name]));
    ++columns;
  }
  for (const auto& p : d.partials) {
    CAPTURE(p.a + "-" + p.b);
    CHECK(csv_equal(p.values, csv[partial_prefix + p.a + "-" + p.b]));
    ++columns;
  }
  for (const auto& s : d.species) {
    CAPTURE(s.name);
    CHECK(csv_equal(s.weight, csv["f_" + s.name]));
    CHECK(contains(comments, " atoms of " + s.scatterer + " (" + s.origin + ")"));
    CHECK(contains(comments, " from " + s.source + "\n"));
    ++columns;
  }
  CHECK(columns == csv.size());  // nothing of the CSV missing from the .h5
  std::string header;
  for (const std::string& line : d.header) header += "# " + line + "\n";
  CHECK(header == comments);
  return d;
}

}  // namespace

TEST_CASE("scattering .h5: the CSV's columns, header, units and scatterers, read back") {
  TempDir dir("scattering-hdf5");
  const std::string run = dir.file("run");
  const auto ran = pairhist_cmd(
      "run " + kData + "/spce_water.xtc --last 9 --top " + kData +
      "/spce_water.gro --species O=OW --species H=HW1,HW2 --rmax 1.2 --nbins 240 --ncpu 2 -q " +
      "-o " + shell_quote(run) +
      " --scattering neutron --deuterate 1 --element O=O --cut-sphere-intensity --nq 101");
  INFO(ran.output);
  REQUIRE(ran.status == 0);

  const ScatteringData i = check_against_csv(run, "intensity", "I_");
  CHECK(i.quantity == "intensity");
  CHECK(i.radiation == "neutron");
  CHECK(i.weight_unit == "fm");
  REQUIRE(i.curves.size() == 1);
  CHECK(i.curves[0].name == "I");
  CHECK(i.curves[0].unit == "fm^2 per frame");
  CHECK(i.option("within_bin") == "exact");
  CHECK(i.option("precision") == "double");
  CHECK(i.runs == std::vector<std::string>{run + "/pairhist.h5"});
  CHECK(i.n_frames == 10);
  CHECK(i.complete);
  REQUIRE(i.species.size() == 2);
  CHECK(i.species[0].name == "O");
  CHECK(i.species[0].atoms == 884);
  CHECK(i.species[0].origin == "set by --element");
  CHECK(i.species[1].scatterer == "H");
  CHECK(i.species[1].deuterium == 1);
  CHECK(i.species[1].weight[0] == doctest::Approx(6.671));
  // The partials in the run's order, summing to I.
  REQUIRE(i.partials.size() == 3);
  CHECK((i.partials[1].a == "O" && i.partials[1].b == "H"));
  for (size_t k = 0; k < i.q.size(); ++k)
    CHECK(i.partials[0].values[k] + i.partials[1].values[k] + i.partials[2].values[k] ==
          doctest::Approx(i.curves[0].values[k]).epsilon(1e-12));

  const ScatteringData s = check_against_csv(run, "sq", "S_");
  CHECK(s.quantity == "structure_factor");
  REQUIRE(s.curves.size() == 2);
  CHECK((s.curves[0].name == "S" && s.curves[0].unit == "1"));
  CHECK((s.curves[1].name == "F" && s.curves[1].unit == "fm^2 per atom"));
  CHECK(s.option("window") == "lorch");
  // As the header prints it (10 digits).
  bool density_said = false;
  for (const std::string& line : s.header)
    if (line.rfind("density rho = N <1/V> = ", 0) == 0)
      density_said = std::abs(std::stod(line.substr(24)) - s.density) <= 5.01e-10 * s.density;
  CHECK(density_said);
  CHECK(s.species[0].concentration == doctest::Approx(1.0 / 3));

  // X-rays, by the command on the same run: the units say electrons.
  REQUIRE(pairhist_cmd("scattering " + shell_quote(run) + " --cut-sphere-intensity -o " +
                       shell_quote(dir.file("x")))
              .status == 0);
  const ScatteringData x = check_against_csv(dir.file("x"), "intensity", "I_");
  CHECK(x.radiation == "xray");
  CHECK(x.weight_unit == "electrons");
  CHECK(x.curves[0].unit == "electrons^2 per frame");
  CHECK(std::isnan(x.species[0].concentration));
}

TEST_CASE("scattering .h5: what is written reads back bit for bit") {
  TempDir dir("scattering-hdf5-roundtrip");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  ScatteringData d;
  d.quantity = "structure_factor";
  d.radiation = "neutron";
  d.weight_unit = "fm";
  d.runs = {"a/pairhist.h5", "b/pairhist.h5"};
  d.options = {{"within_bin", "centre"}, {"window", "none"}};
  d.n_frames = 7;
  d.complete = false;
  d.stopped_by = "x.xtc: frame 8: truncated";
  d.density = 33.25;
  d.header = {"first line", "", "a line with \"quotes\" and \xc3\xa5"};
  d.q = {0, 0.1, 1e-300, 7};
  d.curves = {{"S", "1", {nan, -0.0, 1e300, 4.9e-324}}, {"F", "fm^2 per atom", {1, 2, 3, 4}}};
  // Members in an order that is not the names': the file keeps the order written.
  d.partials = {
      {"Zn", "Zn", {1, 2, 3, 4}}, {"Zn", "A-b", {5, 6, 7, 8}}, {"A-b", "A-b", {0, 0, 0, 0}}};
  d.species = {{"Zn", "Zn2+", "monatomic ion", "table", 3, 0, 0.25, {5.68, 5.68, 5.68, 5.68}},
               {"A-b", "H", "guessed", "own.txt", 12, 0.5, 0.75, {1, 1, 1, 1}}};
  const std::string path = dir.file("out.h5");
  pairhist::io::write_scattering_hdf5(path, d);
  const ScatteringData r = read_scattering_hdf5(path);
  CHECK(r.quantity == d.quantity);
  CHECK(r.radiation == d.radiation);
  CHECK(r.weight_unit == d.weight_unit);
  CHECK(r.runs == d.runs);
  CHECK(r.options == d.options);
  CHECK(r.n_frames == 7);
  CHECK_FALSE(r.complete);
  CHECK(r.stopped_by == d.stopped_by);
  CHECK(r.density == 33.25);
  CHECK(r.header == d.header);
  CHECK(same_bits(r.q, d.q));
  REQUIRE(r.curves.size() == 2);
  for (size_t c = 0; c < 2; ++c) {
    CHECK(r.curves[c].name == d.curves[c].name);
    CHECK(r.curves[c].unit == d.curves[c].unit);
    CHECK(same_bits(r.curves[c].values, d.curves[c].values));
  }
  REQUIRE(r.partials.size() == 3);
  for (size_t p = 0; p < 3; ++p) {
    CHECK(r.partials[p].a == d.partials[p].a);
    CHECK(r.partials[p].b == d.partials[p].b);
    CHECK(same_bits(r.partials[p].values, d.partials[p].values));
  }
  REQUIRE(r.species.size() == 2);
  for (size_t s = 0; s < 2; ++s) {
    CHECK(r.species[s].name == d.species[s].name);
    CHECK(r.species[s].scatterer == d.species[s].scatterer);
    CHECK(r.species[s].origin == d.species[s].origin);
    CHECK(r.species[s].source == d.species[s].source);
    CHECK(r.species[s].atoms == d.species[s].atoms);
    CHECK(r.species[s].deuterium == d.species[s].deuterium);
    CHECK(r.species[s].concentration == d.species[s].concentration);
    CHECK(same_bits(r.species[s].weight, d.species[s].weight));
  }
  // The same data, the same bytes (no modification times).
  pairhist::io::write_scattering_hdf5(dir.file("again.h5"), d);
  CHECK(pairhist::test::read_all(path) == pairhist::test::read_all(dir.file("again.h5")));

  // Curves of the wrong length and names HDF5 cannot hold are refused before any file exists.
  ScatteringData bad = d;
  bad.curves[1].values.pop_back();
  CHECK_THROWS_AS(pairhist::io::write_scattering_hdf5(dir.file("bad.h5"), bad), std::logic_error);
  bad = d;
  bad.species[1].name = "a/b";
  CHECK_THROWS_AS(pairhist::io::write_scattering_hdf5(dir.file("bad.h5"), bad),
                  pairhist::UsageError);
  CHECK_FALSE(std::filesystem::exists(dir.file("bad.h5")));
}

TEST_CASE("scattering .h5: files that are not one are one line naming the file") {
  TempDir dir("scattering-hdf5-bad");
  const std::string run = dir.file("run");
  REQUIRE(pairhist_cmd("run " + kData + "/spce_water.xtc --last 1 --top " + kData +
                       "/spce_water.gro --species O=OW --rmax 1 --nbins 10 --ncpu 2 -q -o " +
                       shell_quote(run) + " --scattering xray --cut-sphere-intensity --nq 11")
              .status == 0);
  pairhist::test::write_all(dir.file("text.h5"), "not HDF5\n");
  const std::string whole = pairhist::test::read_all(run + "/intensity.h5");
  pairhist::test::write_all(dir.file("cut.h5"), whole.substr(0, whole.size() / 2));
  const struct {
    std::string path, why;
  } cases[] = {
      {dir.file("none.h5"), "not an HDF5 file (or no such file)"},
      {dir.file("text.h5"), "not an HDF5 file"},
      {run + "/pairhist.h5", "not a pairhist scattering file"},
      {dir.file("cut.h5"), ""},
  };
  for (const auto& c : cases) {
    CAPTURE(c.path);
    try {
      read_scattering_hdf5(c.path);
      FAIL("no error");
    } catch (const pairhist::InputError& e) {
      const std::string what = e.what();
      CHECK(what.rfind("cannot read '" + c.path + "': ", 0) == 0);
      CHECK(contains(what, c.why));
      CHECK(what.find('\n') == std::string::npos);
    }
  }
  CHECK(pairhist::io::is_scattering_hdf5(run + "/intensity.h5"));
  CHECK_FALSE(pairhist::io::is_scattering_hdf5(run + "/pairhist.h5"));
}
