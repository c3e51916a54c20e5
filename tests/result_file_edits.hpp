// What tests/test_result_checks.cpp and test_result_layout.cpp share: a good pairhist.h5 of a
// water run, and edits through the HDF5 API that damage it as a disk, a hand or a wrong writer
// would.
#pragma once

#include <doctest/doctest.h>
#include <hdf5.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "io/results/hdf5_writer.hpp"
#include "io/results/histogram_result_reader.hpp"
#include "io/results/result_checksum.hpp"
#include "pairhist/errors.hpp"
#include "tests/test_support.hpp"

namespace pairhist::test::result_file {

using pairhist::HistogramResult;
using pairhist::InputError;
using pairhist::PairHistogram;
using pairhist::SpeciesInfo;
using pairhist::io::read_histogram_result;
using pairhist::test::TempDir;

inline constexpr uint64_t kMarker = 54321;  // a count the tests find in the file's bytes

/// 300 O and 600 H over 10 frames (0 .. 9), one block; O-O may count 448,500 pairs, O-H 1.8e6.
inline HistogramResult water() {
  HistogramResult res;
  res.species = {SpeciesInfo{"O", "name OW", 300}, SpeciesInfo{"H", "name HW1 HW2", 600}};
  res.r_max = 1.2;
  res.nbins = 6;
  res.box_kind = "orthorhombic";
  res.pairs = {PairHistogram{0, 0, {0, 1000, kMarker, 77777, 12345, 9}},
               PairHistogram{0, 1, {0, 2000, 3000, 4000, 5000, 6000}},
               PairHistogram{1, 1, {0, 0, 11, 12, 13, 14}}};
  for (int f = 0; f < 10; ++f) {
    res.frame_indices.push_back(f);
    res.frame_times.push_back(2.0 * f);
    res.volumes.push_back(27.0);
  }
  return res;
}

inline std::string config_of(const HistogramResult& res) {
  std::string c;
  for (const SpeciesInfo& s : res.species)
    c += "species." + s.name + " = \"" + s.selection + "\"\n";
  return c;
}

inline std::string written(const TempDir& dir, const HistogramResult& res) {
  const std::string path = dir.file("pairhist.h5");
  pairhist::io::write_hdf5(path, res, config_of(res));
  return path;
}

/// Opens the file for writing; every HDF5 call of a helper is checked.
struct Editable {
  explicit Editable(const std::string& path)
      : file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT)) {
    REQUIRE(file >= 0);
  }
  ~Editable() { H5Fclose(file); }
  hid_t file;
};

inline void remove_checksum(const std::string& path) {
  Editable f(path);
  REQUIRE(H5Adelete_by_name(f.file, "pairhist", pairhist::io::kChecksumAttribute, H5P_DEFAULT) >=
          0);
}

/// What a writer that is wrong (or a hand edit that knows the rule) would leave: a checksum that
/// matches the damaged contents.
inline void reseal(const std::string& path) {
  Editable f(path);
  H5Adelete_by_name(f.file, "pairhist", pairhist::io::kChecksumAttribute, H5P_DEFAULT);
  const std::string checksum = pairhist::io::result_checksum(f.file, path);
  const hid_t meta = H5Gopen2(f.file, "pairhist", H5P_DEFAULT);
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, H5T_VARIABLE);
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t attr =
      H5Acreate2(meta, pairhist::io::kChecksumAttribute, type, space, H5P_DEFAULT, H5P_DEFAULT);
  const char* text = checksum.c_str();
  REQUIRE(H5Awrite(attr, type, &text) >= 0);
  H5Aclose(attr);
  H5Sclose(space);
  H5Tclose(type);
  H5Gclose(meta);
}

/// Replaces dataset `name` by one of `type` holding `values` (converted from double).
inline void replace_dataset(const std::string& path, const std::string& name, hid_t type,
                            const std::vector<double>& values) {
  Editable f(path);
  REQUIRE(H5Ldelete(f.file, name.c_str(), H5P_DEFAULT) >= 0);
  const hsize_t n = values.size();
  const hid_t space = H5Screate_simple(1, &n, nullptr);
  const hid_t set =
      H5Dcreate2(f.file, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  REQUIRE(set >= 0);
  REQUIRE(H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
  H5Dclose(set);
  H5Sclose(space);
}

inline void write_counts(const std::string& path, const std::string& name,
                         const std::vector<uint64_t>& values) {
  Editable f(path);
  const hid_t set = H5Dopen2(f.file, name.c_str(), H5P_DEFAULT);
  REQUIRE(set >= 0);
  REQUIRE(H5Dwrite(set, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
  H5Dclose(set);
}

inline void write_scalar(const std::string& path, const std::string& name, uint64_t value) {
  write_counts(path, name, {value});
}

inline void set_number_attribute(const std::string& path, const char* name, double value) {
  Editable f(path);
  const hid_t meta = H5Gopen2(f.file, "pairhist", H5P_DEFAULT);
  if (H5Aexists(meta, name) > 0) H5Adelete(meta, name);
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t attr = H5Acreate2(meta, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT);
  REQUIRE(H5Awrite(attr, H5T_NATIVE_DOUBLE, &value) >= 0);
  H5Aclose(attr);
  H5Sclose(space);
  H5Gclose(meta);
}

/// Copies block `from` (its histograms, radii and particle_numbers) to a new block `to`.
inline void copy_block(const std::string& path, const char* from, const char* to) {
  Editable f(path);
  REQUIRE(H5Ocopy(f.file, from, f.file, to, H5P_DEFAULT, H5P_DEFAULT) >= 0);
}

inline std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// Flips `n` bytes of the stored counts of O,O, starting with the top byte of kMarker's count,
/// as a bad disk block or a careless edit would: the file still opens.
inline void flip_count_bytes(const std::string& path, int n) {
  std::string bytes = bytes_of(path);
  char marker[8];
  for (int i = 0; i < 8; ++i) marker[i] = static_cast<char>(kMarker >> (8 * i));
  const size_t at = bytes.find(std::string(marker, 8));
  REQUIRE(at != std::string::npos);
  for (int k = 0; k < n; ++k) bytes[at + 7 + static_cast<size_t>(k)] ^= 0x5a;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

/// The error of reading `path`: one line that names the file, and holds `expected`.
inline void check_refused(const std::string& path, const std::string& expected) {
  try {
    read_histogram_result(path);
    FAIL("accepted: " << path);
  } catch (const InputError& e) {
    const std::string what = e.what();
    CAPTURE(what);
    CHECK(what.rfind("cannot read '" + path + "': ", 0) == 0);
    CHECK(what.find('\n') == std::string::npos);
    CHECK(what.find(expected) != std::string::npos);
  }
}

}  // namespace pairhist::test::result_file
