// Scattering intensities from pair-distance histograms (Debye's equation). No file format, no
// StarPU: the histograms come as a HistogramResult, the scattering weights as numbers per species
// and q. What is exact and what is approximate: docs/scattering.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pairhist/result.hpp"

namespace pairhist::analysis {

/// How a bin's pairs enter sum_pairs sin(q r)/(q r):
///  - centre: every pair sits at the bin centre c_k: h_k sinc(q c_k);
///  - exact:  the pairs spread uniformly over the bin: h_k times the exact mean of sinc(q r) over
///            [r_k, r_k+1], (Si(q r_k+1) - Si(q r_k)) / (q dr) with the sine integral Si.
/// The two differ by at most (q dr)^2 / 72 per pair; either differs from the pairs' true
/// distances by at most 0.4362 q dr / 2 (centre) or 0.4362 q dr (exact) per pair, 0.4362 being
/// max |d sinc(x) / dx| (docs/scattering.md derives both).
enum class WithinBin { centre, exact };

/// Parses "centre" (or "center") and "exact"; throws UsageError otherwise.
WithinBin parse_within_bin(const std::string& name);
std::string within_bin_name(WithinBin rule);

/// The precision of the sums over bins (the kernel values are always computed in double).
enum class SumPrecision { single, double_ };

/// Si(x) = integral_0^x sin(t)/t dt, to a few ulp: power series for |x| <= 3, the continued
/// fraction of the exponential integral E1(ix) beyond (Si = pi/2 + Im E1(ix)).
double sine_integral(double x);

/// sin(x)/x, 1 at x = 0.
double sinc(double x);

/// The mean of sinc(q r) over r in [r_lo, r_hi] (exact, through Si); sinc(q r_lo) if the
/// interval is empty.
double sinc_bin_mean(double q, double r_lo, double r_hi);

/// Per bin k of `edges` (nbins + 1 values), the factor that multiplies the bin's pair count in
/// the Debye sum at `q`: sinc(q c_k) (centre) or sinc_bin_mean(q, r_k, r_k+1) (exact).
std::vector<double> debye_kernel(double q, const std::vector<double>& edges, WithinBin rule);

/// debye_kernel() at every q of a grid: what the Debye sums weigh the bins with. It depends on
/// the q grid and the bins only, not on the counts, so `run --scattering` computes it while the
/// run counts (the sine integrals are most of the sums' time: ~0.05 s of a core for 501 q and 240
/// bins), and the sums after the run take it from here.
struct DebyeKernels {
  std::vector<double> q;      // 1/nm
  std::vector<double> edges;  // nm
  WithinBin rule = WithinBin::exact;
  std::vector<std::vector<double>> rows;  // [iq]: debye_kernel(q[iq], edges, rule)

  /// Whether these are the kernels of this grid, these bins and this rule (bit for bit).
  bool fit(const std::vector<double>& q, const std::vector<double>& edges, WithinBin rule) const;
};

/// The kernels of every q, each q on its own over up to `threads` threads (0: every core), so
/// that they are the same bits on any number of them.
DebyeKernels debye_kernels(const std::vector<double>& q, const std::vector<double>& edges,
                           WithinBin rule, unsigned threads = 0);

struct DebyeOptions {
  WithinBin within_bin = WithinBin::exact;
  SumPrecision precision = SumPrecision::double_;
  // Computed ahead (debye_kernels()): used where they fit the grid, the bins and within_bin.
  const DebyeKernels* kernels = nullptr;
};

/// I(q) of one frame on average, and its parts. Per pair p of the result (A <= B, in res.pairs'
/// order), partial[p][iq] is
///   A == B:  N_A f_A^2 + 2 f_A^2 D_AA(q)
///   A != B:  2 f_A f_B D_AB(q)
/// with D_AB(q) = (1 / n_frames) sum_k counts_k K_k(q), the pair sum of sinc over the
/// histogram, N_A the atoms of A per frame on average (res.mean_species_count: a sphere run's
/// frames hold different numbers), so that total[iq] = sum_p partial[p][iq] and, for re-weighting,
/// partial[p] / (f_A f_B) does not depend on the weights.
struct DebyeIntensity {
  std::vector<double> q;  // 1/nm
  std::vector<double> total;
  std::vector<std::vector<double>> partial;
};

/// The Debye intensity of `res` on the grid `q` (1/nm; the result's lengths are converted from
/// res.length_unit) with weights[s][iq] = f of species s at q[iq] (X-ray form factor, neutron
/// scattering length, ...). Needs every pair A <= B of the species exactly once, no shared atoms
/// and no excluded pairs (each would make the sum count a pair twice or leave it out): throws
/// UsageError naming the problem, and if there are no frames, if a q is negative or not finite,
/// or if weights do not match the species and q.
DebyeIntensity debye_intensity(const HistogramResult& res, const std::vector<double>& q,
                               const std::vector<std::vector<double>>& weights,
                               const DebyeOptions& options = {});

/// Throws UsageError unless `res` has frames, every q is finite and not negative, and its pairs
/// are what a sum over all pairs of atoms needs: every pair of species A <= B exactly once, no
/// atom in two species, no pairs left out by --exclude (each would make a pair count twice or
/// not at all). debye_intensity() and structure_factors() check this first.
void check_scattering_input(const HistogramResult& res, const std::vector<double>& q);

/// Pairs per frame (on average) that the histogram of `p` does not hold: those at r >= r_max
/// (the result's pairs_per_frame() less the mean counted). 0 means the Debye sum over the pair
/// is complete.
double pairs_beyond_rmax(const HistogramResult& res, const PairHistogram& p);

/// Bin edges of `res` in nm (res.length_unit nm or angstrom).
std::vector<double> bin_edges_nm(const HistogramResult& res);

}  // namespace pairhist::analysis
