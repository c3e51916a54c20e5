// A frame's selected species as structure-of-arrays columns, made on the thread that decoded the
// frame (XtcParallelReader's FramePreparation): the thread that feeds the engine then copies only
// contiguous columns instead of picking every selected atom out of the whole frame, which took
// one core longer than a GPU needs for the frame's cell lists (docs/performance.md). The columns
// are HostColumns (pinned once GPUs are fed), which the engine takes over without copying them.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "pairhist/host_columns.hpp"

namespace pairhist::io {

struct SpeciesColumns {
  std::vector<HostColumn> soa;  // per species: x[0..n), y[0..n), z[0..n)
  float lo[3] = {0, 0, 0};      // bounds over every species' points; meaningful when
  float hi[3] = {0, 0, 0};      // some point exists and all are finite
  int bad_species = -1;         // the first non-finite coordinate, if any
  int64_t bad_position = -1;    // (its position within the species)
  bool filled = false;          // false: the frame carries no columns
};

/// Fills `out` with species s made of the atoms atoms[s] (indices into xyz, atom-major x,y,z
/// triples), reusing its storage, on `threads` threads (this one and more); its bounds and
/// first non-finite coordinate as measure_species_columns finds them.
void gather_species_columns(const float* xyz, const std::vector<std::vector<int>>& atoms,
                            SpeciesColumns& out, int threads = 1);

/// Finds the bounds of columns written without them (ColumnWriter) and their first non-finite
/// coordinate, as gather_species_columns does; one vectorised pass.
void measure_species_columns(SpeciesColumns& columns);

/// Makes `to` a copy of the columns `from` (unpinned staging into pinned columns), reusing its
/// storage where big enough, and measures them on the way, as measure_species_columns: the copy
/// reads every coordinate anyway.
void copy_species_columns(const std::vector<HostColumn>& from, SpeciesColumns& to);

/// Where each atom of a frame lands among the species' columns, for a decoder that writes the
/// columns as it decodes (no whole frame written, then read back: that pass cost a third of a
/// decoding thread's time per frame on the H100 host). Needs every atom in at most one species.
class ColumnMap {
 public:
  /// A map for frames of `natoms` atoms; usable() is false if an atom is in two species (or out
  /// of range), and then a decoder must gather instead.
  ColumnMap(const std::vector<std::vector<int>>& atoms, int natoms);
  bool usable() const { return usable_; }
  size_t species() const { return sizes_.size(); }
  int64_t size(size_t s) const { return sizes_[s]; }
  /// The species of atom i (-1: none) and its position there.
  int species_of(int64_t i) const { return species_of_[static_cast<size_t>(i)]; }
  int32_t position_of(int64_t i) const { return position_of_[static_cast<size_t>(i)]; }

 private:
  bool usable_ = true;
  std::vector<int64_t> sizes_;
  std::vector<int16_t> species_of_;
  std::vector<int32_t> position_of_;
};

/// Writes atoms, in frame order, into the columns of a map (sized by the constructor); add() is
/// the decoder's inner step, so it stays inline. The bounds and the finiteness check are left to
/// a vectorised pass over the columns (measure_species_columns, or the copy into pinned columns):
/// tracked atom by atom they made decoding into columns 30% slower than decoding into one array
/// (0.13 against 0.10 s for a 10.9M-atom frame on the 2-core machine, 0.10 s without them).
class ColumnWriter {
 public:
  ColumnWriter(const ColumnMap& map, SpeciesColumns& out);
  void add(float x, float y, float z) {
    const int s = map_.species_of(atom_);
    if (s >= 0) {
      const int64_t i = map_.position_of(atom_), n = map_.size(static_cast<size_t>(s));
      float* col = base_[static_cast<size_t>(s)];
      col[i] = x;
      col[n + i] = y;
      col[2 * n + i] = z;
    }
    ++atom_;
  }

 private:
  const ColumnMap& map_;
  std::vector<float*> base_;
  int64_t atom_ = 0;
};

}  // namespace pairhist::io
