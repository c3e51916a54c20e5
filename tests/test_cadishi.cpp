// CadishiReader against CADISHI-layout files written by h5py (data/fixtures/cadishi_*.h5, made by
// scripts/make-reader-fixtures.sh; boxes from MDAnalysis's triclinic_vectors of the stored
// dimensions), the CadishiWriter round trip, and broken files.
#include <doctest/doctest.h>
#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

#include "io/topology/topology_reader.hpp"
#include "io/trajectory/cadishi_input.hpp"
#include "io/trajectory/cadishi_writer.hpp"
#include "io/trajectory/trajectory_reader.hpp"
#include "io/trajectory/unit_cell.hpp"
#include "pairhist/errors.hpp"
#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using pairhist::io::CadishiReader;
using pairhist::io::TrajectoryFrame;
using pairhist::test::contains;
using pairhist::test::fixture;
using pairhist::test::input_error_of;
using pairhist::test::read_reference;

namespace {

void check_against_reference(const std::string& path, const std::string& ref_path,
                             const std::vector<int64_t>& numbers) {
  const auto ref = read_reference(ref_path);
  auto reader = pairhist::io::open_trajectory(path);  // .h5 by content, as `run` opens it
  REQUIRE(reader->natoms() * 3 == static_cast<int>(ref[0].xyz.size()));
  TrajectoryFrame frame;
  for (size_t f = 0; f < ref.size(); ++f) {
    CAPTURE(f);
    REQUIRE(reader->next(frame));
    CHECK(frame.step == numbers[f]);
    for (int k = 0; k < 9; ++k) {
      CAPTURE(k);
      CHECK(std::fabs(frame.box[k] - ref[f].box[k] * 0.1) <= 2e-6);
    }
    double worst = 0;
    for (size_t i = 0; i < frame.xyz.size(); ++i)
      worst = std::max(worst, std::fabs(frame.xyz[i] - ref[f].xyz[i] * 0.1));
    CHECK(worst <= 2e-7 * 4);
  }
  CHECK_FALSE(reader->next(frame));
}

// A minimal CADISHI file: frames named `numbers`, species and counts per frame.
void write_file(
    const std::string& path,
    const std::vector<std::pair<std::string, std::vector<std::pair<std::string, int>>>>& frames,
    const double* dims = nullptr, int ndims = 0) {
  hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  REQUIRE(f >= 0);
  for (const auto& [name, species] : frames) {
    hid_t g = H5Gcreate2(f, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t c = H5Gcreate2(g, "coordinates", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    for (const auto& [s, n] : species) {
      std::vector<double> xyz(3 * static_cast<size_t>(n), 1.0);
      const hsize_t d[2] = {static_cast<hsize_t>(n), 3};
      hid_t space = H5Screate_simple(2, d, nullptr);
      hid_t set =
          H5Dcreate2(c, s.c_str(), H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, xyz.data());
      H5Dclose(set);
      H5Sclose(space);
    }
    if (dims != nullptr) {
      const hsize_t d = static_cast<hsize_t>(ndims);
      hid_t space = H5Screate_simple(1, &d, nullptr);
      hid_t set =
          H5Dcreate2(g, "dimensions", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, dims);
      H5Dclose(set);
      H5Sclose(space);
    }
    H5Gclose(c);
    H5Gclose(g);
  }
  H5Fclose(f);
}

}  // namespace

TEST_CASE("CADISHI input: numeric frame order, sorted species, triclinic dimensions") {
  check_against_reference(fixture("cadishi_triclinic.h5"), fixture("cadishi_triclinic.ref.txt"),
                          {1, 2, 10});
  CadishiReader r(fixture("cadishi_triclinic.h5"));
  CHECK(r.species() == std::vector<std::string>{"C", "N", "O"});
  CHECK(r.species_counts() == std::vector<int64_t>{20, 9, 14});
  CHECK(r.frame_numbers() == std::vector<int64_t>{1, 2, 10});

  const auto top = pairhist::io::read_topology(fixture("cadishi_triclinic.h5"));
  REQUIRE(top.natoms() == 43);
  CHECK(top.atom_names[0] == "C");
  CHECK(top.atom_names[19] == "C");
  CHECK(top.atom_names[20] == "N");
  CHECK(top.atom_names[42] == "O");
  CHECK(pairhist::io::carries_species(fixture("cadishi_triclinic.h5")));
  CHECK_FALSE(pairhist::io::carries_species(fixture("mda_h5md_nm.h5md")));
  CHECK_FALSE(pairhist::io::carries_species(pairhist::test::data_dir() + "/spce_water.xtc"));
}

TEST_CASE("CADISHI input: no dimensions and empty dimensions mean no box") {
  check_against_reference(fixture("cadishi_nobox.h5"), fixture("cadishi_nobox.ref.txt"), {1, 2});
}

TEST_CASE("Unit cells: lengths and angles to GROMACS box and back") {
  std::array<double, 9> box;
  REQUIRE(pairhist::io::box_from_cell(3, 4, 5, pairhist::io::cos_degrees(90),
                                      pairhist::io::cos_degrees(90), pairhist::io::cos_degrees(90),
                                      box) == "");
  CHECK(box == std::array<double, 9>{3, 0, 0, 0, 4, 0, 0, 0, 5});
  REQUIRE(pairhist::io::box_from_cell(3, 4, 5, pairhist::io::cos_degrees(80),
                                      pairhist::io::cos_degrees(100), pairhist::io::cos_degrees(70),
                                      box) == "");
  const auto cell = pairhist::io::cell_from_box(box);
  const double expect[6] = {3, 4, 5, 80, 100, 70};
  for (int k = 0; k < 6; ++k) CHECK(cell[k] == doctest::Approx(expect[k]).epsilon(1e-12));
  CHECK(contains(pairhist::io::box_from_cell(3, 4, 5, 0.9, 0.9, -0.9, box), "degenerate"));
}

TEST_CASE("CADISHI writer round trip keeps float coordinates exactly") {
  pairhist::test::TempDir tmp("cadishi");
  const std::string path = tmp.file("out.h5");
  TrajectoryFrame frame;
  frame.xyz = {0.1234567f, 1.5f, 2.75f, 3.3333333f, 0.0f, -1.25f, 7.123f, 0.001f, 4.999f};
  frame.box = {3.1f, 0, 0, 0.5f, 2.9f, 0, -0.7f, 0.4f, 2.5f};
  {
    pairhist::io::CadishiWriter w(path, {"B", "A"}, {{2}, {0, 1}});
    w.write(5, frame);
    frame.box.fill(0);
    w.write(3, frame);
    CHECK_FALSE(fs::exists(path));  // atomic: nothing before close
    w.close();
  }
  CadishiReader r(path);
  CHECK(r.species() == std::vector<std::string>{"A", "B"});
  TrajectoryFrame back;
  REQUIRE(r.next(back));  // frame 3 first (numeric order), no box
  CHECK(back.step == 3);
  for (float v : back.box) CHECK(v == 0);
  const std::vector<float> expect = {0.1234567f, 1.5f,   2.75f,  3.3333333f, 0.0f,
                                     -1.25f,     7.123f, 0.001f, 4.999f};
  CHECK(back.xyz == expect);
  REQUIRE(r.next(back));
  CHECK(back.step == 5);
  const std::array<float, 9> box = {3.1f, 0, 0, 0.5f, 2.9f, 0, -0.7f, 0.4f, 2.5f};
  for (int k = 0; k < 9; ++k) CHECK(std::fabs(back.box[k] - box[k]) <= 1e-6);
  CHECK_FALSE(r.next(back));

  {  // a writer destroyed without close() leaves nothing
    pairhist::io::CadishiWriter w(tmp.file("never.h5"), {"A"}, {{0}});
    w.write(1, frame);
  }
  CHECK_FALSE(fs::exists(tmp.file("never.h5")));
  CHECK_THROWS_AS(pairhist::io::CadishiWriter(tmp.file("x.h5"), {"a/b"}, {{0}}),
                  pairhist::UsageError);
}

TEST_CASE("CADISHI input errors are one line naming file and frame") {
  pairhist::test::TempDir tmp("cadishi");
  auto read_error = [](const std::string& p) {
    return input_error_of([&] {
      CadishiReader r(p);
      TrajectoryFrame f;
      while (r.next(f)) {
      }
    });
  };
  const std::string changed = tmp.file("changed.h5");
  write_file(changed, {{"1", {{"A", 3}, {"B", 2}}}, {"2", {{"A", 3}, {"B", 1}}}});
  std::string msg = read_error(changed);
  CHECK(contains(msg, changed + ": frame 1 (group /2): coordinates/B is not 2 x 3"));
  CHECK(contains(msg, "last complete frame is 0"));

  const std::string species = tmp.file("species.h5");
  write_file(species, {{"1", {{"A", 3}}}, {"2", {{"A", 3}, {"C", 1}}}});
  CHECK(contains(read_error(species), "species A,C differ from the first frame's"));

  const std::string empty = tmp.file("empty.h5");
  write_file(empty, {});
  CHECK(contains(read_error(empty), "no frame groups"));

  const double bad_cell[6] = {10, 10, 0, 90, 90, 90};
  const std::string zero = tmp.file("zero.h5");
  write_file(zero, {{"1", {{"A", 2}}}}, bad_cell, 6);
  CHECK(
      contains(read_error(zero), "frame 0 (group /1): dimensions have a zero or negative length"));

  const double flat[6] = {10, 10, 10, 90, 90, 180};
  const std::string degenerate = tmp.file("degenerate.h5");
  write_file(degenerate, {{"1", {{"A", 2}}}}, flat, 6);
  CHECK(contains(read_error(degenerate), "angle outside (0, 180)"));

  const double five[5] = {1, 2, 3, 4, 5};
  const std::string wrong = tmp.file("wrong.h5");
  write_file(wrong, {{"1", {{"A", 2}}}}, five, 5);
  CHECK(contains(read_error(wrong), "dimensions must be"));

  // Our own histogram output is not an input file.
  const std::string output = tmp.file("hist.h5");
  {
    hid_t f = H5Fcreate(output.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t g = H5Gcreate2(f, "100", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Gclose(H5Gcreate2(g, "histograms", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Gclose(g);
    H5Fclose(f);
  }
  CHECK(contains(read_error(output), "has no coordinates group"));
}
