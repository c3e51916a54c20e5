// A pairhist.h5 is not believed blindly (issue 40): its checksum is checked, and its counts must
// be non-negative integers no larger than the pairs of the frames they were counted in. Each
// damaged file is made here from a good one (tests/result_file_edits.hpp), and before these
// checks read_histogram_result accepted every one of them. Blocks, bins and per-frame bounds:
// test_result_layout.cpp.
#include <doctest/doctest.h>
#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

#include "io/results/run_output_reader.hpp"
#include "tests/result_file_edits.hpp"

using namespace pairhist::test::result_file;

TEST_CASE("result checks: a good file is read, with its checksum and without a note") {
  TempDir dir("result-checks");
  const std::string path = written(dir, water());
  const auto run = read_histogram_result(path);
  CHECK(run.notes.empty());
  CHECK(run.result.pairs[0].counts[2] == kMarker);
  // Written at the exact bound: O-O may hold 300 * 299 / 2 pairs in each of 10 frames.
  HistogramResult full = water();
  full.pairs[0].counts = {448500 - 9, 9, 0, 0, 0, 0};
  CHECK_NOTHROW(read_histogram_result(written(dir, full)));
}

TEST_CASE("result checks: 20 flipped bytes in the counts") {
  TempDir dir("result-checks");
  const std::string path = written(dir, water());
  SUBCASE("with a checksum: it no longer matches") {
    flip_count_bytes(path, 20);
    check_refused(path, "checksum mismatch: the file records crc32:");
    CHECK_THROWS_AS(pairhist::io::read_run_output(path), InputError);  // `pairhist plot`
  }
  SUBCASE("a file without one (pairhist before checksums): the counts' bound") {
    remove_checksum(path);
    flip_count_bytes(path, 20);
    check_refused(path, "histogram /9/histograms/O,O counts ");
    check_refused(path, "more than its 10 frames hold (448500: N(N-1)/2 with N = 300 per frame)");
  }
  SUBCASE("one changed attribute or name is a mismatch too") {
    set_number_attribute(path, "complete", 0);
    check_refused(path, "checksum mismatch");
  }
}

TEST_CASE("result checks: a file without a checksum is read with a note") {
  TempDir dir("result-checks");
  const std::string path = written(dir, water());
  remove_checksum(path);
  const auto run = read_histogram_result(path);
  REQUIRE(run.notes.size() == 1);
  CHECK(run.notes[0] == path +
                            " has no checksum (written before pairhist wrote one): its counts were "
                            "checked against their bounds only");
  CHECK(pairhist::io::read_run_output(path).notes == run.notes);  // `pairhist plot`
}

TEST_CASE("result checks: counts beyond N_A*N_B*frames, 2^63, negative, not integers") {
  TempDir dir("result-checks");
  const std::string path = written(dir, water());
  SUBCASE("O-H above 300 * 600 * 10") {
    write_counts(path, "9/histograms/O,H", {0, 0, 0, 0, 0, 1800001});
    reseal(path);
    check_refused(path,
                  "O,H counts 1800001 pairs, more than its 10 frames hold (1800000: "
                  "N_A*N_B with N_A = 300, N_B = 600 per frame)");
  }
  SUBCASE("2^63 in one bin") {
    write_counts(path, "9/histograms/H,H", {0, 0, 0, uint64_t{1} << 63, 0, 0});
    check_refused(path, "checksum mismatch");
    reseal(path);
    check_refused(path, "H,H counts 9223372036854775808 pairs");
  }
  SUBCASE("two bins that add up past 2^64") {
    write_counts(path, "9/histograms/H,H", {0, 0, 0, uint64_t{1} << 63, uint64_t{1} << 63, 0});
    reseal(path);
    check_refused(path, "H,H counts 2^64 or more pairs");
  }
  SUBCASE("negative floats (read as 0 before)") {
    replace_dataset(path, "9/histograms/O,O", H5T_IEEE_F64LE, {-5, 1000, 3, 4, 5, 6});
    reseal(path);
    check_refused(path, "dataset 'O,O' does not hold integers");
  }
  SUBCASE("whole floats are not counts either") {
    replace_dataset(path, "9/histograms/O,O", H5T_IEEE_F64LE, {0, 1000, 3, 4, 5, 6});
    reseal(path);
    check_refused(path, "dataset 'O,O' does not hold integers");
  }
  SUBCASE("a negative signed integer (read as 0 before)") {
    replace_dataset(path, "9/histograms/O,O", H5T_STD_I64LE, {0, -1, 3, 4, 5, 6});
    reseal(path);
    check_refused(path, "dataset 'O,O' holds -1: a negative count");
  }
}

TEST_CASE("result checks: particle numbers, shared atoms and excluded pairs bound the counts") {
  TempDir dir("result-checks");
  const std::string path = written(dir, water());
  SUBCASE("fewer atoms than the counts need") {
    write_scalar(path, "9/particle_numbers/O", 10);  // O-O: 45 pairs a frame
    reseal(path);
    check_refused(path,
                  "O,O counts 145452 pairs, more than its 10 frames hold (450: N(N-1)/2 "
                  "with N = 10 per frame)");
  }
  SUBCASE("a negative particle number") {
    replace_dataset(path, "9/particle_numbers/O", H5T_STD_I64LE, {-300});
    reseal(path);
    check_refused(path, "dataset 'O' holds -300: a negative count");
  }
  SUBCASE("shared atoms: none within one species, at most the smaller species") {
    write_scalar(path, "pairhist/shared_atoms/O,O", 1);
    reseal(path);
    check_refused(path, "shared_atoms/O,O = 1: one species shares no atoms with itself");
  }
  SUBCASE("shared atoms beyond the smaller species") {
    write_scalar(path, "pairhist/shared_atoms/O,H", 301);
    reseal(path);
    check_refused(path, "shared_atoms/O,H = 301, more than the smaller species has (300)");
  }
  SUBCASE("excluded pairs lower the bound") {
    write_scalar(path, "pairhist/excluded_pairs/O,O", 448500 / 10 - 14000);  // 14000 a frame
    reseal(path);
    check_refused(path, "(140000: N(N-1)/2 with N = 300, less 30850 excluded per frame)");
  }
  SUBCASE("more excluded pairs than a frame has") {
    write_scalar(path, "pairhist/excluded_pairs/O,H", 180001);
    reseal(path);
    check_refused(path, "excluded_pairs/O,H = 180001, more than the 180000 pairs of a frame");
  }
}
