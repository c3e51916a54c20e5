// io::stored_run(): the result `run --scattering` computes from in memory must be what reading
// the pairhist.h5 just written gives back, field for field, or its intensities would differ
// from `pairhist scattering DIR`'s.
#include <doctest/doctest.h>
#include <hdf5.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "io/results/hdf5_writer.hpp"
#include "io/results/histogram_result_reader.hpp"
#include "pairhist/result.hpp"

namespace fs = std::filesystem;
using pairhist::HistogramResult;
using pairhist::PairHistogram;
using pairhist::SpeciesInfo;

namespace {

HistogramResult three_species() {
  HistogramResult res;
  // Not in the order of their names, so that a reader falling back to names reorders them.
  res.species = {SpeciesInfo{"Ow", "name OW", 2}, SpeciesInfo{"Hw", "name HW1 HW2", 4},
                 SpeciesInfo{"Na", "name NA", 1}};
  res.r_max = 0.9;
  res.nbins = 3;
  res.length_unit = "angstrom";
  res.box_kind = "triclinic";
  res.precision = "double";
  res.norm = "density";
  res.exclude = "residue";
  // A pair given the other way round (Hw-Ow), with shared atoms and excluded pairs.
  res.pairs = {PairHistogram{1, 0, {3, 4, 5}, 1, 2}, PairHistogram{0, 0, {1, 0, 2}},
               PairHistogram{1, 1, {0, 7, 1}, 0, 3}, PairHistogram{2, 2, {0, 0, 0}},
               PairHistogram{0, 2, {1, 1, 1}},       PairHistogram{2, 1, {2, 2, 2}}};
  res.frame_indices = {3, 5, 9};
  res.frame_times = {0.5, 1.25, 2.0};
  res.volumes = {27.25, 26.5, 28.125};
  return res;
}

std::string config_of(const HistogramResult& res) {
  std::string c = "trajectory = \"t.xtc\"\n";
  for (const SpeciesInfo& s : res.species)
    c += "species." + s.name + " = \"" + s.selection + "\"\n";
  return c + "rmax = 0.9\n";
}

void check_same(const pairhist::io::StoredRun& read, const pairhist::io::StoredRun& made) {
  CHECK(read.path == made.path);
  CHECK(read.config == made.config);
  const HistogramResult& x = read.result;
  const HistogramResult& y = made.result;
  REQUIRE(x.species.size() == y.species.size());
  for (size_t s = 0; s < x.species.size(); ++s) {
    CAPTURE(s);
    CHECK(x.species[s].name == y.species[s].name);
    CHECK(x.species[s].selection == y.species[s].selection);
    CHECK(x.species[s].count == y.species[s].count);
  }
  REQUIRE(x.pairs.size() == y.pairs.size());
  for (size_t p = 0; p < x.pairs.size(); ++p) {
    CAPTURE(p);
    CHECK(x.pairs[p].a == y.pairs[p].a);
    CHECK(x.pairs[p].b == y.pairs[p].b);
    CHECK(x.pairs[p].counts == y.pairs[p].counts);
    CHECK(x.pairs[p].shared_atoms == y.pairs[p].shared_atoms);
    CHECK(x.pairs[p].excluded_pairs == y.pairs[p].excluded_pairs);
  }
  CHECK(x.r_max == y.r_max);
  CHECK(x.nbins == y.nbins);
  CHECK(x.length_unit == y.length_unit);
  CHECK(x.box_kind == y.box_kind);
  CHECK(x.precision == y.precision);
  CHECK(x.frame_indices == y.frame_indices);
  CHECK(x.frame_times == y.frame_times);
  CHECK(x.volumes == y.volumes);
  REQUIRE(x.intervals.size() == y.intervals.size());
  for (size_t i = 0; i < x.intervals.size(); ++i) {
    CAPTURE(i);
    CHECK(x.intervals[i].frame_begin == y.intervals[i].frame_begin);
    CHECK(x.intervals[i].frame_end == y.intervals[i].frame_end);
    CHECK(x.intervals[i].counts == y.intervals[i].counts);
  }
  CHECK(x.complete == y.complete);
  CHECK(x.stopped_by == y.stopped_by);
  CHECK(x.norm == y.norm);
  CHECK(x.exclude == y.exclude);
  CHECK(x.frame_species_counts == y.frame_species_counts);
  CHECK(x.frame_pairs == y.frame_pairs);
  CHECK(x.sphere == y.sphere);
  CHECK(x.sphere_centre == y.sphere_centre);
  CHECK(x.centre_counts == y.centre_counts);
  CHECK(x.centre_bin_width == y.centre_bin_width);
}

/// Renames `from` to `to` in the HDF5 file at `path`: the layout of an older writer, which wrote
/// no checksum either.
void rename_object(const std::string& path, const char* from, const char* to) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  REQUIRE(f >= 0);
  CHECK(H5Lmove(f, from, f, to, H5P_DEFAULT, H5P_DEFAULT) >= 0);
  CHECK(H5Adelete_by_name(f, "pairhist", "checksum", H5P_DEFAULT) >= 0);
  H5Fclose(f);
}

