#include "drivers/cli/scattering_excess_terms.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "drivers/cli/scattering_units.hpp"
#include "pairhist/errors.hpp"

namespace pairhist {
namespace {

constexpr double kPi = 3.14159265358979323846;

[[noreturn]] void incompatible(const ScatteringInputs& solution, const ScatteringInputs& solvent,
                               const std::string& why) {
  throw InputError("cannot subtract " + solvent.run.path + " from " + solution.run.path + ": " +
                   why);
}

/// The index of the solvent's species s among the solution's (check_compatible() has made sure
/// that it is there).
int solution_index(const ScatteringInputs& solution, const ScatteringInputs& solvent, size_t s) {
  const auto& names = solution.run.result.species;
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i].name == solvent.run.result.species[s].name) return static_cast<int>(i);
  incompatible(
      solution, solvent,
      "the solvent's species " + solvent.run.result.species[s].name + " is not in the solution");
}

/// sum over the species of f_s(q) N_s: the weighted atoms per frame of a run.
double weighted_atoms(const ScatteringInputs& in, size_t iq) {
  double sum = 0;
  const HistogramResult& res = in.run.result;
  for (size_t s = 0; s < res.species.size(); ++s)
    sum += in.weight_grid[s][iq] * res.mean_species_count(static_cast<int>(s));
  return sum;
}

/// The solvent density matched in the shell [R - W, R]: header lines and the factor s.
double match_density(const ScatteringOptions& o, const ScatteringInputs& solution,
                     const ScatteringInputs& solvent, double radius, ExcessTerms& t) {
  if (!(o.match_shell > 0)) {
    t.header.push_back(
        "density matching: none (--match-shell W scales the solvent run to the solution's "
        "solvent density in the shell R - W < d <= R)");
    return 1;
  }
  if (!(o.match_shell < radius))
    throw UsageError("--match-shell " + scattering_number(o.match_shell) +
                     " nm is not below the spheres' radius " + scattering_number(radius) + " nm");
  const HistogramResult& a = solution.run.result;
  const HistogramResult& b = solvent.run.result;
  double n_solution = 0, n_solvent = 0, inner_a = 0, inner_b = 0;
  std::string names;
  for (size_t s = 0; s < b.species.size(); ++s) {
    n_solution += analysis::shell_atoms(a, solution_index(solution, solvent, s),
                                        radius - o.match_shell, inner_a);
    n_solvent += analysis::shell_atoms(b, static_cast<int>(s), radius - o.match_shell, inner_b);
    names += (s == 0 ? "" : ", ") + b.species[s].name;
  }
  const auto shell = [radius](double inner) {
    return 4 * kPi / 3 * (radius * radius * radius - inner * inner * inner);
  };
  const double rho_a = n_solution / shell(inner_a), rho_b = n_solvent / shell(inner_b);
  if (!(n_solvent > 0) || !(n_solution > 0))
    incompatible(solution, solvent,
                 "no atom of the solvent's species (" + names + ") in the shell from " +
                     scattering_number(inner_b) + " to " + scattering_number(radius) +
                     " nm of one run: widen --match-shell");
  t.header.push_back(
      "density matching (--match-shell " + scattering_number(o.match_shell) + " nm): atoms of " +
      names + " per nm^3 in the shell d > " + scattering_number(inner_a) + " nm: solution " +
      scattering_number(rho_a, 8) + ", solvent " + scattering_number(rho_b, 8) + " (d > " +
      scattering_number(inner_b) + " nm); factor s = " + scattering_number(rho_a / rho_b, 8) +
      ": the solvent run's self terms scaled by s, its pair terms by s^2, its "
      "amplitude by s");
  return rho_a / rho_b;
}

}  // namespace

