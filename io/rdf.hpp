// Normalisation of pair-distance histograms into radial distribution functions g(r) and running
// coordination numbers.
#pragma once

#include <vector>

#include "pairhist/result.hpp"

namespace pairhist::io {

/// nbins+1 bin edges, edge k = k * r_max / nbins. Throws UsageError unless r_max > 0, nbins > 0.
std::vector<double> bin_edges(double r_max, int nbins);

/// nbins bin centres, (k + 1/2) * r_max / nbins. Same preconditions as bin_edges().
std::vector<double> bin_centres(double r_max, int nbins);

struct RdfCurve {
  std::vector<double> r;             // bin centres, length_unit
  std::vector<double> g;             // g(r) of bin k; NaN if the pair has no pairs to normalise by
  std::vector<double> coordination;  // mean number of B atoms within r_{k+1} of an A atom
};

/// g(r) of one species pair of `res`:
///
///   g_k = <count_k> / (N_pairs * shell_k * <1/V>)
///
/// with <count_k> = counts[k] / n_frames, shell_k = 4/3 pi (r_{k+1}^3 - r_k^3),
/// N_pairs = N_A N_B (A != B) or N (N-1) / 2 (A == B, unique pairs), and <1/V> the mean of the
/// inverse frame volumes. Coordination n_k = cumsum(counts)_k / (n_frames N_A), doubled for
/// A == B because each unique pair is a neighbour of both its atoms.
///
/// Throws UsageError if there are no frames or no volumes (no periodic box: g(r) is undefined,
/// the raw counts remain valid), InputError if a volume is not positive, and std::logic_error if
/// the result is internally inconsistent (counts.size() != nbins, volumes.size() != n_frames).
RdfCurve compute_rdf(const HistogramResult& res, const PairHistogram& p);

/// Block-average error of g(r): the standard error of the mean of the g(r) that each interval
/// block gives on its own (sample standard deviation over the B blocks / sqrt(B)), every block
/// weighted alike. Empty unless the result has at least two interval blocks and a volume.
/// `pair` indexes res.pairs.
std::vector<double> rdf_block_error(const HistogramResult& res, size_t pair);

}  // namespace pairhist::io
