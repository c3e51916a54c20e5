#include "analysis/scattering_structure.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "analysis/parallel_for.hpp"
#include "analysis/rdf.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::analysis {

namespace {

constexpr double kPi = 3.14159265358979323846;

/// (sin x - x cos x) / x^3 by its series sum_k (-1)^(k+1) 2k x^(2k-2) / (2k+1)!: the closed form
/// loses all digits to cancellation as x -> 0, where this one converges fast.
double shell_series(double x) {
  double term = 1.0 / 3;
  double sum = term;
  for (int k = 1; k < 40; ++k) {
    term *= -x * x / ((2.0 * k) * (2.0 * k + 3));
    sum += term;
    if (std::abs(term) <= 1e-17 * std::abs(sum)) break;
  }
  return sum;
}

/// integral_0^r t^2 sinc(q t) dt = (sin(q r) - q r cos(q r)) / q^3.
double plain_integral(double q, double r) {
  const double x = q * r;
  if (x < 1) return r * r * r * shell_series(x);
  return (std::sin(x) - x * std::cos(x)) / (q * q * q);
}

/// integral_0^r t^2 sinc(q t) sinc(a t) dt. The integrand is sin(q t) sin(a t) / (q a), whose
/// integral has two forms: the first divides by q (bad as q -> 0), the second by a^2 - q^2 (bad
/// near q = a); each is used where the other is bad, so neither loses more than a digit.
double lorch_integral(double q, double r, double a) {
  if (q >= a / 2) return r * (sinc((q - a) * r) - sinc((q + a) * r)) / (2 * q * a);
  return (std::sin(a * r) * std::cos(q * r) - a * r * std::cos(a * r) * sinc(q * r)) /
         (a * (a * a - q * q));
}

}  // namespace

Window parse_window(const std::string& name) {
  if (name == "none") return Window::none;
  if (name == "lorch") return Window::lorch;
  throw UsageError("--window must be none or lorch, got '" + name + "'");
}

std::string window_name(Window window) {
  return window == Window::lorch ? "lorch" : "none";
}

double windowed_shell_integral(double q, double r, double r_max, Window window) {
  const double integral =
      window == Window::none ? plain_integral(q, r) : lorch_integral(q, r, kPi / r_max);
  return 4 * kPi * integral;
}

std::vector<double> structure_kernel(double q, const std::vector<double>& edges, double r_max,
                                     Window window, WithinBin rule) {
  if (edges.size() < 2) throw std::logic_error("structure_kernel needs at least one bin");
  const size_t nbins = edges.size() - 1;
  std::vector<double> kernel(nbins);
  if (rule == WithinBin::centre) {
    for (size_t k = 0; k < nbins; ++k) {
      const double lo = edges[k], hi = edges[k + 1];
      const double c = 0.5 * (lo + hi);
      const double w = window == Window::lorch ? sinc(kPi * c / r_max) : 1.0;
      kernel[k] = 4.0 / 3.0 * kPi * (hi * hi * hi - lo * lo * lo) * sinc(q * c) * w;
    }
    return kernel;
  }
  // The integral from 0 once per edge: the bins share them.
  double lo = windowed_shell_integral(q, edges[0], r_max, window);
  for (size_t k = 0; k < nbins; ++k) {
    const double hi = windowed_shell_integral(q, edges[k + 1], r_max, window);
    kernel[k] = hi - lo;
    lo = hi;
  }
  return kernel;
}

bool StructureKernels::fit(const std::vector<double>& q_grid, const std::vector<double>& bin_edges,
                           Window w, WithinBin within) const {
  return w == window && within == rule && q_grid == q && bin_edges == edges &&
         rows.size() == q.size();
}

StructureKernels structure_kernels(const std::vector<double>& q, const std::vector<double>& edges,
                                   Window window, WithinBin rule, unsigned threads) {
  StructureKernels out;
  out.q = q;
  out.edges = edges;
  out.window = window;
  out.rule = rule;
  out.rows.resize(q.size());
  parallel_for_each(q.size(), threads, 32, [&](size_t iq) {
    out.rows[iq] = structure_kernel(q[iq], edges, edges.back(), window, rule);
  });
  return out;
}