ExcessTerms excess_terms(const ScatteringOptions& o, const ScatteringInputs& solution,
                         const ScatteringInputs& solvent) {
  const HistogramResult& a = solution.run.result;
  const HistogramResult& b = solvent.run.result;
  const std::vector<double>& q = solution.q;
  ExcessTerms t;
  t.background.assign(q.size(), 0.0);
  if (a.sphere.empty() != b.sphere.empty())
    incompatible(solution, solvent,
                 std::string("the ") + (a.sphere.empty() ? "solvent" : "solution") +
                     " run was cut with --sphere and the other not: the excess of a sphere needs "
                     "the same sphere in both");
  if (a.sphere.empty()) {
    if (o.match_shell > 0)
      throw UsageError(
          "--match-shell matches the solvent density in a shell of the sphere: the "
          "runs were not cut with --sphere");
    t.header.push_back(
        "method: dI(q) = I_solution(q) - I_solvent(q), the difference of the two runs' Debye "
        "intensities (runs without --sphere: no uniform background to remove)");
    return t;
  }
  t.sphere = true;
  const double radius = analysis::sphere_radius_nm(a);
  const double radius_b = analysis::sphere_radius_nm(b);
  if (std::abs(radius - radius_b) > 1e-9 * radius)
    incompatible(solution, solvent,
                 "the sphere's radius is " + scattering_number(radius) + " nm in the solution, " +
                     scattering_number(radius_b) +
                     " nm in the solvent: the uniform background cancels only for one sphere");
  for (const ScatteringInputs* in : {&solution, &solvent})
    if (!analysis::has_centre_counts(in->run.result))
      incompatible(solution, solvent,
                   in->run.path +
                       " holds no distances from its sphere's centre (written by a pairhist "
                       "before they were kept): run it again");
  t.scale = match_density(o, solution, solvent, radius, t);
  const analysis::WithinBin rule = analysis::parse_within_bin(o.within_bin);
  const auto amp_a = analysis::centre_amplitudes(a, q, rule);
  const auto amp_b = analysis::centre_amplitudes(b, q, rule);
  t.a_bg.assign(q.size(), 0.0);
  t.b_solution.assign(q.size(), 0.0);
  t.b_solvent.assign(q.size(), 0.0);
  for (size_t iq = 0; iq < q.size(); ++iq) {
    for (size_t s = 0; s < a.species.size(); ++s)
      t.b_solution[iq] += solution.weight_grid[s][iq] * amp_a[s][iq];
    for (size_t s = 0; s < b.species.size(); ++s)
      t.b_solvent[iq] += solvent.weight_grid[s][iq] * amp_b[s][iq];
    t.a_bg[iq] =
        t.scale * weighted_atoms(solvent, iq) * analysis::uniform_sphere_amplitude(q[iq] * radius);
    t.background[iq] = -2 * t.a_bg[iq] * (t.b_solution[iq] - t.scale * t.b_solvent[iq]);
  }
  const double volume = 4 * kPi / 3 * radius * radius * radius;
  double atoms = 0;
  for (size_t s = 0; s < b.species.size(); ++s) atoms += b.mean_species_count(static_cast<int>(s));
  t.header.push_back(
      "method: CAPRIQORN's excess with a uniform solvent background (sphere branch): dI = "
      "<|A_solution - A_bg|^2> - <|A_solvent' - A_bg|^2> = I_solution - I_solvent' - 2 A_bg(q) "
      "(B_solution(q) - s B_solvent(q)), A_bg(q) = s sum_B f_B(q) <N_B>_solvent Phi(qR) the "
      "amplitude of the solvent run's mean density filling the sphere uniformly, Phi(x) = 3 (sin "
      "x - x cos x) / x^3, B(q) = sum_A f_A(q) <sum_j sinc(q d_j)> the sphere's mean amplitude "
      "from its atoms' distances d_j to the centre, I_solvent' the solvent scaled by s");
  t.header.push_back("sphere: R = " + scattering_number(radius) +
                     " nm, V = " + scattering_number(volume) + " nm^3; solvent run: " +
                     scattering_number(atoms / volume, 8) + " atoms/nm^3 in the sphere, " +
                     "centre " + b.sphere_centre + "; solution: centre " + a.sphere_centre);
  return t;
}

