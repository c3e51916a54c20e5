// H5mdReader against H5MD files written by MDAnalysis's H5MDWriter and by h5py
// (data/fixtures/*.h5md, made by scripts/make-reader-fixtures.sh) and the coordinates MDAnalysis
// (or the generating script) reports for them (*.ref.txt, Angstrom); plus broken variants.
#include <doctest/doctest.h>
#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>

#include "io/trajectory/h5md_reader.hpp"
#include "io/trajectory/trajectory_reader.hpp"
#include "pairhist/errors.hpp"
#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using pairhist::io::H5mdReader;
using pairhist::io::TrajectoryFrame;
using pairhist::test::contains;
using pairhist::test::fixture;
using pairhist::test::input_error_of;
using pairhist::test::read_reference;

namespace {

void check_against_reference(const std::string& path, const std::string& ref_path,
                             const std::vector<int64_t>& steps, const std::vector<double>& times) {
  const auto ref = read_reference(ref_path);
  auto reader = pairhist::io::open_trajectory(path);  // by extension, as `run` opens it
  REQUIRE(reader->natoms() * 3 == static_cast<int>(ref[0].xyz.size()));
  TrajectoryFrame frame;
  for (size_t f = 0; f < ref.size(); ++f) {
    CAPTURE(f);
    REQUIRE(reader->next(frame));
    CHECK(frame.step == steps[f]);
    CHECK(frame.time == doctest::Approx(times[f]).epsilon(1e-6));
    for (int k = 0; k < 9; ++k) {
      CAPTURE(k);
      CHECK(std::fabs(frame.box[k] - ref[f].box[k] * 0.1) <= 2e-6);
    }
    double worst = 0;
    for (size_t i = 0; i < frame.xyz.size(); ++i)
      worst = std::max(worst, std::fabs(frame.xyz[i] - ref[f].xyz[i] * 0.1));
    CHECK(worst <= 1e-6);
  }
  CHECK_FALSE(reader->next(frame));
  CHECK(reader->frames_read() == static_cast<int64_t>(ref.size()));
}

// Copies `src` to `dst` and rewrites the string attribute `attr` of object `obj`.
void copy_with_attribute(const std::string& src, const std::string& dst, const char* obj,
                         const char* attr, const std::string& value) {
  fs::copy_file(src, dst, fs::copy_options::overwrite_existing);
  hid_t f = H5Fopen(dst.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  REQUIRE(f >= 0);
  hid_t o = H5Oopen(f, obj, H5P_DEFAULT);
  REQUIRE(o >= 0);
  if (H5Aexists(o, attr) > 0) H5Adelete(o, attr);
  hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, value.size());
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(o, attr, type, space, H5P_DEFAULT, H5P_DEFAULT);
  REQUIRE(H5Awrite(a, type, value.data()) >= 0);
  H5Aclose(a);
  H5Sclose(space);
  H5Tclose(type);
  H5Oclose(o);
  H5Fclose(f);
}

}  // namespace

TEST_CASE("H5MD from MDAnalysis: triclinic box per frame, Angstrom") {
  check_against_reference(fixture("mda_h5md_triclinic.h5md"), fixture("mda_h5md_triclinic.ref.txt"),
                          {0, 100, 200}, {0, 0.5, 1.0});
  H5mdReader r(fixture("mda_h5md_triclinic.h5md"));
  CHECK(r.group() == "trajectory");
  CHECK(r.frame_count() == 3);
}

TEST_CASE("H5MD from MDAnalysis: no box, nm") {
  check_against_reference(fixture("mda_h5md_nm.h5md"), fixture("mda_h5md_nm.ref.txt"), {0, 100},
                          {0, 0.5});
}

TEST_CASE("H5MD by h5py: fixed box vector, scalar step and time with offset, fs") {
  check_against_reference(fixture("h5md_fixed_box.h5md"), fixture("h5md_fixed_box.ref.txt"),
                          {1000, 1050}, {0, 0.002});
}

TEST_CASE("H5MD: layout errors are one line naming the file") {
  pairhist::test::TempDir tmp("h5md");
  const std::string src = fixture("mda_h5md_triclinic.h5md");
  auto open_error = [](const std::string& p) { return input_error_of([&] { H5mdReader r(p); }); };

  const std::string unit = tmp.file("unit.h5md");
  copy_with_attribute(src, unit, "particles/trajectory/position/value", "unit", "furlong");
  std::string msg = open_error(unit);
  CHECK(contains(msg, unit + ": "));
  CHECK(contains(msg, "unsupported length unit 'furlong'"));

  const std::string partly = tmp.file("partly.h5md");
  fs::copy_file(src, partly);
  {
    hid_t f = H5Fopen(partly.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t box = H5Gopen2(f, "particles/trajectory/box", H5P_DEFAULT);
    H5Adelete(box, "boundary");
    const char* values[3] = {"periodic", "none", "periodic"};
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    const hsize_t n = 3;
    hid_t space = H5Screate_simple(1, &n, nullptr);
    hid_t a = H5Acreate2(box, "boundary", type, space, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, type, values);
    H5Aclose(a);
    H5Sclose(space);
    H5Tclose(type);
    H5Gclose(box);
    H5Fclose(f);
  }
  CHECK(contains(open_error(partly), "partly periodic"));

  const std::string plain = tmp.file("plain.h5md");
  {
    hid_t f = H5Fcreate(plain.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    H5Gclose(H5Gcreate2(f, "something", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Fclose(f);
  }
  CHECK(contains(open_error(plain), "no /particles group"));

  const std::string text = tmp.file("text.h5md");
  pairhist::test::write_all(text, "not hdf5\n");
  CHECK(contains(open_error(text), "not an HDF5 file"));
  CHECK(contains(open_error(tmp.file("missing.h5md")), "missing.h5md: "));
  for (const std::string& m : {open_error(unit), open_error(partly), open_error(plain)})
    CHECK(m.find('\n') == std::string::npos);
}
