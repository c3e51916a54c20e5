// The output directory of `pairhist run`: what may be written into it (a finished run's results
// are not replaced unless asked, an interrupted run's checkpoint is continued only when asked),
// the result files and the checkpoint.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "drivers/job/checkpoint.hpp"
#include "pairhist/result.hpp"

namespace pairhist {

/// The checkpoint file of a run writing to `dir`.
std::string checkpoint_path(const std::string& dir);

/// Throws UsageError when `dir` exists and is not a directory, or cannot be created or written.
void check_output_directory(const std::string& dir);

/// Every file a run writes into `dir` (its results, also those of --scattering, the checkpoint,
/// the lock): no input of the run may be one of them.
std::vector<std::string> run_directory_files(const std::string& dir);

/// What --overwrite replaces: the files an earlier run left in the output directory (results and
/// checkpoint), recorded before the run and left in place while it runs, so that a run that fails
/// (a misspelled species, a bad frame) leaves them as they were. Once the run has written its own
/// results, retire() removes those it did not write again.
class EarlierRun {
 public:
  /// Records the files of an earlier run in `dir` as they are now (device and inode).
  void record(const std::string& dir);
  /// Removes the recorded files that are still the ones recorded (this run's own, renamed into
  /// place, are other files), then forgets them all: called after each writing of results.
  void retire();
  /// Whether `path` is still a file of the earlier run (its checkpoint, not yet replaced).
  bool holds(const std::string& path) const;

 private:
  struct File {
    std::string path;
    uint64_t device = 0, inode = 0;
  };
  std::vector<File> files_;
};

/// Readies `dir` before any work. Fails (UsageError) when it exists and is not a directory, or
/// cannot be created or written. When it holds files of an earlier run (results or a
/// checkpoint): with `overwrite` they are left for the run to replace (EarlierRun); with `resume`
/// its checkpoint is read and returned if `identity` may continue it (else UsageError saying what
/// differs; InputError for a damaged checkpoint), also a finished run's record (whose results
/// must be there); with neither, UsageError saying what is there and which flag to add. A
/// resume with nothing of an earlier run in `dir` starts afresh (nullopt). Leftover temporary
/// files of killed runs are removed.
/// A finished run's pairhist.h5 must pass io::read_histogram_result's checks and hold the frames
/// the record names (else InputError).
std::optional<Checkpoint> prepare_output_directory(const std::string& dir, bool resume,
                                                   bool overwrite, const RunIdentity& identity);

/// Writes pairhist.h5, rdf.csv and (when normalisable) rdf.xvg and cn.xvg into `dir` (created if
/// needed), each atomically; returns their paths.
std::vector<std::string> write_results(const std::string& dir, const HistogramResult& result,
                                       const std::string& config_text);

}  // namespace pairhist