double scaled_solvent_partial(const ExcessTerms& t, const ScatteringInputs& solvent, int a, int b,
                              double partial, size_t iq) {
  if (a != b) return t.scale * t.scale * partial;
  const double w = solvent.weight_grid[static_cast<size_t>(a)][iq];
  const double self = solvent.run.result.mean_species_count(a) * w * w;
  return t.scale * self + t.scale * t.scale * (partial - self);
}

ExcessCurves excess_curves(const ScatteringInputs& solution, const ScatteringInputs& solvent,
                           const analysis::DebyeIntensity& solution_intensity,
                           const analysis::DebyeIntensity& solvent_intensity,
                           const ExcessTerms& terms) {
  const HistogramResult& a = solution.run.result;
  const HistogramResult& b = solvent.run.result;
  const size_t nq = solution.q.size();
  ExcessCurves c;
  c.partial = solution_intensity.partial;
  c.total.assign(nq, 0.0);
  c.raw.assign(nq, 0.0);
  std::vector<double> matched(nq, 0.0);  // what is taken away: the scaled solvent's partials
  const auto names = [](const HistogramResult& res, const PairHistogram& p) {
    return std::make_pair(res.species[static_cast<size_t>(p.a)].name,
                          res.species[static_cast<size_t>(p.b)].name);
  };
  for (size_t p = 0; p < a.pairs.size(); ++p) {
    const auto [x, y] = names(a, a.pairs[p]);
    for (size_t r = 0; r < b.pairs.size(); ++r) {
      const auto [u, v] = names(b, b.pairs[r]);
      if (!((u == x && v == y) || (u == y && v == x))) continue;
      for (size_t i = 0; i < nq; ++i) {
        const double scaled = scaled_solvent_partial(terms, solvent, b.pairs[r].a, b.pairs[r].b,
                                                     solvent_intensity.partial[r][i], i);
        c.partial[p][i] -= scaled;
        matched[i] += scaled;
      }
    }
  }
  for (size_t i = 0; i < nq; ++i) {
    c.raw[i] = solution_intensity.total[i] - solvent_intensity.total[i];
    c.total[i] = solution_intensity.total[i] - matched[i] + terms.background[i];
  }
  return c;
}

ExcessDistribution excess_distribution(const ScatteringInputs& solution,
                                       const ScatteringInputs& solvent, const ExcessTerms& t) {
  ExcessDistribution d;
  const HistogramResult& a = solution.run.result;
  const HistogramResult& b = solvent.run.result;
  const std::vector<double> edges = analysis::bin_edges_nm(a);
  if (edges != analysis::bin_edges_nm(b)) {
    d.why = "the two runs' bins differ";
    return d;
  }
  const size_t nbins = edges.size() - 1;
  for (size_t k = 0; k < nbins; ++k) d.r.push_back((edges[k] + edges[k + 1]) / 2);
  d.pairs.assign(nbins, 0.0);
  d.background.assign(nbins, 0.0);
  // Weights at q = 0, and every pair histogram of a run per frame, times `factor`.
  std::vector<double> w_a, w_b;
  for (const auto& w : solution.weights) w_a.push_back(w.at(0));
  for (const auto& w : solvent.weights) w_b.push_back(w.at(0));
  const auto add_pairs = [&](const HistogramResult& res, const std::vector<double>& w,
                             double pair_factor, double self_factor) {
    const double per_frame = pair_factor / static_cast<double>(res.frame_indices.size());
    for (const PairHistogram& p : res.pairs)
      for (size_t k = 0; k < nbins; ++k)
        d.pairs[k] += per_frame * w[static_cast<size_t>(p.a)] * w[static_cast<size_t>(p.b)] *
                      static_cast<double>(p.counts[k]);
    for (size_t s = 0; s < res.species.size(); ++s)
      d.self += self_factor * res.mean_species_count(static_cast<int>(s)) * w[s] * w[s];
  };
  add_pairs(a, w_a, 1.0, 1.0);
  add_pairs(b, w_b, -t.scale * t.scale, -t.scale);
  if (t.sphere) {
    // The cross term with the uniform background: every atom at distance x from the centre
    // sees the solvent's weighted density at the distances of uniform_sphere_distances().
    const double radius = analysis::sphere_radius_nm(a);
    double density = 0;
    for (size_t s = 0; s < b.species.size(); ++s)
      density += t.scale * w_b[s] * b.mean_species_count(static_cast<int>(s));
    density /= 4 * kPi / 3 * radius * radius * radius;
    const auto add_background = [&](const HistogramResult& res, const std::vector<double>& w,
                                    double factor) {
      const double width = res.centre_bin_width * (res.length_unit == "angstrom" ? 0.1 : 1.0);
      const double per_frame = factor / static_cast<double>(res.frame_indices.size());
      for (size_t j = 0; j < res.centre_counts[0].size(); ++j) {
        double weighted = 0;
        for (size_t s = 0; s < res.species.size(); ++s)
          weighted += w[s] * static_cast<double>(res.centre_counts[s][j]);
        if (weighted == 0) continue;
        const double x = std::min(radius, (static_cast<double>(j) + 0.5) * width);
        const std::vector<double> u = analysis::uniform_sphere_distances(x, radius, edges);
        for (size_t k = 0; k < nbins; ++k) d.background[k] -= density * per_frame * weighted * u[k];
      }
    };
    add_background(a, w_a, 1.0);
    add_background(b, w_b, -t.scale);
  }
  double sum = 0, moment = 0;
  for (size_t k = 0; k < nbins; ++k) {
    d.total.push_back(d.pairs[k] + d.background[k]);
    sum += d.total[k];
    moment += d.total[k] * d.r[k] * d.r[k];
  }
  d.i0 = d.self + 2 * sum;
  if (d.i0 > 0 && moment > 0) d.rg = std::sqrt(moment / d.i0);
  d.ok = true;
  return d;
}

