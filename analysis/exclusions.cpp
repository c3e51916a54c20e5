#include "analysis/exclusions.hpp"

#include <algorithm>
#include <stdexcept>

#include "pairhist/errors.hpp"
#include "pairhist/periodic_images.hpp"

namespace pairhist::analysis {

ExcludeMode parse_exclude_mode(const std::string& text) {
  if (text == "none") return ExcludeMode::none;
  if (text == "residue") return ExcludeMode::residue;
  if (text == "topology") return ExcludeMode::topology;
  throw UsageError("--exclude must be none, residue or topology, got '" + text + "'");
}

std::vector<uint64_t> count_shared_atoms(const std::vector<std::vector<int>>& atoms,
                                         const SpeciesPairs& pairs) {
  std::vector<uint64_t> shared;
  for (const auto& [a, b] : pairs) {
    uint64_t n = 0;
    if (a != b) {
      const auto& x = atoms[static_cast<size_t>(a)];
      const auto& y = atoms[static_cast<size_t>(b)];
      for (size_t i = 0, j = 0; i < x.size() && j < y.size();) {  // both ascending
        if (x[i] < y[j]) {
          ++i;
        } else if (y[j] < x[i]) {
          ++j;
        } else {
          ++n, ++i, ++j;
        }
      }
    }
    shared.push_back(n);
  }
  return shared;
}

namespace {

/// A species' atoms grouped by residue: residue id and the range of local indices. Atoms are
/// ascending and residues are runs of consecutive atoms, so each residue is one contiguous range
/// and the ranges come sorted by residue.
struct ResidueRange {
  int residue;
  int32_t begin, end;
};

std::vector<ResidueRange> residue_ranges(const std::vector<int>& atoms,
                                         const std::vector<int>& residue) {
  std::vector<ResidueRange> ranges;
  for (size_t k = 0; k < atoms.size(); ++k) {
    const int r = residue[static_cast<size_t>(atoms[k])];
    if (ranges.empty() || ranges.back().residue != r)
      ranges.push_back({r, static_cast<int32_t>(k), static_cast<int32_t>(k)});
    ranges.back().end = static_cast<int32_t>(k) + 1;
  }
  return ranges;
}

// Returns the pairs binned (at any distance): those whose atoms are both flagged in row_selected
// and col_selected, or every pair where these are null.
template <BoxKind K, class T>
uint64_t bin_pairs(const std::vector<std::pair<int32_t, int32_t>>& pairs, const float* row_xyz,
                   const float* col_xyz, const uint8_t* row_selected, const uint8_t* col_selected,
                   const HistogramParams<T>& p, uint64_t* hist) {
  uint64_t binned = 0;
  for (const auto& [i, j] : pairs) {
    if (row_selected && !(row_selected[i] && col_selected[j])) continue;
    ++binned;
    // The engine converts the float coordinates to T the same way before the kernels see them,
    // and the kernels scale them to bin units as bin_of_points does.
    const float* a = row_xyz + 3 * static_cast<size_t>(i);
    const float* b = col_xyz + 3 * static_cast<size_t>(j);
    const int k =
        bin_of_points<K>(p, static_cast<T>(a[0]), static_cast<T>(a[1]), static_cast<T>(a[2]),
                         static_cast<T>(b[0]), static_cast<T>(b[1]), static_cast<T>(b[2]));
    if (k < p.nbins) ++hist[k];
  }
  return binned;
}

/// bin_pairs for a run that counts every periodic image: each point moved into the cell as the
/// engine moves it, the pair binned as the engine's image layout counts its minimum image.
template <class T>
uint64_t bin_image_pairs(const std::vector<std::pair<int32_t, int32_t>>& pairs,
                         const float* row_xyz, const float* col_xyz, const uint8_t* row_selected,
                         const uint8_t* col_selected, bool same_species, const BoxMatrix& box,
                         const HistogramParams<T>& p, uint64_t* hist) {
  uint64_t binned = 0;
  for (const auto& [i, j] : pairs) {
    if (row_selected && !(row_selected[i] && col_selected[j])) continue;
    ++binned;
    const float* a = row_xyz + 3 * static_cast<size_t>(i);
    const float* b = col_xyz + 3 * static_cast<size_t>(j);
    T wa[3], wb[3];
    wrapped_point<T>(box, a[0], a[1], a[2], wa);
    wrapped_point<T>(box, b[0], b[1], b[2], wb);
    const int k = image_pair_bin(p, box, wa, wb, same_species);
    if (k < p.nbins) ++hist[k];
  }
  return binned;
}

}  // namespace

PairExclusions::PairExclusions(ExcludeMode mode, const Topology& top,
                               const std::string& topology_path,
                               const std::vector<std::vector<int>>& species_atoms,
                               const SpeciesPairs& pairs) {
  if (mode == ExcludeMode::none) return;
  if (mode == ExcludeMode::topology) {
    from_topology(top, topology_path, species_atoms, pairs);
    return;
  }
  const std::vector<int> residue = residue_of_atoms(top, topology_path, "--exclude residue");
  std::vector<std::vector<ResidueRange>> ranges;
  for (const auto& atoms : species_atoms) ranges.push_back(residue_ranges(atoms, residue));
  for (const auto& [a, b] : pairs) {
    List list{a, b, {}};
    const auto& ra = ranges[static_cast<size_t>(a)];
    const auto& rb = ranges[static_cast<size_t>(b)];
    const auto& atoms_a = species_atoms[static_cast<size_t>(a)];
    const auto& atoms_b = species_atoms[static_cast<size_t>(b)];
    // Walk both sorted range lists together; residues present in both give the pairs.
    for (size_t x = 0, y = 0; x < ra.size() && y < rb.size();) {
      if (ra[x].residue < rb[y].residue) {
        ++x;
      } else if (rb[y].residue < ra[x].residue) {
        ++y;
      } else {
        for (int32_t i = ra[x].begin; i < ra[x].end; ++i)
          for (int32_t j = a == b ? i + 1 : rb[y].begin; j < rb[y].end; ++j)
            if (a == b || atoms_a[static_cast<size_t>(i)] != atoms_b[static_cast<size_t>(j)])
              list.pairs.emplace_back(i, j);
        ++x;
        ++y;
      }
    }
    lists_.push_back(std::move(list));
  }
}

void PairExclusions::from_topology(const Topology& top, const std::string& topology_path,
                                   const std::vector<std::vector<int>>& species_atoms,
                                   const SpeciesPairs& pairs) {
  if (!top.has_exclusions())
    throw UsageError(topology_path +
                     ": the topology lists no exclusions (they come from a GROMACS .tpr)");
  const size_t n = static_cast<size_t>(top.natoms());
  std::vector<int32_t> local(n, -1);  // an atom's place in species b, -1: not in it
  for (const auto& [a, b] : pairs) {
    List list{a, b, {}};
    const auto& atoms_a = species_atoms[static_cast<size_t>(a)];
    const auto& atoms_b = species_atoms[static_cast<size_t>(b)];
    for (size_t y = 0; y < atoms_b.size(); ++y)
      local[static_cast<size_t>(atoms_b[y])] = static_cast<int32_t>(y);
    // GROMACS lists every exclusion both ways: a same-species pair is taken once (x < y), a
    // cross pair once from its A atom; an atom's own entry is its self pair, never counted.
    for (size_t x = 0; x < atoms_a.size(); ++x) {
      const auto i = static_cast<size_t>(atoms_a[x]);
      for (int64_t e = top.exclusion_offsets[i]; e < top.exclusion_offsets[i + 1]; ++e) {
        const int j = top.exclusion_atoms[static_cast<size_t>(e)];
        if (j < 0 || static_cast<size_t>(j) >= n || static_cast<size_t>(j) == i) continue;
        const int32_t y = local[static_cast<size_t>(j)];
        if (y < 0 || (a == b && y <= static_cast<int32_t>(x))) continue;
        list.pairs.emplace_back(static_cast<int32_t>(x), y);
      }
    }
    for (int atom : atoms_b) local[static_cast<size_t>(atom)] = -1;
    lists_.push_back(std::move(list));
  }
}

bool PairExclusions::empty() const {
  return std::all_of(lists_.begin(), lists_.end(), [](const List& l) { return l.pairs.empty(); });
}

template <class T>
void PairExclusions::add_frame_as(const std::vector<const float*>& species_xyz,
                                  const std::vector<std::vector<uint8_t>>* selected,
                                  const BoxMatrix& box, BoxKind kind, const BinRange& bins,
                                  std::vector<std::vector<uint64_t>>& hist,
                                  std::vector<uint64_t>* left_out, bool images) const {
  images = images && kind != BoxKind::none;
  // With images the engine counts without a box: no image tables (any r_max, any skew).
  const HistogramParams<T> p =
      images ? make_params<T>(BoxMatrix{}, BoxKind::none, bins) : make_params<T>(box, kind, bins);
  for (size_t q = 0; q < lists_.size(); ++q) {
    const List& l = lists_[q];
    if (l.pairs.empty()) continue;
    const float* rows = species_xyz[static_cast<size_t>(l.a)];
    const float* cols = species_xyz[static_cast<size_t>(l.b)];
    const uint8_t* row_selected = selected ? (*selected)[static_cast<size_t>(l.a)].data() : nullptr;
    const uint8_t* col_selected = selected ? (*selected)[static_cast<size_t>(l.b)].data() : nullptr;
    uint64_t* h = hist[q].data();
    const uint64_t binned = images ? bin_image_pairs(l.pairs, rows, cols, row_selected,
                                                     col_selected, l.a == l.b, box, p, h)
                                   : dispatch_box_kind(kind, [&](auto box_kind) {
                                       return bin_pairs<decltype(box_kind)::value>(
                                           l.pairs, rows, cols, row_selected, col_selected, p, h);
                                     });
    if (left_out) (*left_out)[q] += binned;
  }
}

void PairExclusions::add_frame(const std::vector<const float*>& species_xyz, const BoxMatrix& box,
                               BoxKind kind, const BinRange& bins, Precision precision,
                               std::vector<std::vector<uint64_t>>& hist, bool images) const {
  if (empty()) return;
  dispatch_precision(precision, [&](auto coordinate) {
    add_frame_as<typename decltype(coordinate)::type>(species_xyz, nullptr, box, kind, bins, hist,
                                                      nullptr, images);
  });
}

void PairExclusions::add_selected_frame(const std::vector<const float*>& species_xyz,
                                        const std::vector<std::vector<uint8_t>>& selected,
                                        const BoxMatrix& box, BoxKind kind, const BinRange& bins,
                                        Precision precision,
                                        std::vector<std::vector<uint64_t>>& hist,
                                        std::vector<uint64_t>& left_out, bool images) const {
  if (empty()) return;
  if (left_out.size() < lists_.size() || selected.size() < species_xyz.size())
    throw std::logic_error("PairExclusions: flags or sums of another number of species or pairs");
  dispatch_precision(precision, [&](auto coordinate) {
    add_frame_as<typename decltype(coordinate)::type>(species_xyz, &selected, box, kind, bins, hist,
                                                      &left_out, images);
  });
}

}  // namespace pairhist::analysis
