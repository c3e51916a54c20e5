// A user's table of scattering weights (`pairhist scattering --table FILE`), overriding the
// built-in ones (analysis/scattering_factors.hpp).
#pragma once

#include <string>

#include "analysis/scattering_factors.hpp"

namespace pairhist::io {

/// Reads `path`: one entry per line, `KEY w` (a constant weight: a neutron scattering length in
/// fm, or an X-ray weight in electrons), `KEY a1 a2 a3 a4 b1 b2 b3 b4 c` (Cromer-Mann
/// coefficients, s in 1/A, the column order of International Tables and GROMACS's sfactor.dat)
/// or `KEY a1 .. a5 b1 .. b5 c` (Waasmaier-Kirfel's five Gaussians, in that order);
/// KEY is a species name or an element or ion label (stored as given and, for a label, also in
/// its canonical spelling); `#` and `;` start comments. Throws InputError naming the file and
/// line for anything else (a wrong number of fields, a field that is not a finite number, a KEY
/// given twice).
analysis::ScattererTable read_scatterer_table(const std::string& path);

}  // namespace pairhist::io