std::vector<std::string> excess_summary(const analysis::GuinierFit& fit,
                                        const ExcessDistribution& pr,
                                        const ScatteringOptions& options, bool xray) {
  std::vector<std::string> lines;
  // Fitted in 1/nm and per frame; said in the units the curves are written in.
  const double per_nm = per_nm_per_q_unit(options.q_unit);
  const IntensityScale scale = intensity_scale(options, xray);
  if (fit.ok)
    lines.push_back(
        "Guinier fit of dI: Rg = " + scattering_number(fit.rg) +
        " nm, I(0) = " + scattering_number(fit.i0 * scale.factor) + " " + scale.unit + ", q = " +
        scattering_number(fit.q_lo / per_nm) + " to " + scattering_number(fit.q_hi / per_nm) + " " +
        q_unit_label(options.q_unit) + " (" + std::to_string(fit.points) +
        " points, q Rg <= 1.3), rms of ln dI - fit = " + scattering_number(fit.rms_log, 3));
  else
    lines.push_back("Guinier fit of dI: none: " + fit.why);
  if (pr.ok)
    lines.push_back(
        "P(r) from the pair and centre histograms (weights at q = 0; excess_pr.csv): I(0) = "
        "self + 2 sum P = " +
        scattering_number(pr.i0) + " " + (xray ? "electrons^2" : "fm^2") +
        " per frame, Rg = sqrt(sum P r^2 / I(0)) = " +
        (pr.rg > 0 ? scattering_number(pr.rg) + " nm"
                   : std::string(pr.i0 > 0 ? "none (sum P r^2 <= 0: noise at large r dominates)"
                                           : "none (I(0) <= 0)")));
  else
    lines.push_back("P(r): not computed: " + pr.why);
  return lines;
}

std::string excess_distribution_csv(const ExcessDistribution& pr,
                                    const std::vector<std::string>& header) {
  std::string text;
  for (const std::string& line : header) text += "# " + line + "\n";
  text += "r_nm,P,P_pairs,P_background\n";
  char row[160];
  for (size_t k = 0; k < pr.r.size(); ++k) {
    std::snprintf(row, sizeof row, "%.10g,%.10g,%.10g,%.10g\n", pr.r[k], pr.total[k], pr.pairs[k],
                  pr.background[k]);
    text += row;
  }
  return text;
}

}  // namespace pairhist
