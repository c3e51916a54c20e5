#include "tasks/periodic_images.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "pairhist/errors.hpp"
#include "pairhist/periodic_images.hpp"

namespace pairhist {

PeriodicImages::PeriodicImages(const EngineConfig& user) : internal_(user) {
  if (user.whole_frames)
    throw UsageError(
        "whole-frame tasks (--schedule static) count every pair of a frame's species and cannot "
        "count periodic images beyond the minimum image");
  nspecies_ = static_cast<int>(user.species_sizes.size());
  user_pairs_ = species_pairs(nspecies_);
  const auto counted = [&](size_t p) {
    return user.counted_pairs.empty() || user.counted_pairs[p];
  };
  for (size_t p = 0; p < user_pairs_.size(); ++p) user_counted_.push_back(counted(p));
  full_of_.assign(static_cast<size_t>(nspecies_), -1);
  half_of_.assign(static_cast<size_t>(nspecies_), -1);
  for (size_t p = 0; p < user_pairs_.size(); ++p) {
    const auto [a, b] = user_pairs_[p];
    if (counted(p) && a != b) full_of_[static_cast<size_t>(b)] = 0;
    if (counted(p) && a == b) half_of_[static_cast<size_t>(a)] = 0;
  }
  for (int s = 0; s < nspecies_; ++s)
    if (full_of_[static_cast<size_t>(s)] == 0) {
      full_of_[static_cast<size_t>(s)] = nspecies_ + static_cast<int>(halos_.size());
      halos_.push_back({s, false});
    }
  for (int s = 0; s < nspecies_; ++s)
    if (half_of_[static_cast<size_t>(s)] == 0) {
      half_of_[static_cast<size_t>(s)] = nspecies_ + static_cast<int>(halos_.size());
      halos_.push_back({s, true});
    }
  const int total = nspecies_ + static_cast<int>(halos_.size());
  internal_.periodic_images = false;
  internal_.box_kind = BoxKind::none;
  internal_.species_sizes.resize(static_cast<size_t>(total), 0);
  const auto pairs = species_pairs(total);
  internal_.counted_pairs.assign(pairs.size(), false);
  std::vector<Algorithm> algorithms(pairs.size(), Algorithm::all_pairs);
  for (size_t p = 0; p < user_pairs_.size(); ++p) {
    if (!counted(p)) continue;
    const auto [a, b] = user_pairs_[p];
    const Algorithm alg = user.pair_algorithms.empty() ? user.algorithm : user.pair_algorithms[p];
    std::vector<size_t> parts;
    if (a == b) {
      parts = {internal_pair(a, a), internal_pair(a, half_of_[static_cast<size_t>(a)])};
    } else {
      parts = {internal_pair(a, full_of_[static_cast<size_t>(b)])};
    }
    for (size_t q : parts) internal_.counted_pairs[q] = true, algorithms[q] = alg;
    // `auto` takes cell lists for a species against its images: the cost model, made for one
    // periodic frame, preferred all pairs for the water sample's halos at r_max 2.5 nm, where
    // cell lists took 5.4 s for 101 frames instead of 23 s (2 cores, docs/performance.md).
    if (alg == Algorithm::automatic) algorithms[parts.back()] = Algorithm::cell_list;
  }
  internal_.pair_algorithms = algorithms;
  counts_.assign(static_cast<size_t>(total), 0);
  coordinates_.resize(static_cast<size_t>(total));
}

size_t PeriodicImages::internal_pair(int a, int b) const {
  // species_pairs() order: (a, b) with a <= b, a-major.
  const int n = static_cast<int>(internal_.species_sizes.size());
  if (a > b) std::swap(a, b);
  return static_cast<size_t>(a * n - a * (a - 1) / 2 + (b - a));
}

template <class T>
void PeriodicImages::prepare(const BoxMatrix& box, const std::vector<const float*>& soa,
                             const std::vector<int64_t>& counts) {
  // Moving points into the cell needs a periodic lower-triangular box (the job checks every
  // frame's box; a caller of the engine may not).
  if (classify_box(box) == BoxKind::none)
    throw std::invalid_argument("HistogramEngine: periodic images need a periodic box");
  if (const std::string problem = box_problem(box); !problem.empty())
    throw std::invalid_argument("HistogramEngine: " + problem);
  // The caller's species moved into the cell, and the bounding box of all of them.
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int s = 0; s < nspecies_; ++s) {
    const int64_t n = counts[static_cast<size_t>(s)];
    const float* in = soa[static_cast<size_t>(s)];
    std::vector<double>& out = coordinates_[static_cast<size_t>(s)];
    out.resize(static_cast<size_t>(3 * n));
    for (int64_t i = 0; i < n; ++i) {
      T w[3];
      wrapped_point<T>(box, in[i], in[n + i], in[2 * n + i], w);
      for (int c = 0; c < 3; ++c) {
        const double v = w[c];
        out[static_cast<size_t>(c * n + i)] = v;
        lo[c] = std::fmin(lo[c], v);
        hi[c] = std::fmax(hi[c], v);
      }
    }
    counts_[static_cast<size_t>(s)] = n;
  }
  image_points_ = 0;
  translations_ = 0;
  if (!(lo[0] <= hi[0])) {  // no atoms at all: no images either
    for (size_t h = 0; h < halos_.size(); ++h) counts_[static_cast<size_t>(nspecies_) + h] = 0;
    return;
  }
  const double radius = counted_radius(internal_.r_max, internal_.r_cut);
  double max_abs = 0;
  for (int c = 0; c < 3; ++c) max_abs = std::max({max_abs, std::fabs(lo[c]), std::fabs(hi[c])});
  const double keep = image_keep_radius<T>(radius, max_abs);
  const std::vector<LatticeShift> shifts = lattice_translations(box, lo, hi, keep);
  translations_ = static_cast<int>(shifts.size());
  most_translations_ = std::max(most_translations_, translations_);
  for (size_t h = 0; h < halos_.size(); ++h) {
    const size_t source = static_cast<size_t>(halos_[h].species);
    const int64_t n = counts[source];
    const std::vector<double>& w = coordinates_[source];
    std::vector<double> kept[3];
    for (const LatticeShift& s : shifts) {
      const bool zero = s.n[0] == 0 && s.n[1] == 0 && s.n[2] == 0;
      if (halos_[h].half && !in_upper_half(s.n)) continue;
      for (int64_t j = 0; j < n; ++j) {
        double q[3];
        for (int c = 0; c < 3; ++c)
          q[c] = zero ? w[static_cast<size_t>(c * n + j)]
                      : static_cast<double>(image_coordinate(
                            static_cast<T>(w[static_cast<size_t>(c * n + j)]), s.v[c]));
        if (gap2_to_box(q, lo, hi) < keep * keep)
          for (int c = 0; c < 3; ++c) kept[c].push_back(q[c]);
      }
    }
    const size_t m = kept[0].size();
    std::vector<double>& out = coordinates_[static_cast<size_t>(nspecies_) + h];
    out.resize(3 * m);
    for (int c = 0; c < 3; ++c) std::copy(kept[c].begin(), kept[c].end(), out.begin() + c * m);
    counts_[static_cast<size_t>(nspecies_) + h] = static_cast<int64_t>(m);
    image_points_ += static_cast<int64_t>(m);
  }
}

