// The distance test of dynamic selections (`within R of SEL`, `around R SEL`,
// analysis/selection.hpp): which atoms lie within R of any atom of a target set in one frame, by
// a cell grid over the target atoms rather than by all pairs, so that a frame of ~1e6 atoms takes
// milliseconds.
#pragma once

#include <vector>

#include "pairhist/box_setup.hpp"

namespace pairhist::analysis {

/// Sets hit[c] = 1 for every atom c of `candidates` whose distance to some atom of `targets` is
/// at most `radius` (the boundary belongs to the selection, as in GROMACS's neighbourhood
/// search), and leaves the other entries of `hit` as they are. Distances are taken in double
/// precision from the float coordinates `xyz` (3 per atom); with a periodic box (orthorhombic or
/// triclinic, lower-triangular as GROMACS writes them) to the nearest periodic image of a target,
/// i.e. the minimum-image distance; with an all-zero box directly. Any radius and box are exact:
/// a radius beyond half the box only makes the grid search more images. `hit` has one entry per
/// atom; `radius` is in the coordinates' unit (nm). Throws std::domain_error naming the atom
/// (1-based) when a target or candidate has a non-finite coordinate.
void mark_within(const float* xyz, const BoxMatrix& box, const std::vector<int>& targets,
                 const std::vector<int>& candidates, double radius, std::vector<char>& hit);

}  // namespace pairhist::analysis
