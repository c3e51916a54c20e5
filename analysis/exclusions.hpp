// Pairs the kernels count but the histograms leave out: the self pairs of atoms that belong to
// two species, and excluded pairs (`run --exclude residue`: atoms of the same residue).
//
// The kernels still count every pair: skipping pairs inside them would cost every pair a test.
// Instead the host recomputes, each frame, the bins of the few excluded pairs with the kernels'
// own arithmetic (include/pairhist/geometry.hpp, the run's precision and box handling) and the
// job subtracts them. Both sides compute the same bin bit for bit, so the corrected counts are
// exact and independent of the schedule.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analysis/topology.hpp"
#include "pairhist/box_setup.hpp"
#include "pairhist/precision.hpp"

namespace pairhist::analysis {

// residue: atoms of the same residue; topology: the bonded exclusions a .tpr lists (gmx rdf -excl).
enum class ExcludeMode { none, residue, topology };

/// "none", "residue" or "topology"; throws UsageError otherwise.
ExcludeMode parse_exclude_mode(const std::string& text);

/// Species pairs (a <= b), as the run counts them: species_pairs() order, or the part of it a run
/// asked for (`run --pairs`).
using SpeciesPairs = std::vector<std::pair<int, int>>;

/// |A ∩ B| of every species pair of `pairs` (0 for A with itself); species_atoms ascending. The
/// kernels pair each shared atom with itself at distance exactly 0 (bin 0).
std::vector<uint64_t> count_shared_atoms(const std::vector<std::vector<int>>& species_atoms,
                                         const SpeciesPairs& pairs);

class PairExclusions {
 public:
  PairExclusions() = default;

  /// Finds the excluded pairs of every species pair of `pairs` (p below is an index into it).
  /// species_atoms holds each species' atom indices, ascending, as the frames are laid out for
  /// the engine. The self pair of an atom in two species is not listed: the job removes those
  /// separately.
  PairExclusions(ExcludeMode mode, const Topology& top, const std::string& topology_path,
                 const std::vector<std::vector<int>>& species_atoms, const SpeciesPairs& pairs);

  /// Excluded pairs per frame of species pair p, at any distance.
  uint64_t per_frame(size_t p) const { return lists_.empty() ? 0 : lists_[p].pairs.size(); }
  bool empty() const;

  /// Adds to hist[p][k] every excluded pair of this frame that the kernels counted in bin k of
  /// `bins` (those outside [r_min, r_cut) were never counted and are skipped). species_xyz[s] holds
  /// species s as x,y,z float triples, exactly as given to HistogramEngine::submit_frame; kind is
  /// the run's box kind (the engine's, which can differ from this frame's own classification).
  /// With `images` (EngineConfig::periodic_images, every periodic image counted) an excluded pair
  /// stands for its minimum image alone (the other images belong to other molecules), binned as
  /// the engine lays it out (pairhist/periodic_images.hpp: image_pair_bin).
  void add_frame(const std::vector<const float*>& species_xyz, const BoxMatrix& box, BoxKind kind,
                 const BinRange& bins, Precision precision,
                 std::vector<std::vector<uint64_t>>& hist, bool images = false) const;

  /// add_frame for a frame of dynamic species: only the excluded pairs whose two atoms this frame
  /// selects count. selected[s] flags each atom of species_atoms[s] (as given to the
  /// constructor: every atom the species may select); species_xyz is laid out as for add_frame.
  /// Adds to left_out[p] those pairs at any distance: the pairs species pair p leaves out of
  /// this frame.
  void add_selected_frame(const std::vector<const float*>& species_xyz,
                          const std::vector<std::vector<uint8_t>>& selected, const BoxMatrix& box,
                          BoxKind kind, const BinRange& bins, Precision precision,
                          std::vector<std::vector<uint64_t>>& hist, std::vector<uint64_t>& left_out,
                          bool images = false) const;

 private:
  struct List {
    int a = 0, b = 0;
    // (row in species a, column in species b): the kernels' orientation, d = x_col - x_row.
    std::vector<std::pair<int32_t, int32_t>> pairs;
  };
  void from_topology(const Topology& top, const std::string& topology_path,
                     const std::vector<std::vector<int>>& species_atoms, const SpeciesPairs& pairs);
  // selected: null for every pair, else add_selected_frame's flags and left_out.
  template <class T>
  void add_frame_as(const std::vector<const float*>& species_xyz,
                    const std::vector<std::vector<uint8_t>>* selected, const BoxMatrix& box,
                    BoxKind kind, const BinRange& bins, std::vector<std::vector<uint64_t>>& hist,
                    std::vector<uint64_t>* left_out, bool images) const;

  std::vector<List> lists_;
};

}  // namespace pairhist::analysis
