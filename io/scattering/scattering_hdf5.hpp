// HDF5 output of `pairhist scattering` (intensity.h5, sq.h5, excess.h5): the curves of the CSV
// beside it at full double precision, with what they are (radiation, units, every species'
// scatterer and weight source) as attributes, and the reader that takes them back.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace pairhist::io {

/// A curve over q at the file's root: I, S, F, dI, I_solution, I_solvent.
struct ScatteringCurve {
  std::string name;
  std::string unit;  // "electrons^2 per frame", "fm^2 per atom", "1"
  std::vector<double> values;
};

/// The partial of species pair a-b (I_a-b or S_a-b), in the unit of the first curve.
struct ScatteringPartial {
  std::string a, b;
  std::vector<double> values;
};

struct ScatteringSpecies {
  std::string name;
  std::string scatterer;  // element or ion label: O, Na1+, D
  std::string origin;     // how the scatterer was decided ("set by --element", ...)
  std::string source;     // where its weight comes from (a table, a file)
  int64_t atoms = 0;      // per frame (of the first run, for an excess)
  double deuterium = 0;   // neutron hydrogen: the fraction of D
  double concentration = std::numeric_limits<double>::quiet_NaN();  // structure factors only
  std::vector<double> weight;  // f(q) in electrons or b in fm, one per q
};

/// An excess's pair-distance distribution P(r) (as excess_pr.csv): per bin centre r (nm), P =
/// pairs + background; unit that of the excess before any intensity unit was applied.
struct ScatteringDistribution {
  std::string unit;
  std::vector<double> r, total, pairs, background;
};

struct ScatteringData {
  std::string quantity;           // intensity | structure_factor | excess_intensity
  std::string radiation;          // xray | neutron
  std::string weight_unit;        // electrons | fm
  std::string q_unit = "1/nm";    // of q: 1/nm | 1/A
  std::vector<std::string> runs;  // the pairhist.h5 files read
  std::vector<std::pair<std::string, std::string>> options;   // within_bin, precision, window, ...
  int64_t n_frames = 0;                                       // of the (first) run
  bool complete = true;                                       // every run read had finished
  std::string stopped_by;                                     // when not complete
  double density = std::numeric_limits<double>::quiet_NaN();  // structure factors: atoms/nm^3
  std::vector<std::string> header;                            // the lines the CSV starts with
  std::vector<double> q;                                      // in q_unit
  std::vector<ScatteringCurve> curves;
  std::vector<ScatteringPartial> partials;
  // With a run's interval blocks: the standard errors of the partials (those of the curves are
  // curves named <curve>err: Ierr, Serr, Ferr, dIerr); empty without blocks.
  std::vector<ScatteringPartial> partial_errors;
  std::vector<ScatteringSpecies> species;
  ScatteringDistribution distribution;  // an excess's P(r); r empty where there is none

  /// The option's value, or "" where the file has none.
  std::string option(const std::string& key) const;
};

/// Writes `data` to `path` atomically (temporary file + rename). Layout:
///
///   /                 attributes format = "pairhist scattering", format_version = 1, version,
///                     quantity, radiation, weight_unit, q_unit ("1/nm" or "1/A"), runs, n_frames,
///                     complete, stopped_by (if not complete), density (if known), header (the
///                     CSV's comment lines), and one attribute per option
///   /q                float64 [nq]   in q_unit
///   /<curve>          float64 [nq]   attribute unit; I, or S and F, or dI, I_solution, I_solvent
///   /partials/<A>,<B> float64 [nq]   attributes a, b (the species), unit
///   /partial_errors/<A>,<B>          as /partials: their block-average standard errors (only
///                                    with interval blocks; so are the curves <curve>err)
///   /weights/<A>      float64 [nq]   attributes scatterer, origin, source, atoms (int64),
///                                    deuterium (neutron), concentration (structure factors),
///                                    unit
///   /distribution/r, P, P_pairs, P_background  float64 [bins]  an excess's P(r) (excess_pr.csv):
///                                    r in nm (attribute unit "nm"), the others attribute unit
///
/// Groups track the order in which their members were written (species and pairs in the run's
/// order; h5py lists them so). No object carries a modification time, so the same data give the
/// same bytes. Throws std::logic_error for curves of the wrong length, UsageError for species
/// names that cannot name an HDF5 link ('/', ',', '.', empty), OutputError naming `path`
/// otherwise.
void write_scattering_hdf5(const std::string& path, const ScatteringData& data);

/// Reads what write_scattering_hdf5() wrote. Throws InputError naming `path` for a missing or
/// damaged file, or one that is not a pairhist scattering file.
ScatteringData read_scattering_hdf5(const std::string& path);

/// True when `path` is an HDF5 file with the root attribute format = "pairhist scattering".
bool is_scattering_hdf5(const std::string& path);

}  // namespace pairhist::io