void check_round_trip(const HistogramResult& res, const std::string& config,
                      const char* legacy_sizes = nullptr) {
  const fs::path dir =
      fs::temp_directory_path() / ("pairhist_stored_run_" + std::to_string(::getpid()) + "_" +
                                   std::to_string(reinterpret_cast<uintptr_t>(&res)));
  fs::create_directories(dir);
  const std::string path = (dir / "pairhist.h5").string();
  pairhist::io::write_hdf5(path, res, config);
  if (legacy_sizes != nullptr) rename_object(path, "/pairhist/frame_species_counts", legacy_sizes);
  const pairhist::io::StoredRun read = pairhist::io::read_histogram_result(dir.string());
  fs::remove_all(dir);
  check_same(read, pairhist::io::stored_run(path, res, config));
}

}  // namespace

TEST_CASE("stored_run: what the reader gives back, without the file") {
  HistogramResult res = three_species();
  SUBCASE("species in the config's order, one block") {
    check_round_trip(res, config_of(res));
  }
  SUBCASE("no config: species by name") {
    check_round_trip(res, "");
  }
  SUBCASE("intervals summed and kept, an incomplete run") {
    res.intervals = {{0, 1, {}}, {1, 3, {}}};
    for (const PairHistogram& p : res.pairs) {
      std::vector<uint64_t> first, rest;
      for (uint64_t c : p.counts) first.push_back(c / 2), rest.push_back(c - c / 2);
      res.intervals[0].counts.push_back(first);
      res.intervals[1].counts.push_back(rest);
    }
    res.complete = false;
    res.stopped_by = "frame 9: bad box";
    check_round_trip(res, config_of(res));
  }
  SUBCASE("a complete run keeps no stopped_by") {
    res.stopped_by = "in progress";
    check_round_trip(res, config_of(res));
  }
  SUBCASE("a sphere run's per-frame counts") {
    res.box_kind = "none";
    res.volumes.clear();
    res.norm = "none";
    res.exclude = "none";
    for (PairHistogram& p : res.pairs) p.shared_atoms = p.excluded_pairs = 0;
    res.sphere = "group Solute,1.2";
    res.sphere_centre = "mass";
    // As many atoms in each frame as the counts need (the reader checks them against it).
    res.frame_species_counts = {{2, 3, 1}, {2, 4, 1}, {2, 2, 1}};
    // Their distances from the centre: as many atoms as the frames hold, species by species.
    res.centre_bin_width = 0.25;
    res.centre_counts = {{1, 0, 5}, {4, 4, 1}, {0, 3, 0}};
    check_round_trip(res, config_of(res));
    check_round_trip(res, "");
    // Sphere runs written up to b187ea5 kept the counts under another name.
    check_round_trip(res, config_of(res), "/pairhist/species_counts");
  }
  SUBCASE("a dynamic run's per-frame counts and pairs") {
    // Pairs of each frame within its atoms' pairs, and in all at least the counts (the reader
    // checks both), different between pairs in some frame so that an order mixed up shows.
    res.frame_species_counts = {{2, 3, 1}, {2, 4, 1}, {2, 2, 1}};
    res.frame_pairs = {{5, 1, 3, 0, 2, 3}, {8, 1, 6, 0, 2, 4}, {4, 1, 1, 0, 1, 2}};
    check_round_trip(res, config_of(res));
    check_round_trip(res, "");
  }
}
