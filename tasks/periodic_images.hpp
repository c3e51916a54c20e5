// EngineConfig::periodic_images: a run that counts every periodic image within r_max (r_max
// beyond half a box's shortest lattice vector). The engine counts it as a run without a box over
// more species: each species moved into the cell, and the halos of its images
// (include/pairhist/periodic_images.hpp explains the pairs), so the exact no-box kernels, both
// algorithms, every scheduler and CPU and GPU alike count it; this class is the one place that
// lays a frame out that way and folds the counts back into the caller's species pairs.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "pairhist/engine.hpp"

namespace pairhist {

class PeriodicImages {
 public:
  /// `user`: the caller's configuration (periodic_images set, a periodic box kind).
  explicit PeriodicImages(const EngineConfig& user);

  /// The engine's own configuration: no box; species 0..S-1 the caller's (moved into the cell),
  /// then a full halo for every species met by a lower one, a half halo for every species met by
  /// itself; only the pairs that make up the caller's pairs counted. Halos start with capacity 0
  /// (their size comes with the frames: FrameRing grows them).
  const EngineConfig& internal() const { return internal_; }

  /// Lays out one frame (species s: counts[s] points as x[0..n), y[0..n), z[0..n) floats,
  /// finite) in precision T. Afterwards counts() and copy() give the engine's species.
  template <class T>
  void prepare(const BoxMatrix& box, const std::vector<const float*>& soa,
               const std::vector<int64_t>& counts);
  /// The prepared frame's atoms per engine species.
  const std::vector<int64_t>& counts() const { return counts_; }
  /// Writes engine species s of the prepared frame as x[0..n), y, z (values exact in T).
  template <class T>
  void copy(size_t s, T* out) const;

  /// The engine's histograms (its species_pairs() order) summed into the caller's pairs.
  std::vector<std::vector<uint64_t>> fold(std::vector<std::vector<uint64_t>> internal) const;
  /// The engine's pair records folded likewise (the algorithm: that of the images' pair).
  std::vector<PairWork> fold(const std::vector<PairWork>& internal) const;

  /// Lattice translations of the last frame prepared (0 included) and the most over all frames;
  /// image points of the last frame (all halos together).
  int translations() const { return translations_; }
  int most_translations() const { return most_translations_; }
  int64_t image_points() const { return image_points_; }

 private:
  struct Halo {
    int species = 0;  // the caller's species whose images it holds
    bool half = false;
  };
  size_t internal_pair(int a, int b) const;

  EngineConfig internal_;
  int nspecies_ = 0;                              // the caller's
  std::vector<std::pair<int, int>> user_pairs_;   // species_pairs(nspecies_)
  std::vector<bool> user_counted_;                // per pair of user_pairs_
  std::vector<Halo> halos_;                       // engine species nspecies_ + h
  std::vector<int> full_of_, half_of_;            // per species: its halo's engine species
  std::vector<int64_t> counts_;                   // per engine species, the prepared frame
  std::vector<std::vector<double>> coordinates_;  // per engine species, x..., y..., z...
  int translations_ = 0, most_translations_ = 0;
  int64_t image_points_ = 0;
};

}  // namespace pairhist
