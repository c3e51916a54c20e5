// The standard benchmark cases (K1..K6, F1, and the real-liquid W1, W1-T) written as an XTC
// trajectory plus a GRO topology, with the `pairhist run` command that histograms them, so the
// file-based pipeline can be timed and checked on exactly the workloads that `pairhist bench`
// feeds to the kernels directly (`pairhist synth`, drivers/cli/synth_command.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace pairhist {

struct SynthOptions {
  std::string case_name = "F1";
  int64_t n = 0;     // > 0: rescale the case to about n atoms (as `bench --n`)
  int frames = 0;    // > 0: override the case's frame count (W1: cycles through the sample's)
  int replicas = 0;  // W1, W1-T: > 0 sets the replica count n (n^3 copies) directly
  std::string sample_xtc, sample_gro;  // W1, W1-T: the liquid sample (empty: the bundled one)
  std::string output;                  // directory; created if missing
  // XTC precision (steps per nm); 0 picks one whose step is at most a tenth of a histogram bin,
  // never below GROMACS's default of 1000.
  double precision = 0;
  // Called after every frame with (frames written, frames total); may be empty.
  std::function<void(int, int)> progress;
};

struct SynthResult {
  std::string xtc_path, gro_path;
  std::vector<std::string> species;  // atom names S0, S1, ... in file order (W1: O, H)
  int natoms = 0;
  int replicas = 0;  // W1, W1-T: replicas per lattice direction
  int frames = 0;
  double precision = 0;
  uint64_t xtc_bytes = 0;
  double seconds = 0;  // time spent writing the XTC
  // `pairhist run` arguments (without the program name) that histogram the written case the
  // way `pairhist bench` does, and the same as one shell-quoted line.
  std::vector<std::string> run_args;
  std::string run_command;
  // Non-empty where the run command cannot match the case exactly (K2's r_max, see synth_case).
  std::string note;
};

/// Writes <output>/<case>.xtc and <output>/<case>.gro. W1 and W1-T are written by
/// synth_liquid_case (synth_liquid.hpp); the rest of this comment is about the random cases.
///
/// Atoms are the case's species one after another; every atom is its own residue, residue and
/// atom name are the species name S<k> (k = 0, 1, ... in the case's order), so
/// `--species A=S0` selects species 0. Coordinates are those of case_coordinates(), frame t at
/// step t and time t ps. K cases are defined in a unit cube and are written as they are, in nm;
/// F1 is defined in Angstrom (150 A cube, r_max 300 A) and is written converted to nm, with
/// `--units angstrom` in the run command. Periodic cases (K2, K3) carry their box in every frame
/// and in the GRO file; the others have a zero box (no periodicity). The run command's --rmax is
/// the case's, cut to the box's minimum-image limit, beyond which `pairhist run` counts every
/// periodic image instead of the case's minimum image (K2: 0.5 nm
/// instead of sqrt(3)/2, explained in SynthResult::note). Both files appear atomically.
/// Throws UsageError for an unknown case or bad option, OutputError if the files cannot be written.
SynthResult synth_case(const SynthOptions& options);

/// Shell-quotes one argument (only where it needs quoting).
std::string shell_quote(const std::string& s);

}  // namespace pairhist
