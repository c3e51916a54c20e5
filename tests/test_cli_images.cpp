// `pairhist run` and `pairhist rdf` with r_max beyond half the box (the water sample's box is
// 1.86 nm): every periodic image counted, said in the summary; all pairs and cell lists count
// alike; g(r) of the liquid goes to 1 far beyond the box; --exclude residue takes out exactly the
// molecules' own pairs; below the limit nothing changes.
#include <doctest/doctest.h>

#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "tests/cli_runner.hpp"
#include "tests/scattering_csv.hpp"
#include "tests/test_support.hpp"

using pairhist::test::CliResult;
using pairhist::test::CliScratch;
using pairhist::test::read_scattering_csv;

namespace {

const std::string kData = pairhist::test::data_dir();
const std::string kWater = "run " + kData + "/spce_water.xtc --top " + kData +
                           "/spce_water.gro --last 4 --species O=OW --species H=HW1,HW2 ";
const std::string kImagesLine = "images        : every periodic image within r_max";

}  // namespace

TEST_CASE("run --rmax beyond half the box counts every image, alike with both algorithms") {
  CliScratch s("images");
  const CliResult all =
      s.run(kWater + "--rmax 2.5 --bin 0.05 --algorithm all-pairs -o " + s.file("all"));
  INFO(all.err);
  REQUIRE(all.status == 0);
  CHECK(all.out.find(kImagesLine) != std::string::npos);
  const CliResult cells =
      s.run(kWater + "--rmax 2.5 --bin 0.05 --algorithm cell-list -o " + s.file("cells"));
  INFO(cells.err);
  REQUIRE(cells.status == 0);
  auto a = read_scattering_csv(s.file("all") + "/rdf.csv");
  auto c = read_scattering_csv(s.file("cells") + "/rdf.csv");
  REQUIRE(a["r_nm"].size() == 50);
  for (const std::string pair : {"O-O", "O-H", "H-H"}) {
    CAPTURE(pair);
    CHECK(a["count_" + pair] == c["count_" + pair]);  // bit for bit
    // A liquid: g(r) -> 1 far beyond the minimum-image limit (0.93 nm), from 1.5 to 2.5 nm.
    const auto& g = a["g_" + pair];
    const double mean = std::accumulate(g.begin() + 30, g.end(), 0.0) / 20;
    CHECK(mean == doctest::Approx(1.0).epsilon(0.03));
  }
}

TEST_CASE("run --exclude residue with images: each molecule's own pairs, once, taken out") {
  CliScratch s("images-excl");
  const std::string common = kWater + "--rmax 2.0 --bin 0.04 ";
  const CliResult all = s.run(common + "-o " + s.file("all"));
  INFO(all.err);
  REQUIRE(all.status == 0);
  const CliResult excl = s.run(common + "--exclude residue -o " + s.file("excl"));
  INFO(excl.err);
  REQUIRE(excl.status == 0);
  auto a = read_scattering_csv(s.file("all") + "/rdf.csv");
  auto e = read_scattering_csv(s.file("excl") + "/rdf.csv");
  // SPC/E: O-H 0.1 nm, H-H 0.1633 nm within a molecule, every other pair beyond ~0.14 nm (O-H)
  // or ~0.2 nm (H-H) in the liquid. 884 waters, 5 frames: 2 O-H and 1 H-H pair each.
  const auto removed = [&](const std::string& pair, size_t upto) {
    double d = 0;
    for (size_t k = 0; k < a["count_" + pair].size(); ++k) {
      const double diff = a["count_" + pair][k] - e["count_" + pair][k];
      CHECK(diff >= 0);
      if (k >= upto) CHECK(diff == 0);  // images of a molecule are other molecules
      d += diff;
    }
    return d;
  };
  const double waters = 884;
  CHECK(removed("O-H", 3) == 2 * waters * 5);
  CHECK(removed("H-H", 5) == waters * 5);
  CHECK(removed("O-O", 0) == 0);
}

TEST_CASE("below the minimum-image limit a run is counted as before, without images") {
  CliScratch s("images-below");
  const CliResult r = s.run(kWater + "--rmax 0.9 --bin 0.05 -o " + s.file("below"));
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find(kImagesLine) == std::string::npos);
}

TEST_CASE("rdf -rmax beyond half the box counts every image too") {
  CliScratch s("images-rdf");
  const auto r = pairhist::test::pairhist_cmd("rdf -f " + kData + "/spce_water.xtc -s " + kData +
                                              "/spce_water.gro -e 1.2 -ref OW -sel OW -rmax 2.0 "
                                              "-bin 0.05 -o " +
                                              s.file("rdf.xvg") + " 2>&1");
  INFO(r.output);
  REQUIRE(r.status == 0);
  const std::string xvg = CliScratch::slurp(s.file("rdf.xvg"));
  // The last row (gmx rdf: r = 1.95 nm), beyond the minimum-image limit of 1.5 nm: g close to 1.
  const size_t last = xvg.rfind("1.950");
  REQUIRE(last != std::string::npos);
  const double g = std::stod(xvg.substr(xvg.find_first_of(" \t", last)));
  CHECK(g == doctest::Approx(1.0).epsilon(0.08));
}
