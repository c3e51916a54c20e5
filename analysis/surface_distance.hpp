// gmx rdf -surf (pairhist rdf -surf mol|res): the distance from a position to the nearest atom of
// each surface group of the reference (its molecules or residues), binned.
//
// This is a per-frame pass on the CPU, not a task of the engine: the engine's kernels histogram
// every pair, while a surface distance is a minimum over a group's atoms before anything is
// binned, a different reduction that would need kernels of its own on every worker kind. The
// pass finds candidates with the engine's cell grid (pairhist/cell_grid.hpp) over the reference
// atoms, so a position looks only at atoms within r_max, and splits the positions among the
// host's cores. Distances and bins are the engine's (geometry.hpp, single precision): a group of
// one atom puts its distance in the bin the engine would put that pair in.
#pragma once

#include <cstdint>
#include <vector>

#include "pairhist/box_setup.hpp"
#include "pairhist/cell_grid.hpp"
#include "pairhist/geometry.hpp"

namespace pairhist::analysis {

/// The largest |coordinate| of the positions `atoms` of xyz (x, y, z each), for the grid's
/// margin. Throws std::domain_error naming the position (1-based) with a non-finite coordinate:
/// its distances would mean nothing.
double largest_coordinate(const float* xyz, const std::vector<int>& atoms);

class SurfaceDistances {
 public:
  /// The reference atoms `ref_atoms` (indices into xyz, nm), ref_atoms[k] in surface group
  /// group[k] (0 <= group < groups). Bins as the engine's: nbins over [0, r_max), r_max within
  /// the box's minimum-image limit, nothing counted at r >= r_cut (0: r_max). `box`: lower-triangular rows as GROMACS writes them, zeros
  /// for none. `max_abs`: at least the largest |coordinate| of the reference atoms and of every
  /// position asked about later (largest_coordinate). Throws std::invalid_argument for a
  /// triclinic box too skewed for the kernels (make_box).
  SurfaceDistances(const float* xyz, const std::vector<int>& ref_atoms,
                   const std::vector<int>& group, int groups, const BoxMatrix& box, double r_max,
                   int nbins, double r_cut, double max_abs);

  struct Hit {
    int group;
    int bin;
  };
  /// What nearest() keeps between calls (one per thread).
  struct Scratch {
    std::vector<float> best;  // per group: the smallest squared distance so far; +inf: none
    std::vector<int> touched;
  };
  Scratch scratch() const;

  /// For the position p (x, y, z): the bin of each group's nearest atom, for the groups with an
  /// atom in a bin below nbins. A group whose nearest atom sits at p itself (distance 0) is left
  /// out, as gmx counts only distances above -cut, 0 by default.
  void nearest(const float* p, Scratch& scratch, std::vector<Hit>& hits) const;

  /// counts[b] += 1 for every position of `positions` (indices into xyz) and group whose nearest
  /// atom's bin b is at least first_bin (bins below are gmx's -cut).
  void count(const float* xyz, const std::vector<int>& positions, int first_bin,
             uint64_t* counts) const;

 private:
  template <BoxKind K>
  void nearest_in(const float* p, Scratch& scratch, std::vector<Hit>& hits) const;

  /// A point's position moved into the unit cell by the lattice translations cell_of_point
  /// takes off (in bin units), and its cell.
  CellIndex unit_cell(const float* p, float u[3]) const;

  BoxKind kind_ = BoxKind::none;
  HistogramParams<float> params_;
  CellGrid grid_;
  int groups_ = 0;
  // An atom whose distance to the image in a neighbouring cell, which costs a few operations,
  // exceeds the group's best (or r_max) by more than every rounding can make up (slack, bins^2)
  // cannot be nearer: the engine's minimum image (a search of lattice vectors for a triclinic
  // box, ~20x the cost) is computed only for the others. Off where the grid has fewer than
  // 2 reach + 1 cells along an axis: a neighbour cell then stands for several images.
  bool prefilter_ = false;
  float slack_ = 0;
  double row_[3][3] = {};            // lattice vectors in bin units
  std::vector<uint32_t> start_;      // per cell key: its first atom in the sorted arrays
  std::vector<float> x_, y_, z_;     // the reference atoms by cell, as the kernels load them
  std::vector<float> ux_, uy_, uz_;  // and moved into the unit cell (unit_cell)
  std::vector<int> group_;           // their groups
};

}  // namespace pairhist::analysis
