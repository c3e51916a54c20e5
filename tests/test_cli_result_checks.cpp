// A damaged pairhist.h5 is refused by every command that reads it (issue 40): `pairhist
// scattering` (which gave I(0) = 2.3e18 instead of 2.1e7, exit 0, on 20 flipped bytes), `pairhist
// plot`, and `pairhist run --resume` on a finished run (which said "nothing to resume"). A file
// written before pairhist wrote checksums is still read, with a note.
#include <doctest/doctest.h>
#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/test_support.hpp"

namespace {

using pairhist::test::contains;
using pairhist::test::shell_quote;
using pairhist::test::TempDir;

const std::string kData = pairhist::test::data_dir();

std::string run_args(const std::string& out) {
  return "run " + kData + "/spce_water.xtc --top " + kData +
         "/spce_water.gro --species O=OW --species H=HW1,HW2 --rmax 1.2 --nbins 240 --last 9 "
         "--ncpu 2 -q -o " +
         shell_quote(out);
}

std::vector<uint64_t> oo_counts(const std::string& path) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(file >= 0);
  const hid_t set = H5Dopen2(file, "9/histograms/O,O", H5P_DEFAULT);
  REQUIRE(set >= 0);
  std::vector<uint64_t> counts(240);
  REQUIRE(H5Dread(set, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, counts.data()) >= 0);
  H5Dclose(set);
  H5Fclose(file);
  return counts;
}

/// Flips 20 bytes in the middle of the stored O,O counts (found by their values), as a bad disk
/// block would: the file still opens.
void flip_counts(const std::string& path) {
  const std::vector<uint64_t> counts = oo_counts(path);
  std::string pattern;
  for (size_t k = 120; k < 124; ++k)
    for (int i = 0; i < 8; ++i) pattern += static_cast<char>(counts[k] >> (8 * i));
  std::string bytes = pairhist::test::read_all(path);
  const size_t at = bytes.find(pattern);
  REQUIRE(at != std::string::npos);
  for (size_t k = 0; k < 20; ++k) bytes[at + 5 + k] ^= static_cast<char>(0xa5);
  pairhist::test::write_all(path, bytes);
}

/// One line (the last one of the output) naming the file, exit 1.
void check_refused(const pairhist::test::CommandResult& r, const std::string& file,
                   const std::string& expected) {
  INFO(r.output);
  CHECK(r.status == 1);
  CHECK(contains(r.output, "pairhist: error: cannot read '" + file + "': " + expected));
  size_t lines = 0;
  for (char c : r.output) lines += c == '\n';
  CHECK(lines == 1);
}

}  // namespace

TEST_CASE("a pairhist.h5 with flipped bytes: scattering, plot and --resume refuse it") {
  TempDir dir("cli-result-checks");
  const std::string out = dir.file("run");
  const std::string h5 = out + "/pairhist.h5";
  REQUIRE(pairhist::test::pairhist_cmd(run_args(out)).status == 0);
  {
    const auto good = pairhist::test::pairhist_cmd("scattering " + shell_quote(out));
    INFO(good.output);
    REQUIRE(good.status == 0);
    CHECK_FALSE(contains(good.output, "checksum"));
  }
  flip_counts(h5);
  check_refused(pairhist::test::pairhist_cmd("scattering " + shell_quote(out)), h5,
                "checksum mismatch: the file records crc32:");
  check_refused(pairhist::test::pairhist_cmd("plot " + shell_quote(out) + " -o " +
                                             shell_quote(dir.file("g.png"))),
                h5, "checksum mismatch");
  const auto resume = pairhist::test::pairhist_cmd(run_args(out) + " --resume");
  check_refused(resume, h5, "checksum mismatch");
  CHECK(contains(resume.output, "(" + out + " records a finished run: --overwrite runs it again)"));
}

TEST_CASE("a pairhist.h5 without a checksum: read with a note, its counts' bounds checked") {
  TempDir dir("cli-result-checks");
  const std::string out = dir.file("run");
  const std::string h5 = out + "/pairhist.h5";
  REQUIRE(pairhist::test::pairhist_cmd(run_args(out)).status == 0);
  {
    const hid_t file = H5Fopen(h5.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(file >= 0);
    REQUIRE(H5Adelete_by_name(file, "pairhist", "checksum", H5P_DEFAULT) >= 0);
    H5Fclose(file);
  }
  const auto old = pairhist::test::pairhist_cmd("scattering " + shell_quote(out));
  INFO(old.output);
  CHECK(old.status == 0);
  CHECK(contains(old.output, "pairhist scattering: note: " + h5 +
                                 " has no checksum (written before pairhist wrote one): its "
                                 "counts were checked against their bounds only\n"));
  flip_counts(h5);
  check_refused(pairhist::test::pairhist_cmd("scattering " + shell_quote(out)), h5,
                "histogram /9/histograms/O,O counts ");
}
