// `pairhist scattering RESULT`: X-ray or neutron scattering intensities of a finished run from its
// exact pair histograms (Debye's equation), without counting again. docs/scattering.md.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "analysis/scattering_debye.hpp"
#include "analysis/scattering_factors.hpp"

namespace pairhist {

struct ScatteringOptions {
  std::string input;       // run output directory or its pairhist.h5
  std::string output_dir;  // empty: the directory of the pairhist.h5
  double q_max = 50;       // 1/nm
  int nq = 501;            // q = q_max i / (nq - 1), i = 0 .. nq - 1
  std::string q_file;      // instead of q_max/nq: one q (1/nm) per line
  std::string radiation = "xray";
  std::string within_bin = "exact";
  std::string precision = "double";
  std::string topology;                  // empty: the run's own
  std::vector<std::string> elements;     // SPECIES=SYMBOL
  std::vector<std::string> deuteration;  // FRACTION (every H species) or SPECIES=FRACTION
  std::string table;                     // user weights (io/scattering_table_reader.hpp)
};

struct ScatteringResult {
  std::string csv, xvg;              // files written
  std::vector<std::string> guesses;  // elements guessed from atom names ("OW -> O")
  std::vector<std::string> notes;    // what the user should know (truncation, wide bins)
  analysis::DebyeIntensity intensity;
};

/// Reads the run, decides every species' scatterer, computes the intensity and writes
/// intensity.csv and intensity.xvg atomically. Throws UsageError for bad options (q grid,
/// radiation, an unknown species or element, deuteration of X-rays), InputError for an unreadable
/// run, topology or table, OutputError if a file cannot be written.
ScatteringResult compute_scattering(const ScatteringOptions& options);

/// Adds the `scattering` subcommand to app.
void add_scattering_command(CLI::App& app);

}  // namespace pairhist
