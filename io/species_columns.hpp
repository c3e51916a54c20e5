// A frame's selected species as structure-of-arrays columns, gathered on the thread that decoded
// the frame (XtcParallelReader's frame hook): the thread that feeds the engine then copies only
// contiguous columns instead of picking every selected atom out of the whole frame, which took
// one core longer than a GPU needs for the frame's cell lists (docs/performance.md).
#pragma once

#include <cstdint>
#include <vector>

namespace pairhist::io {

struct SpeciesColumns {
  std::vector<std::vector<float>> soa;  // per species: x[0..n), y[0..n), z[0..n)
  float lo[3] = {0, 0, 0};              // bounds over every species' points; meaningful when
  float hi[3] = {0, 0, 0};              // some point exists and all are finite
  int bad_species = -1;                 // the first non-finite coordinate, if any
  int64_t bad_position = -1;            // (its position within the species)
  bool filled = false;                  // false: the frame carries no columns
};

/// Fills `out` with species s made of the atoms atoms[s] (indices into xyz, atom-major x,y,z
/// triples), reusing its storage; stops at the first species with a non-finite coordinate.
void gather_species_columns(const float* xyz, const std::vector<std::vector<int>>& atoms,
                            SpeciesColumns& out);

}  // namespace pairhist::io
