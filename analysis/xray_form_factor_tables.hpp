// The built-in X-ray form factor tables (coefficients and where they come from), read by
// analysis/scattering_factors.cpp: International Tables C (1992) and Waasmaier & Kirfel (1995).
#pragma once

#include <array>
#include <vector>

namespace pairhist::analysis {

/// One atom's or ion's fit f(s) = c + sum_i a_i exp(-b_i s^2), s = sin(theta)/lambda in 1/A.
/// International Tables' rows have four Gaussians (a[4] = b[4] = 0), Waasmaier-Kirfel's five.
struct XrayFormFactorRow {
  const char* label;  // canonical: "O", "Na1+", "Cl1-"
  std::array<double, 5> a, b;
  double c;
};

/// International Tables for Crystallography Vol. C (1992), Table 6.1.1.4 (Cromer-Mann), H..Ca,
/// their common ions, Fe, Zn, Br, Rb and their ions. Its H is the bonded (SDS) hydrogen.
const std::vector<XrayFormFactorRow>& itc1992_rows();

/// Waasmaier & Kirfel, Acta Cryst. A51, 416-431 (1995), the same atoms and ions as itc1992_rows()
/// except H (their table's H is the free Hartree-Fock atom; see scattering_factors.cpp).
const std::vector<XrayFormFactorRow>& wk1995_rows();

}  // namespace pairhist::analysis
