// Reads the exact counts of a finished run back from its pairhist.h5 (the layout of
// io/results/hdf5_writer.hpp) as a HistogramResult, for commands that compute more from them
// without counting again (`pairhist scattering`).
#pragma once

#include <string>
#include <vector>

#include "pairhist/result.hpp"

namespace pairhist::io {

struct StoredRun {
  std::string path;  // the pairhist.h5 read
  HistogramResult result;
  std::string config;  // the run's effective configuration (`key = value` lines)
  // What a reader should tell its user about the file (one line each, naming it): a file written
  // before pairhist wrote checksums has none to check.
  std::vector<std::string> notes;

  /// The value of `key = value` (quotes removed) in config, or "".
  std::string config_value(const std::string& key) const;
  /// The selection of every species in result.species' order ("" where config lacks one).
  std::vector<std::string> species_selections() const;
};

/// Reads `path`: a pairhist.h5, or the run's output directory holding one. The counts of all
/// interval blocks are summed; species come in the run's order (config) with their atom counts
/// (particle_numbers), pairs as A <= B of that order with the atoms they share and the pairs
/// left out per frame; where the species' atoms vary per frame (--sphere, dynamic species) their
/// per-frame counts (frame_species_counts, or a sphere run's species_counts of pairhist up to
/// b187ea5) and a dynamic run's per-frame pairs. Two or more interval blocks are kept as the
/// result's intervals (their frames and counts, pairs in the result's order): the errors of
/// `pairhist scattering` come from them.
///
/// Nothing in the file is believed unchecked: its checksum (io/results/result_checksum.hpp) must
/// match its contents, and its contents must be what a run can write
/// (io/results/result_checks.hpp): counts stored as non-negative integers, no more than the pairs
/// of the frames they were counted in; bin edges that agree with r_max and nbins; blocks that
/// divide the frames between them, with the same species, atoms and pairs. The HDF5 library first
/// reads the file in a child process (io/hdf5/hdf5_probe.hpp), so that a file which crashes it is
/// refused. Throws InputError "cannot read 'PATH': ..." (one line) for a missing or damaged file,
/// one not written by `pairhist run`, or inconsistent contents.
StoredRun read_histogram_result(const std::string& path);

/// What read_histogram_result(path) gives back once write_hdf5(path, res, config) has written
/// `res`, made from `res` without the file (`run --scattering` computes from the result it has
/// just written, in memory): species in the config's order (else by name) with their selections
/// from it, pairs as A <= B of that order, sorted, intervals summed (and kept where there are two
/// or more, their pairs in that order), stopped_by only
/// where the run is not complete. tests/test_writers.cpp checks it against the round trip.
StoredRun stored_run(const std::string& path, const HistogramResult& res,
                     const std::string& config);

}  // namespace pairhist::io
