// Normalisation modes (rdf, density, none) and left-out pairs, against hand-computed values, and
// how the writers label them.
#include <doctest/doctest.h>
#include <hdf5.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "analysis/rdf.hpp"
#include "io/results/hdf5_writer.hpp"
#include "io/results/text_writers.hpp"
#include "pairhist/errors.hpp"
#include "pairhist/result.hpp"

using namespace pairhist;
namespace fs = std::filesystem;

namespace {

constexpr double kPi = 3.14159265358979323846;

/// A (3 atoms) and B (2 atoms), 2 frames of volumes 10 and 20, bins [0,1) and [1,2).
/// A-B: one atom in both species (a self pair per frame left out) and 2 excluded pairs, so
/// 3 * 2 - 1 - 2 = 3 pairs per frame, as A-A has (3 * 2 / 2).
HistogramResult hand_result(const std::string& norm) {
  HistogramResult res;
  res.species = {SpeciesInfo{"A", "index 1-3", 3}, SpeciesInfo{"B", "index 3-4", 2}};
  res.r_max = 2.0;
  res.nbins = 2;
  res.box_kind = "orthorhombic";
  res.norm = norm;
  res.exclude = "residue";
  res.pairs = {PairHistogram{0, 0, {3, 6}}, PairHistogram{0, 1, {4, 2}, 1, 2},
               PairHistogram{1, 1, {0, 2}}};
  res.frame_indices = {0, 1};
  res.frame_times = {0, 1};
  res.volumes = {10.0, 20.0};
  return res;
}

std::vector<double> curve(const HistogramResult& res, size_t pair) {
  return analysis::compute_rdf(res, res.pairs[pair]).g;
}

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

bool has_line(const std::vector<std::string>& lines, const std::string& want) {
  for (const auto& l : lines)
    if (l == want) return true;
  return false;
}

}  // namespace

TEST_CASE("pairs per frame leave out shared atoms' self pairs and excluded pairs") {
  const HistogramResult res = hand_result("rdf");
  CHECK(res.pairs_per_frame(res.pairs[0]) == 3);
  CHECK(res.pairs_per_frame(res.pairs[1]) == 3);
  CHECK(res.pairs_per_frame(res.pairs[2]) == 1);
}

TEST_CASE("norm rdf: <count> / (N_pairs * shell * <1/V>), N_pairs after left-out pairs") {
  // shells 4/3 pi and 28/3 pi; <1/V> = (1/10 + 1/20) / 2 = 0.075; N_pairs = 3 for A-A and A-B.
  const HistogramResult res = hand_result("rdf");
  const auto aa = curve(res, 0), ab = curve(res, 1);
  CHECK(aa[0] == doctest::Approx(1.5 / (3 * 4 * kPi / 3 * 0.075)));  // 5/pi
  CHECK(aa[0] == doctest::Approx(5 / kPi));
  CHECK(aa[1] == doctest::Approx(3 / (2.1 * kPi)));
  CHECK(ab[0] == doctest::Approx(2 / (0.3 * kPi)));
  CHECK(ab[1] == doctest::Approx(1 / (2.1 * kPi)));
}

TEST_CASE("norm density: MDAnalysis's count / (frames * shell), same species as ordered pairs") {
  HistogramResult res = hand_result("density");
  res.volumes.clear();  // needs no volume
  const auto aa = curve(res, 0), ab = curve(res, 1), bb = curve(res, 2);
  CHECK(aa[0] == doctest::Approx(9 / (4 * kPi)));    // 2 * 3/2 / (4/3 pi)
  CHECK(aa[1] == doctest::Approx(18 / (28 * kPi)));  // 2 * 6/2 / (28/3 pi)
  CHECK(ab[0] == doctest::Approx(1.5 / kPi));        // 4/2 / (4/3 pi)
  CHECK(ab[1] == doctest::Approx(3 / (28 * kPi)));   // 2/2 / (28/3 pi)
  CHECK(bb[1] == doctest::Approx(6 / (28 * kPi)));
  CHECK(analysis::can_normalise(res));
}

TEST_CASE("norm none: pairs per frame, same species as ordered pairs") {
  // Three atoms on a line at 0, 0.5 and 1.2 (no box): MDAnalysis's InterRDF(g, g, nbins=2,
  // range=(0, 2), norm='none', exclusion_block=(1, 1)) sees the ordered distances 0.5, 0.5, 0.7,
  // 0.7, 1.2, 1.2: 4 in bin 0 and 2 in bin 1. Our unique pairs are 2 and 1.
  HistogramResult res;
  res.species = {SpeciesInfo{"A", "all", 3}};
  res.r_max = 2.0;
  res.nbins = 2;
  res.norm = "none";
  res.pairs = {PairHistogram{0, 0, {2, 1}}};
  res.frame_indices = {0};
  CHECK(curve(res, 0) == std::vector<double>{4, 2});
  const HistogramResult two = hand_result("none");
  CHECK(curve(two, 0) == std::vector<double>{3, 6});
  CHECK(curve(two, 1) == std::vector<double>{2, 1});
}

