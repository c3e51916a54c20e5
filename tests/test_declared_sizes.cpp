// Sizes declared in a file (atom counts, byte counts, dataset extents) are checked against what
// the file holds before anything is allocated for them: hand-made files of a few hundred bytes that
// declare 2^31 atoms or frames end in a one-line InputError naming the file and frame, with the
// process's address space capped so that a trusting reader would fail with bad_alloc instead.
#include <doctest/doctest.h>
#include <hdf5.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "io/topology/gro_reader.hpp"
#include "io/topology/topology_reader.hpp"
#include "io/trajectory/trajectory_reader.hpp"
#include "tests/test_support.hpp"

namespace {

using pairhist::test::append_be32;
using pairhist::test::cap_address_space;
using pairhist::test::contains;
using pairhist::test::input_error_of;
using pairhist::test::TempDir;
using pairhist::test::write_all;

constexpr uint32_t kInt32Max = 0x7fffffff;

// Opens `path` and reads every frame; returns the InputError message ("" if none).
std::string read_error(const std::string& path) {
  return input_error_of([&] {
    const auto reader = pairhist::io::open_trajectory(path);
    pairhist::io::TrajectoryFrame frame;
    while (reader->next(frame)) {
    }
  });
}

void check_refused(const std::string& path, const std::string& message, const char* what) {
  CAPTURE(message);
  CHECK(message.rfind(path + ": ", 0) == 0);
  CHECK(message.find('\n') == std::string::npos);
  CHECK(contains(message, what));
}

void append_float(std::string& b, float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  append_be32(b, bits);
}

// An XTC frame header: magic, natoms, step, time, box, natoms again; then for natoms > 9 the
// compressed-coordinate header (precision, minint, maxint, smallidx) without its byte count.
std::string xtc_header(uint32_t magic, uint32_t natoms) {
  std::string b;
  append_be32(b, magic);
  append_be32(b, natoms);
  append_be32(b, 0);
  append_float(b, 0);
  for (int k = 0; k < 9; ++k) append_float(b, k % 4 == 0 ? 3.0f : 0.0f);
  append_be32(b, natoms);
  append_float(b, 1000);
  for (int k = 0; k < 3; ++k) append_be32(b, 0);
  for (int k = 0; k < 3; ++k) append_be32(b, 1000);
  append_be32(b, 9);
  return b;
}

void append_native32(std::string& b, int32_t v) {
  b.append(reinterpret_cast<const char*>(&v), 4);
}

// A native-endian DCD header (CHARMM version 24, no unit cell) declaring `natoms`.
std::string dcd_header(int32_t natoms) {
  std::string b;
  append_native32(b, 84);
  b += "CORD";
  for (int k = 0; k < 20; ++k) append_native32(b, k == 19 ? 24 : k == 0 ? 1 : 0);
  append_native32(b, 84);
  append_native32(b, 84);  // title record: one line of 80 characters
  append_native32(b, 1);
  b += std::string(80, ' ');
  append_native32(b, 84);
  append_native32(b, 4);
  append_native32(b, natoms);
  append_native32(b, 4);
  return b;
}

// An HDF5 file with one chunked dataset of `dims` float64 values at `name` (groups created),
// never written: HDF5 would read it as fill values, whatever its size.
void write_empty_dataset(const std::string& path, const std::string& name,
                         const std::vector<hsize_t>& dims) {
  hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  REQUIRE(file >= 0);
  hid_t links = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(links, 1);
  hid_t create = H5Pcreate(H5P_DATASET_CREATE);
  std::vector<hsize_t> chunk(dims.size(), 1);
  chunk.back() = dims.back();
  H5Pset_chunk(create, static_cast<int>(chunk.size()), chunk.data());
  hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
  hid_t set = H5Dcreate2(file, name.c_str(), H5T_IEEE_F64LE, space, links, create, H5P_DEFAULT);
  REQUIRE(set >= 0);
  H5Dclose(set);
  H5Sclose(space);
  H5Pclose(create);
  H5Pclose(links);
  H5Fclose(file);
}

}  // namespace

TEST_CASE("XTC frames declaring 2^31 atoms or 2^31 compressed bytes are refused unread") {
  cap_address_space();
  TempDir tmp("declared");
  const std::string path = tmp.file("big.xtc");
  std::string b = xtc_header(1995, kInt32Max);
  append_be32(b, kInt32Max - 3);  // compressed bytes
  write_all(path, b + std::string(64, '\0'));
  check_refused(path, read_error(path), "frame 0: truncated file: compressed data needs");

  // GROMACS 2023's layout: a 64-bit byte count.
  b = xtc_header(2023, kInt32Max);
  append_be32(b, 4);
  append_be32(b, 0);  // 2^34 bytes
  write_all(path, b + std::string(64, '\0'));
  check_refused(path, read_error(path), "frame 0: truncated file: compressed data needs");

  // More bytes than any atom count needs is corruption even where the file could hold them.
  b = xtc_header(1995, 100);
  append_be32(b, 1 << 20);
  write_all(path, b + std::string(64, '\0'));
  check_refused(path, read_error(path), "is too large for 100 atoms");
}

