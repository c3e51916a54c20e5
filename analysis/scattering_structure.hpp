// Structure factors of bulk (periodic) systems from the run's g(r): Faber-Ziman partials S_AB(q)
// by Fourier transform over the bins, and the weighted totals S(q), F(q). No file format, no
// StarPU. What is exact and what the finite r_max does: docs/scattering.md.
#pragma once

#include <string>
#include <vector>

#include "analysis/scattering_debye.hpp"
#include "pairhist/result.hpp"

namespace pairhist::analysis {

/// The window W(r) that multiplies g(r) - 1 in the transform over [0, r_max]:
///  - none:  W = 1 (the sharp cut at r_max gives ripples of period 2 pi / r_max);
///  - lorch: W = sin(pi r / r_max) / (pi r / r_max) (Lorch 1969), which goes to 0 at r_max and
///           damps the ripples at the price of broadening peaks in q by about 2 pi / r_max.
enum class Window { none, lorch };

/// Parses "none" and "lorch"; throws UsageError otherwise.
Window parse_window(const std::string& name);
std::string window_name(Window window);

/// integral_0^r 4 pi t^2 sinc(q t) W(t) dt for the window of the cut `r_max` (same length unit
/// as r; q in its inverse), in closed form: the bins' factors are its differences, so a g(r)
/// that is constant within each bin is transformed exactly.
double windowed_shell_integral(double q, double r, double r_max, Window window);

/// Per bin k of `edges`, the factor that multiplies g_k - 1 in S(q) - 1:
///  - exact:  integral over the bin of 4 pi r^2 sinc(q r) W(r) dr (g constant in the bin);
///  - centre: the bin's shell volume times sinc(q c_k) W(c_k) (its pairs at the centre c_k,
///            as the centre rule of the Debye sum puts them).
std::vector<double> structure_kernel(double q, const std::vector<double>& edges, double r_max,
                                     Window window, WithinBin rule);

/// structure_kernel() at every q of a grid, computed ahead as DebyeKernels are (`run
/// --scattering --structure-factor`, while the run counts).
struct StructureKernels {
  std::vector<double> q;      // 1/nm
  std::vector<double> edges;  // nm; r_max is edges.back()
  Window window = Window::lorch;
  WithinBin rule = WithinBin::exact;
  std::vector<std::vector<double>> rows;  // [iq]: structure_kernel(q[iq], edges, r_max, ...)

  /// Whether these are the kernels of this grid, these bins, window and rule (bit for bit).
  bool fit(const std::vector<double>& q, const std::vector<double>& edges, Window window,
           WithinBin rule) const;
};

/// The kernels of every q over up to `threads` threads (0: every core), each q on its own.
StructureKernels structure_kernels(const std::vector<double>& q, const std::vector<double>& edges,
                                   Window window, WithinBin rule, unsigned threads = 0);

struct StructureOptions {
  Window window = Window::lorch;
  WithinBin within_bin = WithinBin::exact;
  // Computed ahead (structure_kernels()): used where they fit the grid, bins, window and rule.
  const StructureKernels* kernels = nullptr;
};

/// Faber-Ziman structure factors on a q grid (1/nm). With c_A = N_A / N, rho = N <1/V> (all atoms
/// of the run's species; <1/V> the mean inverse frame volume, as g(r) is normalised) and g_AB the
/// run's g(r) (analysis/rdf.hpp):
///   S_AB(q) = 1 + rho sum_k (g_AB,k - 1) K_k(q)        (K: structure_kernel)
///   F(q)    = sum_A sum_B c_A c_B f_A f_B (S_AB - 1)   (A, B ordered: cross pairs twice)
///   S(q)    = 1 + F(q) / <f>^2,  <f> = sum_A c_A f_A   (NaN where <f> = 0)
/// so that the coherent intensity per atom of the bulk is <f^2> + F(q) (no forward peak).
struct StructureFactors {
  std::vector<double> q;                     // 1/nm
  double density = 0;                        // rho, atoms per nm^3
  std::vector<double> concentration;         // c_A, per species
  std::vector<std::vector<double>> partial;  // S_AB, per pair in res.pairs' order
  std::vector<double> total;                 // S(q)
  std::vector<double> f_total;               // F(q), weight units squared per atom
  std::vector<double> mean_square_weight;    // <f^2>(q)
  std::vector<double> square_mean_weight;    // <f>^2(q)
};

/// The structure factors of `res` with weights[s][iq] = f of species s at q[iq]. Needs a periodic
/// run with its frame volumes, and the pairs the Debye sum needs (every pair A <= B once, no
/// shared atoms, no excluded pairs): throws UsageError naming the problem, and for a q that is
/// negative or not finite. A species pair without pairs (a species of one atom with itself) has
/// g = 0: its S_AB - 1 is the uniform density's term alone.
StructureFactors structure_factors(const HistogramResult& res, const std::vector<double>& q,
                                   const std::vector<std::vector<double>>& weights,
                                   const StructureOptions& options = {});

}  // namespace pairhist::analysis
