// CHARMM/NAMD/X-PLOR protein structure files (.psf): the atoms' segments, residues, names, types,
// charges and masses, and the bonds, from which molecules and bonded exclusions follow.
#pragma once

#include <string>

#include "analysis/bond_graph.hpp"
#include "analysis/topology.hpp"

namespace pairhist::io {

/// Reads `path`. The header line "PSF" may carry the flags EXT (wider fixed columns), CHEQ
/// (two more numbers per atom), XPLOR (type names instead of numbers), CMAP, DRUDE and NAMD
/// (fields separated by blanks, any width). An atom line is read by CHARMM's columns
/// (I8,1X,A4,1X,A4,1X,A4,1X,A4 or EXT's I10,1X,A8,...: number, segid, resid, resname, name),
/// then blank-separated fields (type, charge, mass, ...); a line that does not fit those columns
/// (NAMD, VMD, hand-written files) is read as blank-separated fields throughout. A resid with an
/// insertion code ("1H") keeps its number. Every atom gets its type (a number or a name, as
/// written), charge (e) and mass (u); its element is the one whose standard weight lies within
/// 0.1 u of its mass, else, for a mass of at least 1 u (repartitioned hydrogen masses), the one
/// guessed from its name as scattering guesses; below 1 u (lone pairs, Drude particles) none.
/// Bonds (!NBOND) give molecules (connected atoms) and the exclusions GROMACS's CHARMM force
/// fields make (atoms up to 3 bonds apart); a file without a bond section has neither. Sections
/// after the bonds are not read. No coordinates: a PSF has none.
/// Throws InputError "path: line N: problem" for a malformed file, a declared count that the rest
/// of the file cannot hold, and a bond naming an atom that does not exist. `bonds`, where given,
/// receives the bonds as listed (0-based).
analysis::Topology read_psf(const std::string& path, analysis::BondList* bonds = nullptr);

}  // namespace pairhist::io
