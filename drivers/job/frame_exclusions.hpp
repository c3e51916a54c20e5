// The bins of the excluded pairs the kernels count in each frame (--exclude residue), taken out of
// the counts (drivers/job/trajectory_pipeline.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "analysis/exclusions.hpp"
#include "drivers/job/job_accumulator.hpp"
#include "io/trajectory/trajectory_reader.hpp"
#include "pairhist/engine.hpp"

namespace pairhist {

/// The bins of each frame's excluded pairs that the kernels count, in buffers kept from frame to
/// frame: the exclusions need the species' coordinates as the engine got them.
class FrameExclusions {
 public:
  FrameExclusions(const analysis::PairExclusions& exclusions,
                  const std::vector<std::vector<int>>& atoms, size_t npairs, int nbins,
                  double r_cut_nm, double r_min_nm);
  /// `frame`'s bins (empty without exclusions), for a run of box kind `kind`. A frame of
  /// dynamic species passes its atoms (`frame_atoms`, each species a subset of `atoms`): only
  /// the excluded pairs of atoms it selects count, and their number per pair, at any distance,
  /// is subtracted from `frame_pairs` (the frame's pairs, as select_frame_species made them).
  /// With `images` (every periodic image counted) an excluded pair is its minimum image only.
  SparseBins bins_of(const io::TrajectoryFrame& frame, const BoxMatrix& box, BoxKind kind,
                     bool images, double r_max_nm, Precision precision,
                     const std::vector<std::vector<int>>* frame_atoms = nullptr,
                     std::vector<uint64_t>* frame_pairs = nullptr);

 private:
  void flag_selected(const std::vector<std::vector<int>>& frame_atoms);

  const analysis::PairExclusions& exclusions_;
  const std::vector<std::vector<int>>& atoms_;
  int nbins_;
  double r_cut_nm_;  // as the engine's EngineConfig::r_cut
  double r_min_nm_;  // as the engine's EngineConfig::r_min
  std::vector<std::vector<float>> species_xyz_;
  std::vector<const float*> species_ptr_;
  std::vector<std::vector<uint64_t>> bins_;     // per pair, all 0 between frames
  std::vector<std::vector<uint8_t>> selected_;  // per species, per atom of atoms_: in this frame
  std::vector<uint64_t> left_out_;              // per pair: this frame's excluded pairs
};

}  // namespace pairhist
