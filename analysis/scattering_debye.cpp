#include "analysis/scattering_debye.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "analysis/parallel_for.hpp"
#include "analysis/rdf.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::analysis {

namespace {

constexpr double kHalfPi = 1.57079632679489661923;

/// Si by its power series sum_k (-1)^k x^(2k+1) / ((2k+1) (2k+1)!): for |x| <= 3 the largest
/// term is below 3, so the sum loses at most one digit to cancellation.
double sine_integral_series(double x) {
  double term = x;  // (-1)^k x^(2k+1) / (2k+1)!
  double sum = x;
  for (int k = 1; k < 60; ++k) {
    term *= -x * x / ((2.0 * k) * (2.0 * k + 1));
    const double add = term / (2 * k + 1);
    sum += add;
    if (std::abs(add) <= 1e-17 * std::abs(sum)) break;
  }
  return sum;
}

/// (a + ib) / (c + id) by Smith's method, which is what libgcc's __divdc3 (std::complex's
/// division) computes for finite values away from overflow and underflow, where its scalings by
/// powers of two are exact: the same bits without the call and its special cases.
inline void complex_divide(double a, double b, double c, double d, double& re, double& im) {
  if (std::abs(c) < std::abs(d)) {
    const double ratio = c / d;
    const double denom = c * ratio + d;
    re = (a * ratio + b) / denom;
    im = (b * ratio - a) / denom;
  } else {
    const double ratio = d / c;
    const double denom = d * ratio + c;
    re = (b * ratio + a) / denom;
    im = (b - a * ratio) / denom;
  }
}

/// Si for x > 3 from E1(ix) = -Ci(x) + i (Si(x) - pi/2), whose continued fraction
/// E1(z) = e^-z / (z + 1 - 1 / (z + 3 - 4 / (z + 5 - ...))) converges quickly there; evaluated
/// with the modified Lentz method. In real arithmetic, operation for operation what
/// std::complex<double> did here before (the same bits on 8 million x from 3 to 1e5 and every
/// x of the default q grid and bins), 1.5-2.5x faster: the sine integrals are most of the
/// Debye sums' time.
double sine_integral_fraction(double x) {
  constexpr double kTiny = 1e-300;
  double b_re = 1.0;
  const double b_im = x;
  double c_re = 1.0 / kTiny, c_im = 0.0;
  double d_re = 0, d_im = 0;
  complex_divide(1.0, 0.0, b_re, b_im, d_re, d_im);
  double h_re = d_re, h_im = d_im;
  for (int i = 1; i < 10000; ++i) {
    const double a = -static_cast<double>(i) * i;
    b_re += 2.0;
    complex_divide(1.0, 0.0, a * d_re + b_re, a * d_im + b_im, d_re, d_im);
    double q_re = 0, q_im = 0;
    complex_divide(a, 0.0, c_re, c_im, q_re, q_im);
    c_re = b_re + q_re;
    c_im = b_im + q_im;
    const double del_re = c_re * d_re - c_im * d_im;
    const double del_im = c_re * d_im + c_im * d_re;
    const double next_re = h_re * del_re - h_im * del_im;
    h_im = h_re * del_im + h_im * del_re;
    h_re = next_re;
    if (std::abs(del_re - 1.0) + std::abs(del_im) < 1e-16) break;
  }
  // Im(h e^-ix)
  return kHalfPi + (h_re * -std::sin(x) + h_im * std::cos(x));
}

void check_q(const std::vector<double>& q) {
  for (double v : q)
    if (!std::isfinite(v) || v < 0)
      throw UsageError("q must be finite and not negative, got " + std::to_string(v));
}

/// Every pair A <= B once, and pairs that the Debye sum may use as they are.
void check_pairs(const HistogramResult& res) {
  const size_t ns = res.species.size();
  std::vector<int> seen(ns * ns, 0);
  for (const PairHistogram& p : res.pairs) {
    if (p.a < 0 || p.b < p.a || static_cast<size_t>(p.b) >= ns)
      throw std::logic_error("pair histogram refers to a species that does not exist");
    const std::string label = res.species[p.a].name + "-" + res.species[p.b].name;
    if (++seen[p.a * ns + p.b] > 1) throw UsageError("the pair " + label + " appears twice");
    if (p.counts.size() != static_cast<size_t>(res.nbins))
      throw std::logic_error("pair histogram " + label + " does not have nbins bins");
    if (p.shared_atoms > 0)
      throw UsageError("species " + res.species[p.a].name + " and " + res.species[p.b].name +
                       " share " + std::to_string(p.shared_atoms) +
                       " atoms: scattering needs every atom in one species only");
    if (p.excluded_pairs > 0)
      throw UsageError("the run left out " + std::to_string(p.excluded_pairs) + " " + label +
                       " pairs per frame (--exclude): scattering needs every pair; run "
                       "again without --exclude");
  }
  for (size_t a = 0; a < ns; ++a)
    for (size_t b = a; b < ns; ++b)
      if (seen[a * ns + b] == 0)
        throw UsageError("the run has no histogram of the pair " + res.species[a].name + "-" +
                         res.species[b].name + ": scattering needs every pair of species");
}

/// sum_k counts_k kernel_k in the precision T.
template <class T>
double pair_sum(const std::vector<uint64_t>& counts, const std::vector<double>& kernel) {
  T sum = 0;
  for (size_t k = 0; k < counts.size(); ++k)
    if (counts[k] != 0) sum += static_cast<T>(counts[k]) * static_cast<T>(kernel[k]);
  return static_cast<double>(sum);
}

}  // namespace

