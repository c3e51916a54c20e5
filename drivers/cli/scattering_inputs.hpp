// What `pairhist scattering` (and `pairhist run --scattering`, and Python's pairhist.scattering)
// computes from: the options, the run's counts read back, the q grid, which element every species
// is and its weight at every q. docs/scattering.md.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "analysis/scattering_debye.hpp"
#include "analysis/scattering_elements.hpp"
#include "analysis/scattering_factors.hpp"
#include "analysis/scattering_structure.hpp"
#include "drivers/job/trajectory_job.hpp"
#include "io/results/histogram_result_reader.hpp"

namespace pairhist {

struct ScatteringOptions {
  std::string input;             // run output directory or its pairhist.h5
  std::string output_dir;        // empty: the directory of the pairhist.h5
  double q_max = 50;             // in q_unit
  int nq = 501;                  // q = q_max i / (nq - 1), i = 0 .. nq - 1
  std::string q_file;            // instead of q_max/nq: one q (in q_unit) per line
  std::vector<double> q_values;  // instead of all three (Python): increasing q, in q_unit
  std::string q_unit = "nm";     // of q in and out: nm (1/nm), angstrom or A (1/A)
  std::string radiation = "xray";
  std::string within_bin = "exact";
  std::string precision = "double";
  std::string topology;                  // empty: the run's own
  std::vector<std::string> elements;     // SPECIES=SYMBOL
  std::vector<std::string> deuteration;  // FRACTION (every H species) or SPECIES=FRACTION
  std::string table;                     // user weights (io/scattering/scattering_table_reader.hpp)
  bool structure_factor = false;         // S(q) from g(r) instead of the Debye intensity
  // Periodic runs: the Debye intensity of the histograms cut at r_max, which periodic runs
  // otherwise do not write (their default is S(q)): `scattering` writes it instead of S(q),
  // `run --scattering` as well as S(q). Runs without a box write that intensity anyway.
  bool cut_sphere = false;
  std::string window = "lorch";  // of the structure factor's transform
  std::string subtract;    // the solvent run whose intensity is subtracted (scattering_excess.hpp)
  double match_shell = 0;  // with subtract, sphere runs: the density-matching shell's width (nm)
  std::string form_factors = "itc";        // X-ray: itc (International Tables C 1992) or wk
  std::string hydrogen = "bonded";         // X-ray H: bonded (International Tables') or isolated
  std::string water_factors = "standard";  // X-ray: standard, or maff for water's O and H
  std::vector<std::string> maff;           // species that get MAFF whatever their residues
  // Intensity units (scattering_units.hpp): per frame in electrons^2 (fm^2) by default.
  std::string per = "frame";  // frame or molecule (divided by `molecules`)
  double molecules = std::numeric_limits<double>::quiet_NaN();       // solute molecules a frame
  double concentration = std::numeric_limits<double>::quiet_NaN();   // mol/L: I in 1/cm
  double number_density = std::numeric_limits<double>::quiet_NaN();  // per nm^3: I in 1/cm
};

struct ScatteringInputs {
  io::StoredRun run;
  analysis::Radiation radiation = analysis::Radiation::xray;
  analysis::XrayFactorChoice xray;  // --form-factors, --hydrogen
  std::vector<double> q;            // 1/nm
  analysis::ScattererAssignment assignment;
  std::vector<analysis::ScattererWeight> weights;  // per species
  std::vector<std::vector<double>> weight_grid;    // [species][q]
};

/// What the sums of `run --scattering` weigh the bins with (analysis::DebyeKernels,
/// StructureKernels): they depend on the q grid and the bins only, so the run computes them while
/// it counts, and the sums after it take them from here.
struct ScatteringKernels {
  analysis::DebyeKernels debye;
  analysis::StructureKernels structure;  // with options.structure_factor
};

/// The options checked (as scattering_option_problems(), without the run's species) with what
/// they name read, once: the radiation, the q grid (--q-file read) and the user table. Everything
/// after it (the scatterers, the kernels, the sums) takes it from here and reads neither the
/// options' files nor checks the options again. Throws UsageError for bad options (every problem
/// one line), InputError for an unreadable q file or table.
struct ResolvedScattering {
  ScatteringOptions options;
  analysis::Radiation radiation = analysis::Radiation::xray;
  analysis::XrayFactorChoice xray;  // --form-factors, --hydrogen
  std::vector<double> q;            // 1/nm (the options' values converted from q_unit)
  analysis::ScattererTable table;   // --table's weights; empty without it
};
ResolvedScattering resolve_scattering(const ScatteringOptions& options);

/// Checks the options that need no file, reads the q file, the user table and the run, decides
/// every species' scatterer (`known` where given, else --element, else the run's topology, else
/// guessed) and its weights. Throws UsageError for bad options (q grid, radiation, an unknown
/// species or element, deuteration of X-rays, q beyond the X-ray fits), InputError for an
/// unreadable run, topology, q file or table.
ScatteringInputs read_scattering_inputs(const ScatteringOptions& options,
                                        const analysis::ScattererAssignment* known = nullptr);

/// As read_scattering_inputs(), with the options resolved and the run given (`run --scattering`:
/// the result just written, as io::stored_run() makes it) instead of read from options.input.
ScatteringInputs scattering_inputs(const ResolvedScattering& resolved, io::StoredRun run,
                                   const analysis::ScattererAssignment* known = nullptr);

/// The problems of the options alone, one line each (no file read): the radiation (named
/// `radiation_flag` in the line: `run` calls it --scattering), --within-bin, --precision, --window
/// (with structure_factor), the q grid, deuteration of X-rays and fractions that are no numbers,
/// q beyond the X-ray fits without a --table, and, where `species` (the run's names) is not
/// empty, --element and --deuterate for species that do not exist. resolve_scattering() and
/// `pairhist run --scattering` (with its other usage errors, before any work) check these first.
std::vector<std::string> scattering_option_problems(
    const ScatteringOptions& options, const std::vector<std::string>& species,
    const std::string& radiation_flag = "--radiation");

/// `pairhist run --scattering` once the run is defined (JobHooks::on_defined), before it
/// counts: every species' scatterer from `topology` and the run's species' atoms, checked as
/// read_scattering_inputs() checks it (an element without a weight, deuteration of another
/// element), so that a bad option or an unknown element costs no run. Returns the scatterers
/// before deuteration, for the sums after the run: the topology is read once. Throws as
/// read_scattering_inputs(), and UsageError for species that share atoms or are not fixed atoms.
analysis::ScattererAssignment decide_run_scatterers(const ResolvedScattering& resolved,
                                                    const RunDefinition& run,
                                                    const analysis::Topology& topology);

/// "" when the sums over `nq` q values and `nbins` bins are within the limit of 10^8 q x bins,
/// else one line saying so with the memory their kernels would take: every q weighs every bin by
/// a sine integral (about 1.2 us of a core each here), so a 10^7-line q file on 600 bins ran for
/// an hour without a word. `pairhist scattering` checks it once the run is read, `run
/// --scattering` before it counts.
std::string scattering_size_problem(size_t nq, int64_t nbins);

/// `v` with `digits` significant digits, '.' as the decimal point.
std::string scattering_number(double v, int digits = 6);

}  // namespace pairhist
