// A pairhist.h5 is not believed blindly (issue 40): its blocks must divide the frames with the
// same atoms and pairs, its bins agree with r_max and nbins, a sphere or dynamic run's counts
// stay within each frame's atoms and pairs, and it holds only what pairhist writes; rdf.csv's
// counts are numbers of pairs. Each damaged file is made here from a good one
// (tests/result_file_edits.hpp), and before these checks every one was accepted.
#include <doctest/doctest.h>
#include <hdf5.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "io/results/run_output_reader.hpp"
#include "tests/result_file_edits.hpp"

using namespace pairhist::test::result_file;

TEST_CASE("result checks: blocks divide the frames, with the same atoms and pairs") {
  TempDir dir("result-checks");
  const std::string path = written(dir, water());
  SUBCASE("an extra block with other particle numbers (I doubled before)") {
    copy_block(path, "9", "4");
    write_scalar(path, "4/particle_numbers/O", 30);
    check_refused(path, "checksum mismatch");
    reseal(path);
    check_refused(path, "the particle_numbers of block /9 differ from those of /4");
  }
  SUBCASE("an extra block that no frame names") {
    copy_block(path, "9", "12");
    reseal(path);
    check_refused(path, "block /12 is not named after a frame of the run (frame_indices)");
  }
  SUBCASE("a copy of the block as the first half of the frames: its counts' bound") {
    copy_block(path, "9", "0");  // frame 0 alone: 44,850 O-O pairs
    reseal(path);
    check_refused(path,
                  "histogram /0/histograms/O,O counts 145452 pairs, more than its 1 frame "
                  "hold (44850");
  }
  SUBCASE("A,B and B,A in one block") {
    {
      Editable f(path);
      REQUIRE(H5Ocopy(f.file, "9/histograms/O,H", f.file, "9/histograms/H,O", H5P_DEFAULT,
                      H5P_DEFAULT) >= 0);
    }
    reseal(path);
    check_refused(path, "block /9 holds the histogram of O,H twice");
  }
}

TEST_CASE("result checks: the last block must end at the last frame") {
  TempDir dir("result-checks");
  const std::string path = written(dir, water());
  {
    Editable f(path);
    REQUIRE(H5Lmove(f.file, "9", f.file, "7", H5P_DEFAULT, H5P_DEFAULT) >= 0);
  }
  reseal(path);
  check_refused(path, "the last block /7 ends before the run's last frame 9");
}

TEST_CASE("result checks: bin edges agree with r_max and nbins") {
  TempDir dir("result-checks");
  const std::string path = written(dir, water());
  SUBCASE("r_max contradicting the edges") {
    set_number_attribute(path, "r_max", 1.5);
    check_refused(path, "checksum mismatch");
    reseal(path);
    check_refused(path, "bin_edges[1] = 0.2, but r_max = 1.5 with nbins = 6 put it at 0.25");
  }
  SUBCASE("edges of other bins") {
    replace_dataset(path, "pairhist/bin_edges", H5T_IEEE_F64LE, {0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.3});
    reseal(path);
    check_refused(path, "bin_edges[6] = 1.3, but r_max = 1.2 with nbins = 6 put it at 1.2");
  }
  SUBCASE("fewer edges than nbins needs") {
    replace_dataset(path, "pairhist/bin_edges", H5T_IEEE_F64LE, {0, 0.4, 0.8, 1.2});
    reseal(path);
    check_refused(path, "bin_edges holds 4 values, nbins = 6 needs 7");
  }
  SUBCASE("a block's radii that are not the bins' middles") {
    replace_dataset(path, "9/histograms/radii", H5T_IEEE_F64LE, {0, 0.2, 0.4, 0.6, 0.8, 1.0});
    reseal(path);
    check_refused(path, "block /9: radii[0] = 0 is not the middle of bin 0 (0.1)");
  }
  SUBCASE("a partial last bin: r_cut inside it is accepted, outside it is not") {
    set_number_attribute(path, "r_cut", 0.9);
    reseal(path);
    check_refused(path, "r_cut = 0.9 does not lie in the last bin [1, 1.2]");
    set_number_attribute(path, "r_cut", 1.15);
    reseal(path);
    CHECK_NOTHROW(read_histogram_result(path));
    replace_dataset(path, "pairhist/bin_edges", H5T_IEEE_F64LE, {0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.15});
    reseal(path);
    CHECK_NOTHROW(read_histogram_result(path));  // the last edge at r_cut
  }
  SUBCASE("a lower edge r_min, where the file says so") {
    replace_dataset(path, "pairhist/bin_edges", H5T_IEEE_F64LE,
                    {0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2});
    replace_dataset(path, "9/histograms/radii", H5T_IEEE_F64LE,
                    {0.65, 0.75, 0.85, 0.95, 1.05, 1.15});
    reseal(path);
    check_refused(path, "bin_edges[0] = 0.6, but r_max = 1.2 with nbins = 6 put it at 0");
    set_number_attribute(path, "r_min", 0.6);
    reseal(path);
    CHECK_NOTHROW(read_histogram_result(path));
  }
}

