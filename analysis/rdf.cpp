#include "analysis/rdf.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "analysis/block_average.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::analysis {

namespace {

constexpr double kPi = 3.14159265358979323846;

void check_binning(double r_min, double r_max, int nbins) {
  if (!(r_max > 0) || !std::isfinite(r_max)) {
    throw UsageError("r_max must be a positive finite distance, got " + std::to_string(r_max));
  }
  if (!(r_min >= 0) || !(r_min < r_max))
    throw UsageError("r_min must be at least 0 and below r_max " + std::to_string(r_max) +
                     ", got " + std::to_string(r_min));
  if (nbins <= 0) throw UsageError("nbins must be positive, got " + std::to_string(nbins));
}

}  // namespace

void check_norm(const std::string& norm) {
  if (norm != "rdf" && norm != "density" && norm != "none")
    throw UsageError("--norm must be rdf, density or none, got '" + norm + "'");
}

bool can_normalise(const HistogramResult& res) {
  return res.norm != "rdf" || !res.volumes.empty();
}

std::string normalised_name(const std::string& norm) {
  check_norm(norm);
  return norm == "rdf" ? "g" : norm == "density" ? "density" : "number";
}

std::vector<double> bin_edges(double r_min, double r_max, int nbins) {
  check_binning(r_min, r_max, nbins);
  std::vector<double> edges(static_cast<size_t>(nbins) + 1);
  // r_min + k * (r_max - r_min) / nbins rather than accumulating a width, so the last edge is
  // exactly r_max and edges match the binning rule without drift (with r_min = 0: k r_max / nbins).
  const double span = r_max - r_min;
  for (int k = 0; k < nbins; ++k) edges[k] = r_min + k * span / nbins;
  edges[static_cast<size_t>(nbins)] = r_max;
  return edges;
}

std::vector<double> bin_edges(double r_max, int nbins) {
  return bin_edges(0, r_max, nbins);
}

std::vector<double> bin_centres(double r_min, double r_max, int nbins) {
  check_binning(r_min, r_max, nbins);
  std::vector<double> centres(static_cast<size_t>(nbins));
  const double span = r_max - r_min;
  for (int k = 0; k < nbins; ++k) centres[k] = r_min + (k + 0.5) * span / nbins;
  return centres;
}

std::vector<double> bin_centres(double r_max, int nbins) {
  return bin_centres(0, r_max, nbins);
}

