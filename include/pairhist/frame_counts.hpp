// What g(r) normalises by when the species' sizes vary from frame to frame (a dynamic selection,
// a cut-out around a solute): sums over the frames of a run or an interval block. The caller of
// HistogramEngine keeps them beside the histograms, as it keeps each frame's volume, because it
// alone knows which frames an interval, an interrupted run or a run split into frame parts
// counted. With fixed sizes every sum is the number of frames times one frame's value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace pairhist {

/// The pairs one frame of these counts (atoms per species) has between species a and b, a <= b,
/// as HistogramEngine counts them: n_a (n_a - 1) / 2 for a species with itself, n_a n_b across.
inline uint64_t pairs_in_frame(const std::vector<int64_t>& counts, int a, int b) {
  const auto na = static_cast<uint64_t>(counts[static_cast<size_t>(a)]);
  const auto nb = static_cast<uint64_t>(counts[static_cast<size_t>(b)]);
  if (a == b) return na > 0 ? na * (na - 1) / 2 : 0;
  return na * nb;
}

/// Sums over frames, per species and per species pair (species_pairs() order: (a, b) with
/// a <= b, a-major). Frame f's ideal-gas expectation in bin k is pairs_f shell_k / V_f, so
///
///   g_k = counts_k / (shell_k * pairs_per_volume[p])
///
/// is 1 for uncorrelated points whatever the sizes; with fixed sizes it is analysis/rdf.hpp's
/// N_pairs <1/V> normalisation. gmx rdf normalises dynamic selections by averages instead:
/// counts_k / (shell_k * atoms[ref] * atoms_per_volume[sel] / frames), its counts being ordered
/// pairs. Coordination numbers divide the running sum by atoms[a] (the reference atoms of all
/// frames together). Pairs the caller leaves out of a frame (an atom shared by both species,
/// excluded pairs) are its own to subtract.
struct FrameCountSums {
  uint64_t frames = 0;
  std::vector<uint64_t> atoms;           // per species: the sum of n_s
  std::vector<double> atoms_per_volume;  // per species: the sum of n_s / V (frames with a volume)
  std::vector<uint64_t> pairs;           // per species pair: the sum of pairs_in_frame
  std::vector<double> pairs_per_volume;  // per species pair: the sum of pairs_in_frame / V

  /// One frame of these counts, in a box of this volume (0: none, then the per-volume sums leave
  /// the frame out). Throws std::invalid_argument if the number of species changes.
  void add_frame(const std::vector<int64_t>& counts, double volume = 0) {
    const size_t n = counts.size();
    size_species(n);
    const double inverse = volume > 0 ? 1 / volume : 0;
    size_t p = 0;
    for (size_t a = 0; a < n; ++a) {
      atoms[a] += static_cast<uint64_t>(counts[a]);
      atoms_per_volume[a] += static_cast<double>(counts[a]) * inverse;
      for (size_t b = a; b < n; ++b, ++p) {
        const uint64_t k = pairs_in_frame(counts, static_cast<int>(a), static_cast<int>(b));
        pairs[p] += k;
        pairs_per_volume[p] += static_cast<double>(k) * inverse;
      }
    }
    ++frames;
  }

  /// Adds another set's frames (another interval, another process's frames), of the same
  /// species.
  void add(const FrameCountSums& other) {
    if (other.frames == 0) return;
    size_species(other.atoms.size());
    frames += other.frames;
    for (size_t s = 0; s < atoms.size(); ++s) {
      atoms[s] += other.atoms[s];
      atoms_per_volume[s] += other.atoms_per_volume[s];
    }
    for (size_t p = 0; p < pairs.size(); ++p) {
      pairs[p] += other.pairs[p];
      pairs_per_volume[p] += other.pairs_per_volume[p];
    }
  }

 private:
  void size_species(size_t n) {
    if (frames == 0 && atoms.empty()) {
      atoms.assign(n, 0);
      atoms_per_volume.assign(n, 0);
      pairs.assign(n * (n + 1) / 2, 0);
      pairs_per_volume.assign(n * (n + 1) / 2, 0);
    } else if (atoms.size() != n) {
      throw std::invalid_argument("FrameCountSums: frames of " + std::to_string(n) +
                                  " species added to sums of " + std::to_string(atoms.size()));
    }
  }
};

}  // namespace pairhist