TEST_CASE("result checks: per-frame atoms and pairs bound a sphere or dynamic run") {
  TempDir dir("result-checks");
  HistogramResult res = water();
  res.pairs[0].counts = {0, 10, 20, 30, 0, 0};    // 60 O-O pairs
  res.pairs[1].counts = {0, 20, 30, 40, 50, 60};  // 200 O-H
  SUBCASE("a sphere run: the atoms inside the sphere in each frame") {
    res.sphere = "group Solute,1.2";
    res.sphere_centre = "mass";
    for (int f = 0; f < 10; ++f) res.frame_species_counts.push_back({4, 8});  // 6 O-O pairs
    const std::string path = written(dir, res);
    CHECK_NOTHROW(read_histogram_result(path));
    write_counts(path, "9/histograms/O,O", {0, 10, 20, 31, 0, 0});
    reseal(path);
    check_refused(path,
                  "O,O counts 61 pairs, more than its 10 frames hold (60: the atoms of each "
                  "frame in frame_species_counts)");
  }
  SUBCASE("a dynamic run: its pairs of each frame") {
    for (int f = 0; f < 10; ++f) {
      res.frame_species_counts.push_back({4, 8});
      res.frame_pairs.push_back({6, 32, 28});  // all pairs counted
    }
    const std::string path = written(dir, res);
    CHECK_NOTHROW(read_histogram_result(path));
    write_counts(path, "pairhist/frame_pairs/O,O", {6, 6, 6, 6, 6, 6, 6, 6, 6, 7});
    reseal(path);
    check_refused(path, "frame_pairs/O,O[9] = 7, more than the 6 pairs of that frame's atoms");
    write_counts(path, "pairhist/frame_pairs/O,O", {6, 6, 6, 6, 6, 6, 6, 6, 6, 5});
    reseal(path);
    check_refused(path,
                  "O,O counts 60 pairs, more than its 10 frames hold (59: the pairs of each "
                  "frame in frame_pairs)");
  }
}

TEST_CASE("result checks: links and objects pairhist never writes") {
  TempDir dir("result-checks");
  const std::string path = written(dir, water());
  {
    Editable f(path);
    REQUIRE(H5Lcreate_soft("/9/histograms/O,O", f.file, "pairhist/alias", H5P_DEFAULT,
                           H5P_DEFAULT) >= 0);
  }
  check_refused(path, "'/pairhist/alias' is a soft or external link, which pairhist never writes");
}

TEST_CASE("result checks: rdf.csv counts are numbers of pairs") {
  TempDir dir("result-checks");
  const std::string path = dir.file("rdf.csv");
  std::ofstream(path) << "r_nm,count_O-O\n0.1,5\n0.3,-2\n";
  try {
    pairhist::io::read_run_output(path);
    FAIL("accepted");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          "cannot read '" + path + "' line 3: count '-2' is not a number of pairs");
  }
}