template <class T>
void PeriodicImages::copy(size_t s, T* out) const {
  const std::vector<double>& in = coordinates_[s];
  for (size_t k = 0; k < in.size(); ++k) out[k] = static_cast<T>(in[k]);  // exact: values of T
}

std::vector<std::vector<uint64_t>> PeriodicImages::fold(
    std::vector<std::vector<uint64_t>> internal) const {
  std::vector<std::vector<uint64_t>> out;
  for (const auto& [a, b] : user_pairs_) {
    const int partner =
        a == b ? half_of_[static_cast<size_t>(a)] : full_of_[static_cast<size_t>(b)];
    std::vector<uint64_t> h(internal.empty() ? 0 : internal[0].size(), 0);
    if (user_counted_[out.size()]) {
      h = std::move(internal[internal_pair(a, partner)]);
      if (a == b)
        for (size_t k = 0; k < h.size(); ++k) h[k] += internal[internal_pair(a, a)][k];
    }
    out.push_back(std::move(h));
  }
  return out;
}

std::vector<PairWork> PeriodicImages::fold(const std::vector<PairWork>& internal) const {
  std::vector<PairWork> out;
  for (size_t p = 0; p < user_pairs_.size(); ++p) {
    const auto [a, b] = user_pairs_[p];
    PairWork w;
    w.species_a = a, w.species_b = b;
    const int partner =
        a == b ? half_of_[static_cast<size_t>(a)] : full_of_[static_cast<size_t>(b)];
    w.counted = user_counted_[p];
    if (w.counted) {
      std::vector<size_t> parts = {internal_pair(a, partner)};
      if (a == b) parts.push_back(internal_pair(a, a));
      w.algorithm = internal[parts[0]].algorithm;
      for (size_t q : parts) {
        w.candidates += internal[q].candidates;
        w.within += internal[q].within;
      }
    }
    out.push_back(w);
  }
  return out;
}

template void PeriodicImages::prepare<float>(const BoxMatrix&, const std::vector<const float*>&,
                                             const std::vector<int64_t>&);
template void PeriodicImages::prepare<double>(const BoxMatrix&, const std::vector<const float*>&,
                                              const std::vector<int64_t>&);
template void PeriodicImages::copy<float>(size_t, float*) const;
template void PeriodicImages::copy<double>(size_t, double*) const;

}  // namespace pairhist
