// `pairhist run --rmin` (issue 39): bins over [r_min, r_max), closer pairs not counted, n(r)
// from r_min as MDAnalysis's range and freud's r_min; where r_min lies on an edge of the bins
// from 0, the same counts and g(r) there, bit for bit; the summary, rdf.csv and pairhist.h5 say
// where the bins start; bad values and scattering from such bins are refused.
#include <doctest/doctest.h>
#include <hdf5.h>

#include <cmath>
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
                           "/spce_water.gro --last 9 --species O=OW --species H=HW1,HW2 ";

bool has_rmin_attribute(const std::string& h5) {
  const hid_t f = H5Fopen(h5.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  const hid_t g = H5Gopen2(f, "/pairhist", H5P_DEFAULT);
  REQUIRE(g >= 0);
  const bool has = H5Aexists(g, "r_min") > 0;
  H5Gclose(g);
  H5Fclose(f);
  return has;
}

}  // namespace

TEST_CASE("run --rmin: the bins from r_min are the tail of the bins from 0") {
  CliScratch s("rmin");
  const CliResult all = s.run(kWater + "--rmax 1.0 --bin 0.01 -o " + s.file("all"));
  INFO(all.err);
  REQUIRE(all.status == 0);
  const CliResult tail = s.run(kWater + "--rmin 0.3 --rmax 1.0 --bin 0.01 -o " + s.file("tail"));
  INFO(tail.err);
  REQUIRE(tail.status == 0);
  CHECK(tail.out.find("70 bins from 0.3 to 1 nm (0.01 nm wide)") != std::string::npos);
  CHECK(tail.out.find("first bin     : from --rmin 0.3 nm") != std::string::npos);
  CHECK(!has_rmin_attribute(s.file("all") + "/pairhist.h5"));
  CHECK(has_rmin_attribute(s.file("tail") + "/pairhist.h5"));

  std::string comments;
  auto a = read_scattering_csv(s.file("all") + "/rdf.csv");
  auto t = read_scattering_csv(s.file("tail") + "/rdf.csv", &comments);
  CHECK(comments.find("70 bins from r_min = 0.3 up to r_max = 1 nm") != std::string::npos);
  REQUIRE(a["r_nm"].size() == 100);
  REQUIRE(t["r_nm"].size() == 70);
  CHECK(t["r_nm"].front() == doctest::Approx(0.305).epsilon(1e-12));
  CHECK(t["r_nm"].back() == doctest::Approx(0.995).epsilon(1e-12));
  for (const std::string pair : {"O-O", "O-H", "H-H"}) {
    CAPTURE(pair);
    const auto& ca = a["count_" + pair];
    const auto& ct = t["count_" + pair];
    const auto& ga = a["g_" + pair];
    const auto& gt = t["g_" + pair];
    const auto& na = a["n_" + pair];
    const auto& nt = t["n_" + pair];
    REQUIRE(ct.size() == 70);
    for (size_t k = 0; k < 70; ++k) {
      CAPTURE(k);
      REQUIRE(ct[k] == ca[k + 30]);  // counts bit for bit
      REQUIRE(gt[k] == doctest::Approx(ga[k + 30]).epsilon(1e-9));
      // n(r) from r_min: the coordination from 0 less that below r_min.
      REQUIRE(nt[k] == doctest::Approx(na[k + 30] - na[29]).epsilon(1e-6).scale(1));
    }
  }
}

TEST_CASE("run --rmin off the edges of the bins from 0, and its refusals") {
  CliScratch s("rmin-odd");
  const CliResult odd = s.run(kWater + "--rmin 0.3137 --rmax 0.9 --nbins 50 -o " + s.file("odd"));
  INFO(odd.err);
  REQUIRE(odd.status == 0);
  auto t = read_scattering_csv(s.file("odd") + "/rdf.csv");
  REQUIRE(t["r_nm"].size() == 50);
  const double width = (0.9 - 0.3137) / 50;
  CHECK(t["r_nm"].front() == doctest::Approx(0.3137 + width / 2).epsilon(1e-12));
  // Liquid water: O-O pairs from 0.31 nm on, the first shell's tail, then the second shell.
  double total = 0;
  for (double c : t["count_O-O"]) total += c;
  CHECK(total > 0);
  CHECK(t["n_O-O"].front() < 1);

  for (const std::string& bad : {std::string("--rmin 1.2 --rmax 1.0 --nbins 10"),
                                 std::string("--rmin -0.1 --rmax 1.0 --nbins 10"),
                                 std::string("--rmin nan --rmax 1.0 --nbins 10")}) {
    CAPTURE(bad);
    const CliResult r = s.run(kWater + bad + " -o " + s.file("bad"));
    CHECK(r.status == 2);
    CHECK(r.err.find("--rmin") != std::string::npos);
    CHECK(!std::filesystem::exists(s.file("bad")));
  }
  const CliResult sc =
      s.run(kWater + "--rmin 0.2 --rmax 0.9 --nbins 10 --scattering xray -o " + s.file("sc"));
  CHECK(sc.status == 2);
  CHECK(sc.err.find("--rmin would leave the closest out") != std::string::npos);
}
