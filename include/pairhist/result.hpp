// The accumulated outcome of a histogram run: what writers and the g(r) normalisation consume.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pairhist {

struct SpeciesInfo {
  std::string name;
  std::string selection;  // the selection text the user gave, for the record
  int64_t count = 0;      // atoms per frame
};

/// Counts of one species pair (a <= b, indices into HistogramResult::species). Bin k holds the
/// pairs with floor((r - r_min) * nbins / (r_max - r_min)) == k; same-species pairs are counted
/// once (i < j), cross pairs as ordered pairs (i in A, j in B, i != j: an atom in both species is
/// never paired with itself, two atoms both in A and B count as two pairs). Excluded pairs are not
/// counted.
struct PairHistogram {
  int a = 0;
  int b = 0;
  std::vector<uint64_t> counts;
  uint64_t shared_atoms = 0;    // atoms in both species (a != b): self pairs left out per frame
  uint64_t excluded_pairs = 0;  // pairs left out per frame by the exclusion rule (any distance)
};

/// The counts of consecutive frames written as one block (`run --interval N`): frames
/// [frame_begin, frame_end) of HistogramResult::frame_indices, one histogram per pair; for a
/// --sphere run also the block's own centre-distance counts (as HistogramResult::centre_counts,
/// this block's frames only; empty for other runs and files written before blocks kept them).
struct IntervalBlock {
  size_t frame_begin = 0;
  size_t frame_end = 0;
  std::vector<std::vector<uint64_t>> counts;
  std::vector<std::vector<uint64_t>> centre_counts = {};
};

struct HistogramResult {
  std::vector<SpeciesInfo> species;
  std::vector<PairHistogram> pairs;
  double r_max = 0;  // in length_unit
  int nbins = 0;
  double r_min = 0;  // the first bin's lower edge (pairs below it not counted), in length_unit
  std::string length_unit = "nm";  // "nm" or "angstrom"
  std::string box_kind = "none";   // none | orthorhombic | triclinic
  std::string precision = "single";
  std::vector<int64_t>
      frame_indices;                // trajectory frame index of every frame that was histogrammed
  std::vector<double> frame_times;  // ps
  std::vector<double> volumes;      // per frame, in length_unit^3; empty when there is no box
  std::vector<IntervalBlock> intervals;  // empty: the whole run is one block
  bool complete = true;                  // false when bad input stopped the run early
  std::string stopped_by;                // that input error
  std::string norm = "rdf";              // rdf | density | none (analysis/rdf.hpp)
  std::string exclude = "none";          // none | residue: which pairs are left out
  // Per frame (as frame_indices) the atoms of every species, where they vary, else empty:
  // runs with a dynamic species (a `within`/`around` selection), where species[s].count is the
  // most it can hold and frame_pairs the pairs of every pair counted that frame
  // (pairs_per_frame's rule with that frame's atoms); and runs of a sphere cut out around a
  // solute each frame (`run --sphere SELECTION,R`: `sphere` the option as given, `sphere_centre`
  // "mass" or "geometry"), where SpeciesInfo::count is each species' full size.
  std::vector<std::vector<int64_t>> frame_species_counts;
  std::vector<std::vector<uint64_t>> frame_pairs;
  std::string sphere;
  std::string sphere_centre;
  // A sphere run's atoms binned by their distance from the sphere's centre, per species, summed
  // over the frames: bin k holds [k, k + 1) centre_bin_width (length_unit) from 0, the last bin
  // also d = R. Empty for other runs (and sphere runs of pairhist before they were kept).
  std::vector<std::vector<uint64_t>> centre_counts;
  double centre_bin_width = 0;

  /// A run with a dynamic species (its per-frame pairs are kept).
  bool dynamic() const { return !frame_pairs.empty(); }

  /// Number of pairs a frame contributes to pair p: N(N-1)/2 same species, N_A*N_B otherwise,
  /// less the self pairs of shared atoms and the excluded pairs.
  uint64_t pairs_per_frame(const PairHistogram& p) const {
    const auto na = static_cast<uint64_t>(species[p.a].count);
    const auto nb = static_cast<uint64_t>(species[p.b].count);
    const uint64_t all = p.a == p.b ? na * (na - 1) / 2 : na * nb - p.shared_atoms;
    return all - p.excluded_pairs;
  }

  /// Atoms of species s in a frame, on average over the frames (SpeciesInfo::count unless the
  /// frames' counts vary).
  double mean_species_count(int s) const {
    if (frame_species_counts.empty()) return static_cast<double>(species[s].count);
    double sum = 0;
    for (const auto& f : frame_species_counts) sum += static_cast<double>(f[s]);
    return sum / static_cast<double>(frame_species_counts.size());
  }

  /// pairs_per_frame on average over the frames, whose counts may vary (a sphere run has no
  /// shared atoms and no excluded pairs).
  double mean_pairs_per_frame(const PairHistogram& p) const {
    if (frame_species_counts.empty()) return static_cast<double>(pairs_per_frame(p));
    double sum = 0;
    for (const auto& f : frame_species_counts) {
      const auto na = static_cast<uint64_t>(f[p.a]);
      const auto nb = static_cast<uint64_t>(f[p.b]);
      sum += static_cast<double>(p.a == p.b ? (na > 0 ? na * (na - 1) / 2 : 0) : na * nb);
    }
    return sum / static_cast<double>(frame_species_counts.size());
  }

  /// The pairs of pairs[pair] the exclusion rule left out, summed over the frames, in `total`;
  /// false where that is not known. Fixed species: excluded_pairs (per frame) times the frames. A
  /// dynamic species: each frame's own, its pairs before exclusions (from frame_species_counts)
  /// less frame_pairs; for a cross pair of species that share atoms, the frames' shared atoms are
  /// not kept, so only excluded_pairs, the most per frame, is known.
  bool excluded_pairs_total(size_t pair, uint64_t& total) const {
    const PairHistogram& p = pairs.at(pair);
    if (!dynamic()) {
      total = p.excluded_pairs * static_cast<uint64_t>(frame_indices.size());
      return true;
    }
    total = 0;
    if (p.excluded_pairs == 0) return true;
    if (p.a != p.b && p.shared_atoms > 0) return false;
    if (frame_species_counts.size() != frame_pairs.size()) return false;
    for (size_t f = 0; f < frame_pairs.size(); ++f) {
      const auto na = static_cast<uint64_t>(frame_species_counts[f][static_cast<size_t>(p.a)]);
      const auto nb = static_cast<uint64_t>(frame_species_counts[f][static_cast<size_t>(p.b)]);
      const uint64_t all = p.a == p.b ? (na > 0 ? na * (na - 1) / 2 : 0) : na * nb;
      total += all - frame_pairs[f][pair];
    }
    return true;
  }
};

}  // namespace pairhist
