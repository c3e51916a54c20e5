// `pairhist scattering RESULT`: X-ray or neutron scattering of a finished run from its exact pair
// histograms, without counting again: Debye intensities, or for periodic runs the structure
// factors from g(r). docs/scattering.md.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "analysis/scattering_debye.hpp"
#include "analysis/scattering_structure.hpp"
#include "drivers/cli/scattering_inputs.hpp"
#include "io/scattering/scattering_hdf5.hpp"
#include "io/scattering/scattering_writers.hpp"

namespace pairhist {

/// Block-average standard errors of a result's curves (drivers/cli/scattering_errors.hpp): empty
/// unless its run has two or more interval blocks.
struct ScatteringErrors {
  size_t blocks = 0;
  std::vector<double> total;                 // of I, S or dI
  std::vector<std::vector<double>> partial;  // of the partials, in the pairs' order
  std::vector<double> f_total;               // of F (structure factors)
};

struct ScatteringResult {
  std::string run_path;                      // the pairhist.h5 read
  std::vector<std::string> guesses;          // elements guessed from atom names ("OW -> O")
  std::vector<std::string> notes;            // what the user should know (truncation, wide bins)
  std::vector<std::string> species;          // names, in the run's order
  std::vector<std::string> pairs;            // "A-B" labels of the partials, in their order
  std::vector<std::vector<double>> weights;  // [species][q]
  analysis::DebyeIntensity intensity;        // without structure_factor
  analysis::StructureFactors structure;      // with structure_factor
  ScatteringErrors errors;                   // from interval blocks, where the run has them
  io::QTable table;                          // what the text files hold
  io::ScatteringData data;                   // what the .h5 holds: the same, with attributes
  std::string box_kind;                      // of the run: none, orthorhombic, triclinic
  double r_max_nm = 0;                       // where its histograms stop
  double mean_volume_nm3 = 0;                // its boxes' mean volume (0 without a box)
  size_t plotted = 0;                        // the table's first columns go into the .xvg
  std::string stem;                          // "intensity", "sq" or "excess"
  std::string csv, xvg, h5;                  // files written (write_scattering)
  // An excess: its P(r) as CSV text (written as excess_pr.csv), and the lines that say what was
  // fitted (on stdout after the files).
  std::string distribution_text, distribution_csv;
  std::vector<std::string> summary;
};

/// Reads the run, decides every species' scatterer and computes the Debye intensity or (with
/// options.structure_factor) the structure factors; writes nothing. `known`: the scatterers
/// decided already from the run's own topology (`run --scattering`, before deuteration), so
/// that the topology is not read again. Throws UsageError for bad options (q grid, radiation,
/// window, an unknown species or element, deuteration of X-rays, a structure factor of a run
/// without a box), InputError for an unreadable run, topology or table.
ScatteringResult compute_scattering(const ScatteringOptions& options,
                                    const analysis::ScattererAssignment* known = nullptr);

/// Writes STEM.csv, STEM.xvg and STEM.h5 (intensity, sq or excess) atomically into
/// options.output_dir, or beside the run's pairhist.h5; sets result.csv, .xvg and .h5. Throws
/// OutputError if a file cannot be written.
void write_scattering(const ScatteringOptions& options, ScatteringResult& result);

/// The intensity or (options.structure_factor) the structure factors from inputs at hand, with
/// the kernels computed ahead where given and fitting (compute_scattering() reads the inputs
/// first). Writes nothing.
ScatteringResult scattering_from_inputs(const ScatteringOptions& options,
                                        const ScatteringInputs& inputs,
                                        const ScatteringKernels* kernels = nullptr);

/// Creates options.output_dir where given and sets result.csv, .xvg and .h5 (STEM.*, there or
/// beside the run's pairhist.h5) without writing them. Throws OutputError for a directory that
/// cannot be made.
void name_scattering_files(const ScatteringOptions& options, ScatteringResult& result);

/// On stderr, as `pairhist COMMAND`: the guess warning (once), and with `notes` every distinct
/// note of the results.
void report_scattering(const char* command, const std::vector<ScatteringResult>& results,
                       bool notes);

/// The options `scattering` and `run --scattering` share, named alike: the q grid, the structure
/// factor (`on_run`: written as well as the intensity, else instead of it) and its window, the
/// within-bin rule, elements, deuteration and the user table.
void add_scattering_options(CLI::App* cmd, ScatteringOptions& options, bool on_run);

/// Which of add_scattering_options()' flags cmd was given (on the command line or, for `run`, in
/// its --config file).
std::vector<std::string> scattering_flags_given(const CLI::App& cmd);

/// Adds the `scattering` subcommand to app.
void add_scattering_command(CLI::App& app);

}  // namespace pairhist