TEST_CASE("norm names and errors") {
  CHECK(analysis::normalised_name("rdf") == "g");
  CHECK(analysis::normalised_name("density") == "density");
  CHECK(analysis::normalised_name("none") == "number");
  CHECK_THROWS_AS(analysis::check_norm("number_density"), UsageError);
  HistogramResult res = hand_result("rdf");
  res.volumes.clear();
  CHECK_FALSE(analysis::can_normalise(res));
  CHECK_THROWS_AS(analysis::compute_rdf(res, res.pairs[0]), UsageError);
}

TEST_CASE("block errors exist for every norm, per block as a run of its own") {
  HistogramResult res = hand_result("none");
  res.intervals = {IntervalBlock{0, 1, {{1, 2}, {4, 0}, {0, 0}}},
                   IntervalBlock{1, 2, {{2, 4}, {0, 2}, {0, 2}}}};
  // A-B none per block: {4, 0} and {0, 2}: standard error |a - b| / 2.
  const auto e = analysis::rdf_block_error(res, 1);
  REQUIRE(e.size() == 2);
  CHECK(e[0] == doctest::Approx(2.0));
  CHECK(e[1] == doctest::Approx(1.0));
  // A-A doubles: {2, 4} and {4, 8}.
  CHECK(analysis::rdf_block_error(res, 0)[1] == doctest::Approx(2.0));
}

TEST_CASE("writers name the mode: CSV columns, xvg labels, HDF5 metadata, raw counts kept") {
  const fs::path dir = fs::temp_directory_path() / ("pairhist-norm-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  HistogramResult res = hand_result("density");
  res.volumes.clear();
  res.box_kind = "none";
  const std::string csv = (dir / "rdf.csv").string(), xvg = (dir / "rdf.xvg").string(),
                    h5 = (dir / "p.h5").string();
  io::write_rdf_csv(csv, res);
  io::write_xvg(csv + ".xvg", res);
  io::write_hdf5(h5, res, "");
  const auto c = lines_of(csv);
  CHECK(has_line(c,
                 "r_nm,count_A-A,density_A-A,n_A-A,count_A-B,density_A-B,n_A-B,count_B-B,"
                 "density_B-B,n_B-B"));
  CHECK(has_line(c, "# excluded pairs: residue; A-B 2 per frame (+1 self pairs)"));
  const auto x = lines_of(csv + ".xvg");
  CHECK(has_line(x, "@    yaxis  label \"pair density (nm\\S-3\\N)\""));
  CHECK(has_line(x, "@    title \"Pair distances (norm density)\""));
  CHECK(has_line(x, "@ s1 legend \"density A-B\""));

  res.norm = "none";
  io::write_xvg(xvg, res);
  CHECK(has_line(lines_of(xvg), "@    yaxis  label \"pairs per frame\""));

  const hid_t f = H5Fopen(h5.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  CHECK(H5Lexists(f, "/pairhist/density", H5P_DEFAULT) > 0);
  CHECK(H5Lexists(f, "/pairhist/rdf", H5P_DEFAULT) == 0);
  CHECK(H5Lexists(f, "/pairhist/coordination", H5P_DEFAULT) > 0);
  auto scalar = [&](const char* path) {
    uint64_t v = 99;
    const hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
    REQUIRE(d >= 0);
    REQUIRE(H5Dread(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v) >= 0);
    H5Dclose(d);
    return v;
  };
  CHECK(scalar("/pairhist/excluded_pairs/A,B") == 2);
  CHECK(scalar("/pairhist/shared_atoms/A,B") == 1);
  CHECK(scalar("/pairhist/excluded_pairs/A,A") == 0);
  uint64_t counts[2] = {};
  const hid_t d = H5Dopen2(f, "/1/histograms/A,A", H5P_DEFAULT);
  REQUIRE(d >= 0);
  REQUIRE(H5Dread(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, counts) >= 0);
  CHECK(counts[0] == 3);  // raw, not doubled
  CHECK(counts[1] == 6);
  H5Dclose(d);
  for (const char* attr : {"norm", "exclude"}) {
    const hid_t a = H5Aopen_by_name(f, "/pairhist", attr, H5P_DEFAULT, H5P_DEFAULT);
    REQUIRE(a >= 0);
    const hid_t type = H5Aget_type(a);
    char* text = nullptr;
    REQUIRE(H5Aread(a, type, &text) >= 0);
    CHECK(std::string(text) == (std::string(attr) == "norm" ? "density" : "residue"));
    H5free_memory(text);
    H5Tclose(type);
    H5Aclose(a);
  }
  H5Fclose(f);
  fs::remove_all(dir);
}
