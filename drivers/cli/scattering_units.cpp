#include "drivers/cli/scattering_units.hpp"

#include <cmath>
#include <stdexcept>

#include "drivers/cli/scattering_command.hpp"
#include "pairhist/errors.hpp"

namespace pairhist {

namespace {

bool given(double v) {
  return !std::isnan(v);
}

/// What one intensity is after the conversion: its factor, unit and a header line saying how.
struct IntensityUnit {
  double factor = 1;
  std::string unit;  // "1/cm", "electrons^2 per molecule"
  std::string line;  // for the header
};

IntensityUnit intensity_unit(const ScatteringOptions& o, bool xray) {
  IntensityUnit u;
  const std::string squared = xray ? "electrons^2" : "fm^2";
  const bool absolute = given(o.concentration) || given(o.number_density);
  if (!absolute) {
    u.factor = 1 / o.molecules;
    u.unit = squared + " per molecule";
    u.line = "I per solute molecule in " + squared + " = I per frame / " +
             scattering_number(o.molecules, 10) + " molecules per frame";
    return u;
  }
  // Molecules per cm^3: mol/L x N_A / (1000 cm^3 per L), or per nm^3 x 10^21 nm^3 per cm^3.
  const double n =
      given(o.concentration) ? o.concentration * kAvogadro / 1000 : o.number_density * 1e21;
  // electrons^2 -> cm^2: r_e^2 (Thomson); fm^2 -> cm^2: 10^-26.
  const double area = xray ? kElectronRadiusCm * kElectronRadiusCm : 1e-26;
  const double per_molecule = given(o.molecules) ? 1 / o.molecules : 1;
  u.factor = per_molecule * area * n;
  u.unit = "1/cm";
  u.line = "I in 1/cm (absolute, d Sigma / d Omega per volume) = I per frame / " +
           scattering_number(given(o.molecules) ? o.molecules : 1, 10) + " molecules x " +
           (xray ? "r_e^2 (r_e = 2.8179403262e-13 cm)" : "10^-26 cm^2/fm^2") +
           " x n, n = " + scattering_number(n, 10) + " molecules/cm^3 (" +
           (given(o.concentration) ? scattering_number(o.concentration, 10) + " mol/L"
                                   : scattering_number(o.number_density, 10) + " per nm^3") +
           ")";
  return u;
}

void scale(std::vector<double>& v, double factor) {
  for (double& x : v) x *= factor;
}

}  // namespace

IntensityScale intensity_scale(const ScatteringOptions& o, bool xray) {
  if (!scaled_intensities(o)) return {1, std::string(xray ? "electrons^2" : "fm^2") + " per frame"};
  const IntensityUnit u = intensity_unit(o, xray);
  return {u.factor, u.unit};
}

void add_scattering_unit_options(CLI::App* cmd, ScatteringOptions& o) {
  cmd->add_option("--q-unit", o.q_unit,
                  "Unit of q in and out (--q-max, --q-file, outputs): nm (1/nm) or angstrom / A")
      ->capture_default_str();
  cmd->add_option("--per", o.per, "Intensities per frame, or per molecule (I / --molecules)")
      ->capture_default_str();
  cmd->add_option("--molecules", o.molecules,
                  "Solute molecules in a frame (for --per molecule, --concentration, "
                  "--number-density)");
  cmd->add_option("--concentration", o.concentration,
                  "Solute concentration, mol/L: intensities in 1/cm (absolute)");
  cmd->add_option("--number-density", o.number_density,
                  "Solute molecules per nm^3: intensities in 1/cm (absolute)");
}

double per_nm_per_q_unit(const std::string& unit) {
  if (unit == "nm") return 1;
  if (unit == "angstrom" || unit == "A") return 10;
  throw UsageError("--q-unit must be nm or angstrom (A), got '" + excerpt(unit) + "'");
}

std::string q_unit_label(const std::string& unit) {
  return per_nm_per_q_unit(unit) == 1 ? "1/nm" : "1/A";
}

bool scaled_intensities(const ScatteringOptions& o) {
  return o.per == "molecule" || given(o.concentration) || given(o.number_density);
}

void refuse_scaled_structure_factor(const ScatteringOptions& o) {
  if (o.structure_factor && scaled_intensities(o))
    throw UsageError(
        "--per molecule, --concentration and --number-density scale intensities: S(q) and F(q) "
        "are per atom of the run (leave out --structure-factor, or these)");
}

std::vector<std::string> scattering_unit_problems(const ScatteringOptions& o) {
  std::vector<std::string> p;
  try {
    per_nm_per_q_unit(o.q_unit);
  } catch (const UsageError& e) {
    p.push_back(e.what());
  }
  if (o.per != "frame" && o.per != "molecule")
    p.push_back("--per must be frame or molecule, got '" + excerpt(o.per) + "'");
  const auto positive = [&p](double v, const char* flag, const char* what) {
    if (given(v) && !(v > 0 && std::isfinite(v)))
      p.push_back(std::string(flag) + " must be a positive number of " + what + ", got " +
                  scattering_number(v));
  };
  positive(o.molecules, "--molecules", "solute molecules per frame");
  positive(o.concentration, "--concentration", "mol/L");
  positive(o.number_density, "--number-density", "molecules per nm^3");
  if (given(o.concentration) && given(o.number_density))
    p.push_back("--concentration and --number-density say the same: give one");
  if (o.per == "molecule" && !given(o.molecules))
    p.push_back("--per molecule needs --molecules N (the solute molecules in a frame)");
  if (given(o.molecules) && o.per != "molecule" && !given(o.concentration) &&
      !given(o.number_density))
    p.push_back("--molecules goes with --per molecule, --concentration or --number-density");
  return p;
}

void express_scattering_units(const ScatteringOptions& o, ScatteringResult& r) {
  const double per_nm = per_nm_per_q_unit(o.q_unit);
  // S(q) is per atom and has no intensity to scale (`run --scattering --structure-factor`
  // writes it beside an intensity that has).
  const bool scaled = scaled_intensities(o) && r.data.quantity != "structure_factor";
  if (per_nm == 1 && !scaled) return;
  const std::string q_label = q_unit_label(o.q_unit);
  io::QTable& t = r.table;
  io::ScatteringData& d = r.data;
  std::vector<std::string> units = {"q in " + q_label};
  if (per_nm != 1) {
    for (double& q : t.q) q /= per_nm;
    d.q = t.q;
    t.q_unit = "A";
    d.q_unit = q_label;
  }
  if (scaled) {
    const IntensityUnit u = intensity_unit(o, d.radiation == "xray");
    for (auto& column : t.columns)
      if (column.first.rfind("f_", 0) != 0) scale(column.second, u.factor);
    for (io::ScatteringCurve& c : d.curves) {
      scale(c.values, u.factor);
      c.unit = u.unit;
    }
    for (io::ScatteringPartial& p : d.partials) scale(p.values, u.factor);
    for (io::ScatteringPartial& p : d.partial_errors) scale(p.values, u.factor);
    scale(r.intensity.total, u.factor);
    for (std::vector<double>& p : r.intensity.partial) scale(p, u.factor);
    scale(r.errors.total, u.factor);
    for (std::vector<double>& p : r.errors.partial) scale(p, u.factor);
    units.push_back(u.line);
    t.y_label += u.unit == "1/cm" ? " (cm\\S-1\\N)" : " per molecule";
    d.options.emplace_back("intensity_unit", u.unit);
    if (given(o.molecules)) d.options.emplace_back("molecules", scattering_number(o.molecules, 17));
    if (given(o.concentration))
      d.options.emplace_back("concentration_mol_per_L", scattering_number(o.concentration, 17));
    if (given(o.number_density))
      d.options.emplace_back("number_density_per_nm3", scattering_number(o.number_density, 17));
  }
  // The line that said what q and I are in says it in the units asked for.
  std::string units_line = "units: ";
  for (size_t i = 0; i < units.size(); ++i) units_line += (i ? "; " : "") + units[i];
  for (std::vector<std::string>* lines : {&t.comments, &d.header}) {
    size_t at = lines->size() > 1 ? 2 : lines->size();
    for (size_t i = 0; i < lines->size(); ++i) {
      std::string& line = (*lines)[i];
      if (line.rfind("q in 1/nm ", 0) != 0) continue;
      line = "q in " + q_label + line.substr(9);
      if (scaled) {
        for (const char* per_frame : {"I(q) per frame in electrons^2", "I(q) per frame in fm^2"})
          if (const size_t k = line.find(per_frame); k != std::string::npos)
            line.replace(k, std::string(per_frame).size(), "I(q) in the unit below");
      }
      at = i + 1;
      break;
    }
    lines->insert(lines->begin() + static_cast<long>(at), units_line);
  }
}

}  // namespace pairhist
