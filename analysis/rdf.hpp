// Normalisation of pair-distance histograms into radial distribution functions g(r) and running
// coordination numbers.
#pragma once

#include <string>
#include <vector>

#include "pairhist/result.hpp"

namespace pairhist::analysis {

/// nbins+1 bin edges, edge k = r_min + k * (r_max - r_min) / nbins (the last exactly r_max).
/// Throws UsageError unless 0 <= r_min < r_max, nbins > 0.
std::vector<double> bin_edges(double r_min, double r_max, int nbins);
/// Bins from 0.
std::vector<double> bin_edges(double r_max, int nbins);

/// nbins bin centres, r_min + (k + 1/2) * (r_max - r_min) / nbins. Preconditions as bin_edges().
std::vector<double> bin_centres(double r_min, double r_max, int nbins);
/// Bins from 0.
std::vector<double> bin_centres(double r_max, int nbins);

/// Throws UsageError unless `norm` is rdf, density or none (HistogramResult::norm).
void check_norm(const std::string& norm);

/// Whether compute_rdf() can normalise `res`: always for density and none, with volumes for rdf.
bool can_normalise(const HistogramResult& res);

/// Short name of the normalised quantity, used in column and dataset names: "g" (rdf),
/// "density", "number" (none).
std::string normalised_name(const std::string& norm);

struct RdfCurve {
  std::vector<double> r;  // bin centres, length_unit
  // The normalised histogram of bin k as res.norm asks (g(r) for rdf); NaN if the pair has no
  // pairs to normalise by.
  std::vector<double> g;
  // Mean number of B atoms at r_min <= r < r_{k+1} from an A atom (from 0 unless bins start at
  // r_min: MDAnalysis's and freud's n(r) with a range that starts there).
  std::vector<double> coordination;
};

/// The normalised histogram of one species pair of `res`, in the mode res.norm (MDAnalysis
/// InterRDF's names and meanings):
///
///   rdf:      g_k = <count_k> / (N_pairs * shell_k * <1/V>)
///   density:  m * <count_k> / shell_k
///   none:     m * <count_k>
///
/// with <count_k> = counts[k] / n_frames, shell_k = 4/3 pi (r_{k+1}^3 - r_k^3),
/// N_pairs = res.pairs_per_frame(p) (N_A N_B for A != B, N (N-1) / 2 for A == B, less the self
/// pairs of shared atoms and the excluded pairs), and <1/V> the mean of the inverse frame volumes
/// (exact under NPT; MDAnalysis uses 1/<V>, the same for a fixed box). m = 2 for A == B and 1
/// otherwise: MDAnalysis counts a group against itself as ordered pairs (i, j) and (j, i), so
/// doubling our unique pairs gives its numbers (those of exclusion_block=(1, 1), which leaves out
/// the i == j distances it would otherwise put in bin 0). Coordination n_k = cumsum(counts)_k /
/// (n_frames N_A), doubled for A == B because each unique pair is a neighbour of both its atoms.
///
/// With a dynamic species (res.dynamic(): sizes that change per frame) the same rule holds frame
/// by frame: g_k = counts_k / (shell_k * sum_f pairs_f / V_f), pairs_f frame f's pairs (n_a n_b
/// less its shared atoms, or n_a (n_a - 1) / 2), so g = 1 for uncorrelated points whatever the
/// sizes; the coordination divides by sum_f n_a,f (the reference atoms of all frames) instead of
/// n_frames N_A. density and none are unchanged: they do not depend on the sizes.
///
/// Throws UsageError if there are no frames, or for rdf no volumes (no periodic box: g(r) is
/// undefined, the raw counts remain valid), InputError if a volume is not positive, and
/// std::logic_error if the result is internally inconsistent (counts.size() != nbins,
/// volumes.size() != n_frames).
RdfCurve compute_rdf(const HistogramResult& res, const PairHistogram& p);

/// Block-average errors of a pair's curves: the standard error of the mean of the curves that
/// each interval block gives on its own (analysis/block_average.hpp: sample standard deviation over
/// the B blocks / sqrt(B)), every block weighted alike. Empty unless the result has at least two
/// interval blocks and can_normalise(). `pair` indexes res.pairs.
struct RdfErrors {
  std::vector<double> g;             // of the normalised histogram (g(r) for rdf)
  std::vector<double> coordination;  // of n(r)
};
RdfErrors rdf_block_errors(const HistogramResult& res, size_t pair);

/// rdf_block_errors(res, pair).g.
std::vector<double> rdf_block_error(const HistogramResult& res, size_t pair);

}  // namespace pairhist::analysis