void check_scattering_input(const HistogramResult& res, const std::vector<double>& q) {
  if (res.frame_indices.empty()) throw UsageError("no frames were histogrammed: no intensity");
  check_q(q);
  check_pairs(res);
}

WithinBin parse_within_bin(const std::string& name) {
  if (name == "centre" || name == "center") return WithinBin::centre;
  if (name == "exact") return WithinBin::exact;
  throw UsageError("--within-bin must be exact or centre, got '" + name + "'");
}

std::string within_bin_name(WithinBin rule) {
  return rule == WithinBin::centre ? "centre" : "exact";
}

double sine_integral(double x) {
  if (std::isnan(x)) return x;
  if (x < 0) return -sine_integral(-x);
  if (std::isinf(x)) return kHalfPi;
  return x <= 3.0 ? sine_integral_series(x) : sine_integral_fraction(x);
}

double sinc(double x) {
  return x == 0 ? 1.0 : std::sin(x) / x;
}

double sinc_bin_mean(double q, double r_lo, double r_hi) {
  const double width = r_hi - r_lo;
  if (q == 0) return 1.0;
  if (!(width > 0)) return sinc(q * r_lo);
  return (sine_integral(q * r_hi) - sine_integral(q * r_lo)) / (q * width);
}

std::vector<double> debye_kernel(double q, const std::vector<double>& edges, WithinBin rule) {
  if (edges.size() < 2) throw std::logic_error("debye_kernel needs at least one bin");
  const size_t nbins = edges.size() - 1;
  std::vector<double> kernel(nbins);
  if (rule == WithinBin::centre || q == 0) {
    for (size_t k = 0; k < nbins; ++k) kernel[k] = sinc(q * 0.5 * (edges[k] + edges[k + 1]));
    return kernel;
  }
  // Si once per edge: the bins share them.
  double si_lo = sine_integral(q * edges[0]);
  for (size_t k = 0; k < nbins; ++k) {
    const double si_hi = sine_integral(q * edges[k + 1]);
    const double width = edges[k + 1] - edges[k];
    kernel[k] = width > 0 ? (si_hi - si_lo) / (q * width) : sinc(q * edges[k]);
    si_lo = si_hi;
  }
  return kernel;
}

