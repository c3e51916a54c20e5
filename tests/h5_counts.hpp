// Reads one uint64 dataset (a histogram) of an HDF5 file written by pairhist, for the tests.
#pragma once

#include <doctest/doctest.h>
#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

namespace pairhist::test {

inline std::vector<uint64_t> h5_counts(const std::string& file, const std::string& dataset) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE_MESSAGE(f >= 0, file);
  const hid_t d = H5Dopen2(f, dataset.c_str(), H5P_DEFAULT);
  REQUIRE_MESSAGE(d >= 0, dataset);
  const hid_t space = H5Dget_space(d);
  std::vector<uint64_t> v(static_cast<size_t>(H5Sget_simple_extent_npoints(space)));
  REQUIRE(H5Dread(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) >= 0);
  H5Sclose(space);
  H5Dclose(d);
  H5Fclose(f);
  return v;
}

}  // namespace pairhist::test