StructureFactors structure_factors(const HistogramResult& res, const std::vector<double>& q,
                                   const std::vector<std::vector<double>>& weights,
                                   const StructureOptions& options) {
  if (res.box_kind == "none")
    throw UsageError(
        "structure factors need a periodic run: the run has no box, so there is no bulk density "
        "and g(r) is undefined (use the Debye intensity)");
  check_scattering_input(res, q);
  if (res.volumes.size() != res.frame_indices.size())
    throw UsageError("structure factors need the frame volumes, and the run has " +
                     std::to_string(res.volumes.size()) + " for " +
                     std::to_string(res.frame_indices.size()) + " frames");
  if (weights.size() != res.species.size())
    throw std::logic_error("structure_factors: one row of weights per species expected");
  for (const auto& w : weights)
    if (w.size() != q.size())
      throw std::logic_error("structure_factors: one weight per q expected");

  // g(r) exactly as the run writes it (rdf.csv), whatever norm the run was asked for.
  HistogramResult frames;
  frames.species = res.species;
  frames.r_max = res.r_max;
  frames.nbins = res.nbins;
  frames.frame_indices = res.frame_indices;
  frames.volumes = res.volumes;
  frames.norm = "rdf";

  // Volumes are in length_unit^3; edges and density in nm.
  const double to_nm3 = res.length_unit == "angstrom" ? 1e-3 : 1.0;
  double mean_inv_volume = 0;
  for (double v : res.volumes) {
    if (!(v > 0) || !std::isfinite(v))
      throw InputError("a frame has a box volume of " + std::to_string(v));
    mean_inv_volume += 1.0 / (v * to_nm3);
  }
  mean_inv_volume /= static_cast<double>(res.volumes.size());
  double atoms = 0;
  for (const SpeciesInfo& s : res.species) atoms += static_cast<double>(s.count);
  if (!(atoms > 0)) throw UsageError("the run's species hold no atoms");

  StructureFactors out;
  out.q = q;
  out.density = atoms * mean_inv_volume;
  for (const SpeciesInfo& s : res.species)
    out.concentration.push_back(static_cast<double>(s.count) / atoms);

  // g_k - 1 per pair; a pair of no pairs has g = 0 (its pair density is zero).
  std::vector<std::vector<double>> excess;
  for (const PairHistogram& p : res.pairs) {
    std::vector<double> g = compute_rdf(frames, p).g;
    for (double& v : g) v = std::isnan(v) ? -1.0 : v - 1.0;
    excess.push_back(std::move(g));
  }

  const std::vector<double> edges = bin_edges_nm(res);
  const double r_max = edges.back();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  out.partial.assign(res.pairs.size(), std::vector<double>(q.size(), 0.0));
  out.total.assign(q.size(), 0.0);
  out.f_total.assign(q.size(), 0.0);
  out.mean_square_weight.assign(q.size(), 0.0);
  out.square_mean_weight.assign(q.size(), 0.0);
  const StructureKernels* ahead =
      options.kernels != nullptr &&
              options.kernels->fit(q, edges, options.window, options.within_bin)
          ? options.kernels
          : nullptr;
  std::vector<double> own;
  for (size_t iq = 0; iq < q.size(); ++iq) {
    if (ahead == nullptr)
      own = structure_kernel(q[iq], edges, r_max, options.window, options.within_bin);
    const std::vector<double>& kernel = ahead != nullptr ? ahead->rows[iq] : own;
    double mean_f = 0, mean_f2 = 0;
    for (size_t s = 0; s < res.species.size(); ++s) {
      mean_f += out.concentration[s] * weights[s][iq];
      mean_f2 += out.concentration[s] * weights[s][iq] * weights[s][iq];
    }
    double f_sum = 0;
    for (size_t ip = 0; ip < res.pairs.size(); ++ip) {
      const PairHistogram& p = res.pairs[ip];
      double sum = 0;
      for (size_t k = 0; k < kernel.size(); ++k) sum += excess[ip][k] * kernel[k];
      const double s_ab = 1 + out.density * sum;
      out.partial[ip][iq] = s_ab;
      const double ordered = p.a == p.b ? 1.0 : 2.0;
      f_sum += ordered * out.concentration[p.a] * out.concentration[p.b] * weights[p.a][iq] *
               weights[p.b][iq] * (s_ab - 1);
    }
    out.f_total[iq] = f_sum;
    out.mean_square_weight[iq] = mean_f2;
    out.square_mean_weight[iq] = mean_f * mean_f;
    out.total[iq] = mean_f != 0 ? 1 + f_sum / (mean_f * mean_f) : nan;
  }
  return out;
}

}  // namespace pairhist::analysis
