// The output directory of `pairhist run`: what may be written into it (a finished run's results
// are not replaced unless asked, an interrupted run's checkpoint is continued only when asked),
// the result files and the checkpoint.
#pragma once

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

/// Readies `dir` before any work. Fails (UsageError) when it exists and is not a directory, or
/// cannot be created or written. When it holds files of an earlier run (results or a
/// checkpoint): with `overwrite` those files are removed (nothing else); with `resume` its
/// checkpoint is read and returned if `identity` may continue it (else UsageError saying what
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
