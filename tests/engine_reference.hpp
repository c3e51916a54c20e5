// Helpers shared by the engine tests (CPU and GPU): random multi-species frames (of the
// capacities, or of per-frame counts up to them) and the exact same-precision reference of their
// summed histograms.
#pragma once

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "codelets/cpu/pair_histogram_cpu.hpp"
#include "pairhist/engine.hpp"
#include "pairhist/host_columns.hpp"
#include "tests/random_points.hpp"

namespace pairhist::test {

struct RandomFrames {
  std::vector<int64_t> sizes;                        // the capacities: atoms per species in xyz
  std::vector<BoxMatrix> boxes;                      // per frame
  std::vector<std::vector<std::vector<float>>> xyz;  // [frame][species] x,y,z triples
  // Per frame, the atoms of each species it holds: the first counts[t][s] of xyz[t][s]. Empty:
  // every frame holds all of them (and is submitted without counts).
  std::vector<std::vector<int64_t>> counts;
  const std::vector<int64_t>& counts_of(size_t t) const {
    return counts.empty() ? sizes : counts[t];
  }
};

/// Gives every frame random counts: per species none, all, or uniform in between, each a third
/// of the time; frame 1 holds no atoms at all, and the last frame every atom.
inline void vary_counts(RandomFrames& f) {
  std::uniform_int_distribution<int> kind(0, 2);
  f.counts.clear();
  for (size_t t = 0; t < f.xyz.size(); ++t) {
    std::vector<int64_t> c;
    for (int64_t n : f.sizes) {
      const int k = kind(rng());
      c.push_back(k == 0 ? 0 : k == 1 ? n : std::uniform_int_distribution<int64_t>(0, n)(rng()));
    }
    if (t == 1) c.assign(f.sizes.size(), 0);
    if (t + 1 == f.xyz.size() && t > 1) c = f.sizes;
    f.counts.push_back(c);
  }
}

inline RandomFrames make_frames(const std::vector<int64_t>& sizes, int frames, BoxKind kind) {
  RandomFrames f;
  f.sizes = sizes;
  for (int t = 0; t < frames; ++t) {
    BoxMatrix box{};
    if (kind == BoxKind::orthorhombic) box = random_orthorhombic(2.0, 2.2);
    if (kind == BoxKind::triclinic) box = random_triclinic(2.0, 2.2);
    f.boxes.push_back(box);
    std::vector<std::vector<float>> species;
    for (int64_t n : sizes) {
      const auto p = random_points(n, -1.0, 3.0);
      species.emplace_back(p.begin(), p.end());
    }
    f.xyz.push_back(species);
  }
  return f;
}

/// Frames whose boxes (sides in [side_lo, side_hi)) hold several cells of r_max per axis, each
/// frame its own box as under NPT, with points partly outside the cell (unwrapped).
inline RandomFrames roomy_frames(const std::vector<int64_t>& sizes, int frames, BoxKind kind,
                                 double side_lo, double side_hi) {
  RandomFrames f;
  f.sizes = sizes;
  for (int t = 0; t < frames; ++t) {
    BoxMatrix box{};
    if (kind == BoxKind::orthorhombic) box = random_orthorhombic(side_lo, side_hi);
    if (kind == BoxKind::triclinic) box = random_triclinic(side_lo, side_hi);
    f.boxes.push_back(box);
    std::vector<std::vector<float>> species;
    for (int64_t n : sizes) {
      const auto p = random_points(n, -1.0, side_lo + 1.0);
      species.emplace_back(p.begin(), p.end());
    }
    f.xyz.push_back(species);
  }
  return f;
}

inline EngineConfig engine_config(const RandomFrames& f, BoxKind kind, int nbins, double r_max,
                                  Precision precision) {
  EngineConfig c;
  c.species_sizes = f.sizes;
  c.r_max = r_max;
  c.nbins = nbins;
  c.box_kind = kind;
  c.precision = precision;
  return c;
}

/// Every frame through an engine (with its counts, if the frames have any); its histograms,
/// and its activity when asked for.
inline std::vector<std::vector<uint64_t>> run_engine(const RandomFrames& f, EngineConfig c,
                                                     RunActivity* activity = nullptr) {
  HistogramEngine engine(c);
  for (size_t t = 0; t < f.xyz.size(); ++t) {
    std::vector<const float*> ptr;
    for (const auto& s : f.xyz[t]) ptr.push_back(s.data());
    if (f.counts.empty())
      engine.submit_frame(ptr, f.boxes[t]);
    else
      engine.submit_frame(ptr, f.counts[t], f.boxes[t]);
  }
  auto counts = engine.finish();
  if (activity) *activity = engine.activity();
  return counts;
}

template <class T>
std::vector<std::vector<uint64_t>> reference_histograms(const RandomFrames& f,
                                                        const EngineConfig& c) {
  const auto pairs = species_pairs(static_cast<int>(f.sizes.size()));
  std::vector<std::vector<uint64_t>> out(pairs.size(), std::vector<uint64_t>(c.nbins, 0));
  for (size_t t = 0; t < f.xyz.size(); ++t) {
    const HistogramParams<T> p = make_params<T>(f.boxes[t], c.box_kind, c.r_max, c.nbins);
    const std::vector<int64_t>& n = f.counts_of(t);
    std::vector<std::vector<T>> soa;
    for (size_t s = 0; s < f.xyz[t].size(); ++s) {
      const auto& xyz = f.xyz[t][s];
      soa.push_back(to_soa<T>(std::vector<double>(xyz.begin(), xyz.begin() + 3 * n[s])));
    }
    for (size_t k = 0; k < pairs.size(); ++k) {
      const auto [a, b] = pairs[k];
      cpu::pair_histogram_reference(cpu::Coords<T>{soa[a].data(), n[a]},
                                    cpu::Coords<T>{soa[b].data(), n[b]}, a == b, p, out[k].data());
    }
  }
  return out;
}

/// Frame t of `frames` as columns in `soa` (sized to the frame's counts), and their bounds.
template <class Columns>
CoordinateBounds fill_columns(const RandomFrames& frames, size_t t, std::vector<Columns>& soa) {
  CoordinateBounds b{{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
  soa.resize(frames.sizes.size());
  for (size_t s = 0; s < soa.size(); ++s) {
    const size_t n = static_cast<size_t>(frames.counts_of(t)[s]);
    soa[s].resize(3 * n);
    for (size_t i = 0; i < n; ++i)
      for (size_t c = 0; c < 3; ++c) {
        const float v = frames.xyz[t][s][3 * i + c];
        soa[s][c * n + i] = v;
        b.lo[c] = std::min(b.lo[c], v);
        b.hi[c] = std::max(b.hi[c], v);
      }
  }
  return b;
}

}  // namespace pairhist::test