std::vector<double> bin_edges_nm(const HistogramResult& res) {
  // Debye sums need every pair: counts from r_min > 0 left the closest ones out.
  if (res.r_min > 0)
    throw UsageError("the histograms start at r_min = " + std::to_string(res.r_min) + " " +
                     res.length_unit + ": pairs closer than that were not counted, and a " +
                     "scattering curve needs them all (count from 0)");
  std::vector<double> edges = bin_edges(res.r_max, res.nbins);
  if (res.length_unit == "angstrom") {
    for (double& e : edges) e /= 10;
  } else if (res.length_unit != "nm") {
    throw UsageError("unknown length unit '" + res.length_unit + "' (nm or angstrom)");
  }
  return edges;
}

double pairs_beyond_rmax(const HistogramResult& res, const PairHistogram& p) {
  const size_t n_frames = res.frame_indices.size();
  if (n_frames == 0) return 0;
  double counted = 0;
  for (uint64_t c : p.counts) counted += static_cast<double>(c);
  return res.mean_pairs_per_frame(p) - counted / static_cast<double>(n_frames);
}

bool DebyeKernels::fit(const std::vector<double>& q_grid, const std::vector<double>& bin_edges,
                       WithinBin within) const {
  return within == rule && q_grid == q && bin_edges == edges && rows.size() == q.size();
}

DebyeKernels debye_kernels(const std::vector<double>& q, const std::vector<double>& edges,
                           WithinBin rule, unsigned threads) {
  check_q(q);
  DebyeKernels out;
  out.q = q;
  out.edges = edges;
  out.rule = rule;
  out.rows.resize(q.size());
  // At least 32 q per thread: fewer are not worth a thread.
  parallel_for_each(q.size(), threads, 32,
                    [&](size_t iq) { out.rows[iq] = debye_kernel(q[iq], edges, rule); });
  return out;
}

DebyeIntensity debye_intensity(const HistogramResult& res, const std::vector<double>& q,
                               const std::vector<std::vector<double>>& weights,
                               const DebyeOptions& options) {
  const size_t n_frames = res.frame_indices.size();
  check_scattering_input(res, q);
  if (weights.size() != res.species.size())
    throw std::logic_error("debye_intensity: one row of weights per species expected");
  for (const auto& w : weights)
    if (w.size() != q.size()) throw std::logic_error("debye_intensity: one weight per q expected");

  const std::vector<double> edges = bin_edges_nm(res);
  const DebyeKernels* ahead =
      options.kernels != nullptr && options.kernels->fit(q, edges, options.within_bin)
          ? options.kernels
          : nullptr;
  DebyeIntensity out;
  out.q = q;
  out.total.assign(q.size(), 0.0);
  out.partial.assign(res.pairs.size(), std::vector<double>(q.size(), 0.0));
  const auto one_q = [&](size_t iq) {
    std::vector<double> own;
    if (ahead == nullptr) own = debye_kernel(q[iq], edges, options.within_bin);
    const std::vector<double>& kernel = ahead != nullptr ? ahead->rows[iq] : own;
    for (size_t ip = 0; ip < res.pairs.size(); ++ip) {
      const PairHistogram& p = res.pairs[ip];
      const double sum = options.precision == SumPrecision::single
                             ? pair_sum<float>(p.counts, kernel)
                             : pair_sum<double>(p.counts, kernel);
      const double fa = weights[p.a][iq];
      const double fb = weights[p.b][iq];
      double value = 2.0 * fa * fb * sum / static_cast<double>(n_frames);
      if (p.a == p.b) value += res.mean_species_count(p.a) * fa * fa;
      out.partial[ip][iq] = value;
      out.total[iq] += value;
    }
  };
  // Every q on its own, so that any number of threads gives the same bits. The sine integrals
  // of the kernels are most of the time where they are not given: then the q spread over the
  // cores (`pairhist scattering`); the sums alone are a few hundred thousand products.
  if (ahead != nullptr)
    for (size_t iq = 0; iq < q.size(); ++iq) one_q(iq);
  else
    parallel_for_each(q.size(), 0, 32, one_q);
  return out;
}

}  // namespace pairhist::analysis
