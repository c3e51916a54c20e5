// `pairhist synth --case W1|W1-T`: a real liquid sample replicated n x n x n
// (replicated_liquid.hpp) written as XTC + GRO, with the `pairhist run` command for its O and H
// species.
#pragma once

#include "drivers/workloads/synth_case.hpp"

namespace pairhist {

/// Writes <output>/<case>.xtc (every frame the corresponding sample frame replicated, box n times
/// the sample's, precision 1000 per nm unless options.precision says otherwise) and
/// <output>/<case>.gro (the first written frame; atom and residue names kept, residues numbered
/// on across replicas, atom and residue numbers wrapped at 100,000 as GROMACS writes them). The
/// replica count is options.replicas, else round(cbrt(options.n / sample atoms)) (n = 1.4e6 when
/// neither is given); options.frames (0: the sample's count) cycles through the sample's frames.
/// The run command selects O = OW and H = HW1, HW2 with r_max 1.2 nm and 240 bins. Both files
/// appear atomically. Throws UsageError for bad options or a missing sample, InputError for an
/// unreadable sample, OutputError when the files cannot be written.
SynthResult synth_liquid_case(const SynthOptions& options);

}  // namespace pairhist