RdfCurve compute_rdf(const HistogramResult& res, const PairHistogram& p) {
  const size_t n_frames = res.frame_indices.size();
  check_norm(res.norm);
  const bool rdf = res.norm == "rdf";
  if (n_frames == 0) throw UsageError("cannot normalise g(r): no frames were histogrammed");
  if (rdf && res.volumes.empty()) {
    throw UsageError(
        "g(r) needs the box volume, but the trajectory has no periodic box; only the raw pair "
        "counts can be written");
  }
  if (!res.volumes.empty() && res.volumes.size() != n_frames) {
    throw std::logic_error("HistogramResult has " + std::to_string(res.volumes.size()) +
                           " volumes for " + std::to_string(n_frames) + " frames");
  }
  if (p.counts.size() != static_cast<size_t>(res.nbins)) {
    throw std::logic_error("pair histogram has " + std::to_string(p.counts.size()) +
                           " bins, expected " + std::to_string(res.nbins));
  }
  if (p.a < 0 || p.b < 0 || static_cast<size_t>(p.a) >= res.species.size() ||
      static_cast<size_t>(p.b) >= res.species.size()) {
    throw std::logic_error("pair histogram refers to a species that does not exist");
  }

  // Under NPT the volume changes every frame. The ideal-gas expectation for a frame is
  // N_pairs * shell / V_f, so the frame-averaged expectation is N_pairs * shell * <1/V>;
  // normalising by that makes g = 1 exactly for an uncorrelated system. Using 1/<V> instead would
  // bias g by <V><1/V> >= 1 (Jensen), which grows with the volume fluctuations.
  double mean_inv_volume = 0;
  for (size_t f = 0; f < (rdf ? n_frames : 0); ++f) {
    const double v = res.volumes[f];
    if (!(v > 0) || !std::isfinite(v)) {
      throw InputError("frame " + std::to_string(res.frame_indices[f]) +
                       " has a non-positive box volume (" + std::to_string(v) + ")");
    }
    mean_inv_volume += 1.0 / v;
  }
  mean_inv_volume /= static_cast<double>(n_frames);

  double na = res.mean_species_count(p.a);  // a --sphere run: the mean over its frames
  const bool same = p.a == p.b;
  double n_pairs = res.mean_pairs_per_frame(p);
  if (res.dynamic()) {
    // Sizes that change per frame: sum_f pairs_f / V_f in place of N_pairs <1/V> (the same for
    // fixed sizes), and the mean reference atoms for the coordination (see rdf.hpp).
    if (res.frame_species_counts.size() != n_frames || res.frame_pairs.size() != n_frames)
      throw std::logic_error("HistogramResult has per-frame sizes of another number of frames");
    size_t j = 0;
    while (j < res.pairs.size() && (res.pairs[j].a != p.a || res.pairs[j].b != p.b)) ++j;
    if (j == res.pairs.size()) throw std::logic_error("pair histogram of no pair of the result");
    double atoms = 0, pairs_per_volume = 0;
    for (size_t f = 0; f < n_frames; ++f) {
      atoms += static_cast<double>(res.frame_species_counts[f][static_cast<size_t>(p.a)]);
      if (rdf) pairs_per_volume += static_cast<double>(res.frame_pairs[f][j]) / res.volumes[f];
    }
    na = atoms / static_cast<double>(n_frames);
    n_pairs = 1, mean_inv_volume = pairs_per_volume / static_cast<double>(n_frames);
  }
  const double ordered = same ? 2.0 : 1.0;  // MDAnalysis's ordered pairs, see rdf.hpp
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double frames = static_cast<double>(n_frames);

  const std::vector<double> edges = bin_edges(res.r_min, res.r_max, res.nbins);
  RdfCurve curve;
  curve.r = bin_centres(res.r_min, res.r_max, res.nbins);
  curve.g.resize(res.nbins);
  curve.coordination.resize(res.nbins);

  // Cumulate in integers: counts can exceed 2^53 in long runs, and summing doubles would lose the
  // low bits before they are divided down.
  uint64_t cumulative = 0;
  for (int k = 0; k < res.nbins; ++k) {
    const double lo = edges[k];
    const double hi = edges[k + 1];
    // The exact shell volume rather than 4 pi r^2 dr: the latter is badly wrong in the first bins
    // where r is comparable to the bin width.
    const double shell = 4.0 / 3.0 * kPi * (hi * hi * hi - lo * lo * lo);
    const double mean_count = static_cast<double>(p.counts[k]) / frames;
    if (rdf)
      curve.g[k] = n_pairs > 0 ? mean_count / (n_pairs * shell * mean_inv_volume) : nan;
    else if (res.norm == "density")
      curve.g[k] = ordered * mean_count / shell;
    else
      curve.g[k] = ordered * mean_count;

    cumulative += p.counts[k];
    const double per_atom = static_cast<double>(cumulative) / (frames * na);
    curve.coordination[k] = na > 0 ? (same ? 2 * per_atom : per_atom) : nan;
  }
  return curve;
}

RdfErrors rdf_block_errors(const HistogramResult& res, size_t pair) {
  if (!can_normalise(res)) return {};
  std::vector<std::vector<double>> g, coordination;
  for (const HistogramResult& part : block_runs(res)) {
    RdfCurve c = compute_rdf(part, part.pairs.at(pair));
    g.push_back(std::move(c.g));
    coordination.push_back(std::move(c.coordination));
  }
  return {block_standard_error(g), block_standard_error(coordination)};
}

std::vector<double> rdf_block_error(const HistogramResult& res, size_t pair) {
  return rdf_block_errors(res, pair).g;
}

}  // namespace pairhist::analysis
