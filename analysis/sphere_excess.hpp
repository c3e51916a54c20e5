// What the excess intensity of a solute in a sphere cut out of solution (`pairhist scattering
// SOLUTION --subtract SOLVENT` of two `run --sphere` runs) needs beyond the two Debye sums: the
// sphere's mean amplitude from the atoms' distances to its centre, the amplitude of a uniform
// solvent filling the sphere, the solvent density in an outer shell, the excess pair-distance
// distribution P(r) with the background's share, and a Guinier fit. No file format, no StarPU.
// The method (CAPRIQORN's, Koefinger and Hummer, PRE 87, 052712 (2013)): docs/scattering.md,
// "Excess intensity".
#pragma once

#include <string>
#include <vector>

#include "analysis/scattering_debye.hpp"
#include "pairhist/result.hpp"

namespace pairhist::analysis {

/// Phi(x) = 3 (sin x - x cos x) / x^3: the amplitude of a uniform sphere of radius R at q, x =
/// qR, relative to q = 0 (1 at x = 0; a series below x = 1e-2, where the closed form cancels).
double uniform_sphere_amplitude(double x);

/// The sphere radius of a `run --sphere` result in nm (from res.sphere); throws UsageError for a
/// result without a sphere.
double sphere_radius_nm(const HistogramResult& res);

/// Whether the result holds its atoms' distances from the sphere's centre (res.centre_counts).
bool has_centre_counts(const HistogramResult& res);

/// Per species s and q: the orientation and frame mean of the sphere's amplitude without the
/// weight, (1 / n_frames) sum_k centre_counts[s][k] K_k(q), K_k the same bin mean of sinc as the
/// Debye sums use (`rule`), over the centre bins [k w, (k + 1) w] (nm). Times f_s(q) and summed
/// over the species, it is the sphere's mean amplitude B(q) = < sum_j f_j sinc(q d_j) >.
std::vector<std::vector<double>> centre_amplitudes(const HistogramResult& res,
                                                   const std::vector<double>& q, WithinBin rule);

/// Atoms of species s per frame on average at distances [r_inner, R] from the centre; the inner
/// edge is `r_inner_nm` moved to the nearest bin edge, which `used_inner_nm` returns.
double shell_atoms(const HistogramResult& res, int s, double r_inner_nm, double& used_inner_nm);

/// The volume integral over each pair-distance bin [edges[k], edges[k+1]] (nm) of 4 pi r^2 times
/// the fraction of the sphere of radius r around a point at distance x from the centre of a
/// sphere of radius R that lies inside it: the distances between that point and a uniform unit
/// density filling the sphere. Sums to the sphere's volume over bins reaching R + x.
std::vector<double> uniform_sphere_distances(double x, double radius,
                                             const std::vector<double>& edges);

/// The Guinier fit ln I(q) = ln I(0) - (q Rg)^2 / 3 by least squares over the points from the
/// first q > 0 up to q Rg <= q_rg_max (iterated until the range no longer changes, or, where it
/// swings between two ends, the shorter), all with I > 0. ok false with `why` where there are fewer
/// than 3 such points or I does not fall.
struct GuinierFit {
  bool ok = false;
  std::string why;
  double rg = 0;    // nm
  double i0 = 0;    // I(0) of the fit
  double q_lo = 0;  // 1/nm, the range used
  double q_hi = 0;
  int points = 0;
  double rms_log = 0;  // root mean square of ln I - the fit's ln I over the points
};
GuinierFit guinier_fit(const std::vector<double>& q, const std::vector<double>& intensity,
                       double q_rg_max = 1.3);

}  // namespace pairhist::analysis
