#include "analysis/sphere_excess.hpp"

#include <algorithm>
#include <cmath>

#include "analysis/sphere_cut.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::analysis {
namespace {

constexpr double kPi = 3.14159265358979323846;

double nm_per_unit(const HistogramResult& res) {
  if (res.length_unit == "angstrom") return 0.1;
  if (res.length_unit != "nm")
    throw UsageError("unknown length unit '" + res.length_unit + "' (nm or angstrom)");
  return 1.0;
}

/// Least squares of y = a + b x; the rms residual.
void line_fit(const std::vector<double>& x, const std::vector<double>& y, double& a, double& b,
              double& rms) {
  const auto n = static_cast<double>(x.size());
  double sx = 0, sy = 0;
  for (size_t i = 0; i < x.size(); ++i) sx += x[i], sy += y[i];
  const double mx = sx / n, my = sy / n;
  double sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
  }
  b = sxy / sxx;
  a = my - b * mx;
  double ss = 0;
  for (size_t i = 0; i < x.size(); ++i) ss += (y[i] - a - b * x[i]) * (y[i] - a - b * x[i]);
  rms = std::sqrt(ss / n);
}

}  // namespace

double uniform_sphere_amplitude(double x) {
  if (std::abs(x) < 1e-2) {
    const double x2 = x * x;  // 1 - x^2/10 + x^4/280 - x^6/15120
    return 1 - x2 / 10 * (1 - x2 / 28 * (1 - x2 / 54));
  }
  return 3 * (std::sin(x) - x * std::cos(x)) / (x * x * x);
}

double sphere_radius_nm(const HistogramResult& res) {
  if (res.sphere.empty()) throw UsageError("the run was not cut with --sphere");
  return parse_sphere_option(res.sphere).radius * nm_per_unit(res);
}

bool has_centre_counts(const HistogramResult& res) {
  return !res.centre_counts.empty() && res.centre_counts.size() == res.species.size() &&
         res.centre_bin_width > 0;
}

std::vector<std::vector<double>> centre_amplitudes(const HistogramResult& res,
                                                   const std::vector<double>& q, WithinBin rule) {
  if (!has_centre_counts(res) || res.frame_indices.empty())
    throw UsageError("the run holds no distances from its sphere's centre");
  const double width = res.centre_bin_width * nm_per_unit(res);
  const size_t nbins = res.centre_counts[0].size();
  std::vector<double> edges(nbins + 1);
  for (size_t k = 0; k <= nbins; ++k) edges[k] = static_cast<double>(k) * width;
  const auto frames = static_cast<double>(res.frame_indices.size());
  std::vector<std::vector<double>> out(res.species.size(), std::vector<double>(q.size(), 0));
  for (size_t iq = 0; iq < q.size(); ++iq) {
    const std::vector<double> kernel = debye_kernel(q[iq], edges, rule);
    for (size_t s = 0; s < res.species.size(); ++s) {
      double sum = 0;
      for (size_t k = 0; k < nbins; ++k)
        sum += static_cast<double>(res.centre_counts[s][k]) * kernel[k];
      out[s][iq] = sum / frames;
    }
  }
  return out;
}

double shell_atoms(const HistogramResult& res, int s, double r_inner_nm, double& used_inner_nm) {
  if (!has_centre_counts(res) || res.frame_indices.empty())
    throw UsageError("the run holds no distances from its sphere's centre");
  const double width = res.centre_bin_width * nm_per_unit(res);
  const auto& counts = res.centre_counts.at(static_cast<size_t>(s));
  const auto first = static_cast<size_t>(std::max(0.0, std::round(r_inner_nm / width)));
  used_inner_nm = static_cast<double>(first) * width;
  double n = 0;
  for (size_t k = first; k < counts.size(); ++k) n += static_cast<double>(counts[k]);
  return n / static_cast<double>(res.frame_indices.size());
}

std::vector<double> uniform_sphere_distances(double x, double radius,
                                             const std::vector<double>& edges) {
  // 4 pi r^2 where the whole shell of radius r lies inside (r <= R - x), then the part of it
  // inside, pi r (R^2 - (x - r)^2) / x, up to r = R + x: their antiderivatives.
  const double inner = std::max(0.0, radius - x), outer = radius + x;
  const auto whole = [](double r) { return 4 * kPi * r * r * r / 3; };
  const auto part = [&](double r) {
    return kPi / x *
           ((radius * radius - x * x) * r * r / 2 + 2 * x * r * r * r / 3 - r * r * r * r / 4);
  };
  std::vector<double> out(edges.size() - 1, 0.0);
  for (size_t k = 0; k + 1 < edges.size(); ++k) {
    const double a = edges[k], b = edges[k + 1];
    double v = 0;
    if (a < inner) v += whole(std::min(b, inner)) - whole(a);
    if (x > 0) {
      const double lo = std::max(a, inner), hi = std::min(b, outer);
      if (hi > lo) v += part(hi) - part(lo);
    }
    out[k] = v;
  }
  return out;
}

GuinierFit guinier_fit(const std::vector<double>& q, const std::vector<double>& intensity,
                       double q_rg_max) {
  GuinierFit fit;
  // The points from the first q > 0 on, as long as I > 0.
  size_t first = 0;
  while (first < q.size() && !(q[first] > 0)) ++first;
  size_t usable = first;
  while (usable < q.size() && intensity[usable] > 0 && std::isfinite(intensity[usable])) ++usable;
  if (usable - first < 3) {
    fit.why = "fewer than 3 points with q > 0 and I > 0 at the start of the q grid";
    return fit;
  }
  // Start from 3 points, then follow q Rg <= q_rg_max; where the range swings between two
  // ends (Rg of one range puts the limit at the other), the shorter is taken.
  size_t end = first + 3, before = 0;
  bool last_round = false;
  for (int round = 0; round < 100; ++round) {
    std::vector<double> x, y;
    for (size_t i = first; i < end; ++i) {
      x.push_back(q[i] * q[i]);
      y.push_back(std::log(intensity[i]));
    }
    double a = 0, b = 0, rms = 0;
    line_fit(x, y, a, b, rms);
    if (!(b < 0)) {
      fit.why =
          "I(q) does not fall over the first " + std::to_string(end - first) + " points with q > 0";
      return fit;
    }
    fit.rg = std::sqrt(-3 * b);
    fit.i0 = std::exp(a);
    fit.q_lo = q[first];
    fit.q_hi = q[end - 1];
    fit.points = static_cast<int>(end - first);
    fit.rms_log = rms;
    size_t next = first;
    while (next < usable && q[next] * fit.rg <= q_rg_max) ++next;
    if (next - first < 3) {
      fit.why = "fewer than 3 points with q Rg <= " + std::to_string(q_rg_max).substr(0, 4) +
                " (Rg " + std::to_string(fit.rg) + " nm): the q grid is too coarse";
      return fit;
    }
    if (next == end || last_round) {
      fit.ok = true;
      return fit;
    }
    if (next == before) {
      last_round = true;
      next = std::min(next, end);
    }
    before = end;
    end = next;
  }
  fit.why = "the q range did not settle";
  return fit;
}

}  // namespace pairhist::analysis