TEST_CASE("TRR records declaring 2^31 bytes of coordinates are refused unread") {
  cap_address_space();
  TempDir tmp("declared");
  const std::string path = tmp.file("big.trr");
  const uint32_t natoms = kInt32Max / 12;  // the most whose float x block fits in an int32
  std::string b;
  append_be32(b, 1993);
  append_be32(b, 13);
  append_be32(b, 12);
  b += "GMX_trn_file";
  for (int k = 0; k < 13; ++k) {
    const uint32_t v = k == 2 ? 36 : k == 7 ? natoms * 12 : k == 10 ? natoms : 0;  // box, x
    append_be32(b, v);
  }
  append_float(b, 0);  // time
  append_float(b, 0);  // lambda
  write_all(path, b + std::string(100, '\0'));
  check_refused(path, read_error(path), "frame 0: truncated file: record data needs");
}

TEST_CASE("DCD headers declaring 2^29 or 2^31 atoms are refused before a frame is allocated") {
  cap_address_space();
  TempDir tmp("declared");
  const std::string path = tmp.file("big.dcd");
  write_all(path, dcd_header((1 << 29) - 1) + std::string(200, '\0'));
  check_refused(path, read_error(path), "frame 0: truncated file: frame needs");
  write_all(path, dcd_header(kInt32Max) + std::string(200, '\0'));
  check_refused(path, read_error(path), "frame 0: invalid atom count 2147483647");
}

TEST_CASE("text formats declaring 2^30 atoms allocate only for the lines present") {
  cap_address_space();
  TempDir tmp("declared");
  const std::string xyz = tmp.file("big.xyz");
  write_all(xyz, "1073741824\nLattice=\"3 0 0 0 3 0 0 0 3\"\nO 0 0 0\nH 1 0 0\n");
  check_refused(xyz, read_error(xyz), "frame 0: line 4: truncated file: 2 of 1073741824");
  CHECK(contains(input_error_of([&] { pairhist::io::read_topology(xyz); }), "2 of 1073741824"));
  write_all(xyz, "2147483648\n\n");
  check_refused(xyz, read_error(xyz), "frame 0: line 1: not an XYZ file");

  const std::string dump = tmp.file("big.lammpstrj");
  write_all(dump,
            "ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n1073741824\nITEM: BOX BOUNDS pp pp pp\n"
            "0 3\n0 3\n0 3\nITEM: ATOMS id type x y z\n1 1 0 0 0\n");
  check_refused(dump, read_error(dump), "frame 0: line 10: truncated file: 1 of 1073741824");

  const std::string gro = tmp.file("big.gro");
  write_all(gro, "title\n999999999\n    1SOL     OW    1   0.246   0.664   0.115\n3 3 3\n");
  const std::string message = input_error_of([&] { pairhist::io::read_topology(gro); });
  CHECK(message.rfind(gro + ": line 4: ", 0) == 0);
  CHECK(contains(message, "atom count in line 2 too large"));
}

TEST_CASE("H5MD and CADISHI datasets declaring 2^31 frames or atoms that the file does not store") {
  cap_address_space();
  TempDir tmp("declared");
  const std::string frames = tmp.file("frames.h5md");
  write_empty_dataset(frames, "particles/all/position/value", {hsize_t{1} << 31, 1, 3});
  check_refused(frames, read_error(frames), "/particles/all/position/value declares");
  const std::string atoms = tmp.file("atoms.h5md");
  write_empty_dataset(atoms, "particles/all/position/value", {1, 700'000'000, 3});
  check_refused(atoms, read_error(atoms), "but the file stores 0");

  const std::string cadishi = tmp.file("atoms.h5");
  write_empty_dataset(cadishi, "1/coordinates/O", {700'000'000, 3});
  check_refused(cadishi, read_error(cadishi), "/1/coordinates/O declares");
  const std::string too_many = tmp.file("too_many.h5");
  write_empty_dataset(too_many, "1/coordinates/O", {hsize_t{1} << 31, 3});
  check_refused(too_many, read_error(too_many), "has 2147483648 particles, too many");
}
