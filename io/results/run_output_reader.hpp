// Reads back what `pairhist run` wrote (pairhist.h5 or rdf.csv), for commands that post-process a
// run such as `pairhist plot`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pairhist::io {

/// One species pair of a finished run. g, coordination and g_error are empty when the file has
/// none (no periodic box: counts only; no interval blocks: no errors).
struct RunOutputPair {
  std::string label;           // "A-B", as in rdf.csv's column names
  std::vector<double> counts;  // pairs per bin summed over all frames (exact up to 2^53)
  std::vector<double> g;       // g(r); NaN where undefined
  std::vector<double> coordination;
  std::vector<double> g_error;             // block-average standard error of g
  std::vector<double> coordination_error;  // and of n(r) (empty in files written before it)
};

struct RunOutput {
  std::string path;         // the file actually read
  std::string length_unit;  // "nm" or "angstrom"
  std::vector<double> r;    // bin centres
  double r_max = 0;
  int64_t n_frames = 0;
  std::vector<RunOutputPair> pairs;
  std::vector<std::string> notes;  // what to tell the user about the file (StoredRun::notes)

  bool has_rdf() const { return !pairs.empty() && !pairs.front().g.empty(); }
  bool has_errors() const { return !pairs.empty() && !pairs.front().g_error.empty(); }
};

/// Reads a run's output from `path`: a pairhist.h5, an rdf.csv, or the output directory holding
/// them (pairhist.h5 preferred). Pairs come in the run's order (A-A, A-B, ..., B-B, ... by the
/// order of --species; HDF5 files without a config attribute: by name). A pairhist.h5 is checked
/// as read_histogram_result() checks it (checksum, bounds of its counts, bins); an rdf.csv's
/// counts must be non-negative whole numbers. Throws InputError, naming the path, for a missing
/// or unreadable file, a file that is not a pairhist output, or inconsistent contents.
RunOutput read_run_output(const std::string& path);

}  // namespace pairhist::io
