// `pairhist run --config FILE.yaml`: run settings from a YAML file, in one of two formats.
//
//  - pairhist's own: a flat map whose keys are the long names of `run`'s flags (rmax, nbins,
//    top, species, output, ...) plus `trajectory`; `species` may be a map NAME: SELECTION or a
//    list of "NAME=SELECTION". Unknown keys are errors.
//  - CADISHI's histograms.yaml, as CADISHI reads it (sections general, histogram, cpu, gpu,
//    input, output): r_max -> rmax (with units angstrom, CADISHI's unit), r_max/dr -> nbins,
//    sum -> interval, precision, input file/first/last/step (1-based in CADISHI), output
//    directory. CADISHI keys without a meaning here (worker counts, ...) are ignored with one
//    warning; keys CADISHI does not have are errors.
// Flags given on the command line win over the file.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <utility>
#include <vector>

namespace pairhist {

struct RunConfig {
  enum class Format { pairhist, cadishi };
  Format format = Format::pairhist;
  /// (flag long name without dashes, values), in file order.
  std::vector<std::pair<std::string, std::vector<std::string>>> settings;
  /// CADISHI keys ignored, as section.key.
  std::vector<std::string> ignored;
};

/// Reads and validates `path`. `known_keys` are the keys of pairhist's own format (the run
/// flags). Throws UsageError "path: problem" (one line) for unreadable files, YAML syntax errors,
/// unknown keys and bad values.
RunConfig read_run_config(const std::string& path, const std::vector<std::string>& known_keys);

/// Reads `path` and sets every option of `cmd` that the command line did not give; prints the
/// ignored CADISHI keys once on stderr. Throws UsageError as read_run_config, and for values the
/// option refuses.
void apply_run_config(CLI::App& cmd, const std::string& path);

}  // namespace pairhist
