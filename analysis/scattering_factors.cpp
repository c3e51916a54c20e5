#include "analysis/scattering_factors.hpp"

#include <cctype>
#include <cmath>
#include <set>
#include <sstream>

#include "analysis/xray_form_factor_tables.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::analysis {

namespace {

constexpr double kPi = 3.14159265358979323846;

struct NeutronRow {
  const char* label;
  double b;  // bound coherent scattering length, fm
};

// Neutron bound coherent scattering lengths (fm): V. F. Sears, Neutron News 3(3), 29-37 (1992),
// as NIST lists them (https://www.ncnr.nist.gov/resources/n-lengths/); natural isotope mixtures
// unless an isotope is named. GROMACS's share/top/nsfactor.dat quotes the same source. B is
// absorbing (b = 5.30 - 0.213i fm): its real part is used.
const NeutronRow kNeutron[] = {
    {"H", -3.7390}, {"1H", -3.7406}, {"D", 6.671},  {"T", 4.792},  {"He", 3.26},   {"Li", -1.90},
    {"Be", 7.79},   {"B", 5.30},     {"C", 6.6460}, {"N", 9.36},   {"O", 5.803},   {"F", 5.654},
    {"Ne", 4.566},  {"Na", 3.63},    {"Mg", 5.375}, {"Al", 3.449}, {"Si", 4.1491}, {"P", 5.13},
    {"S", 2.847},   {"Cl", 9.5770},  {"Ar", 1.909}, {"K", 3.67},   {"Ca", 4.70},   {"Mn", -3.73},
    {"Fe", 9.45},   {"Zn", 5.680},   {"Br", 6.795}, {"Rb", 7.09},
};

const char* const kXraySource = "International Tables C (1992) Table 6.1.1.4";
const char* const kWkSource = "Waasmaier & Kirfel 1995 (Acta Cryst. A51, 416)";
const char* const kWkBondedHSource =
    "International Tables C (1992) Table 6.1.1.4 (bonded H; Waasmaier & Kirfel have the free "
    "atom only)";
const char* const kFreeHSource = "free H atom, exact 1s form factor (a0 = 0.529177 A)";
const char* const kNeutronSource = "Sears 1992 (NIST)";

/// The built-in X-ray weights of one choice, made once: the set's rows, and hydrogen (with its
/// isotopes, which X-rays do not tell apart) as the choice says.
std::map<std::string, ScattererWeight> make_xray(const XrayFactorChoice& choice) {
  std::map<std::string, ScattererWeight> t;
  const bool wk = choice.set == FormFactorSet::wk;
  for (const XrayFormFactorRow& row : wk ? wk1995_rows() : itc1992_rows())
    t[row.label] = {row.a, row.b, row.c, wk ? kWkSource : kXraySource};
  if (choice.hydrogen == HydrogenModel::isolated) {
    ScattererWeight h;
    h.hydrogen_1s = true;
    h.source = kFreeHSource;
    t["H"] = h;
  } else if (wk) {
    for (const XrayFormFactorRow& row : itc1992_rows())
      if (std::string(row.label) == "H") t["H"] = {row.a, row.b, row.c, kWkBondedHSource};
  }
  return t;
}

/// The built-in weights, made once.
const std::map<std::string, ScattererWeight>& table(Radiation r, const XrayFactorChoice& x) {
  static const std::map<std::string, ScattererWeight> neutron = [] {
    std::map<std::string, ScattererWeight> t;
    for (const NeutronRow& row : kNeutron) {
      t[row.label].c = row.b;
      t[row.label].source = kNeutronSource;
    }
    return t;
  }();
  static const std::map<std::string, ScattererWeight> xray[2][2] = {
      {make_xray({FormFactorSet::itc, HydrogenModel::bonded}),
       make_xray({FormFactorSet::itc, HydrogenModel::isolated})},
      {make_xray({FormFactorSet::wk, HydrogenModel::bonded}),
       make_xray({FormFactorSet::wk, HydrogenModel::isolated})}};
  if (r == Radiation::neutron) return neutron;
  return xray[x.set == FormFactorSet::wk][x.hydrogen == HydrogenModel::isolated];
}

}  // namespace

Radiation parse_radiation(const std::string& name) {
  if (name == "xray" || name == "x-ray") return Radiation::xray;
  if (name == "neutron") return Radiation::neutron;
  throw UsageError("--radiation must be xray or neutron, got '" + name + "'");
}

FormFactorSet parse_form_factor_set(const std::string& name) {
  if (name == "itc") return FormFactorSet::itc;
  if (name == "wk") return FormFactorSet::wk;
  throw UsageError(
      "--form-factors must be itc (International Tables C 1992) or wk (Waasmaier & "
      "Kirfel 1995), got '" +
      name + "'");
}

HydrogenModel parse_hydrogen_model(const std::string& name) {
  if (name == "bonded") return HydrogenModel::bonded;
  if (name == "isolated") return HydrogenModel::isolated;
  throw UsageError("--hydrogen must be bonded or isolated, got '" + name + "'");
}

bool water_residue(const std::string& residue_name) {
  static const std::set<std::string> names = {"SOL",  "WAT",  "HOH",  "H2O", "TIP3",
                                              "TIP4", "TIP5", "TP3",  "T3P", "T4P",
                                              "T5P",  "SPC",  "SPCE", "OPC", "SWM4"};
  std::string upper;
  for (char ch : residue_name)
    upper += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return names.count(upper) > 0;
}

std::string radiation_name(Radiation r) {
  return r == Radiation::xray ? "xray" : "neutron";
}

double ScattererWeight::at(double q_nm) const {
  double w = c;
  if (hydrogen_1s) {
    const double x = q_nm / 10 * kBohrRadiusA / 2;  // q a0 / 2, q in 1/A
    w = 1 / ((1 + x * x) * (1 + x * x));
  } else {
    const double s = q_nm / (4 * kPi) / 10;  // sin(theta)/lambda in 1/A
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i] != 0) w += a[i] * std::exp(-b[i] * s * s);
  }
  if (maff_alpha != 0) {
    const double q = q_nm / 10;  // 1/A
    w *= 1 + maff_alpha * std::exp(-q * q / (2 * kMaffDeltaPerA * kMaffDeltaPerA));
  }
  return w;
}

std::string canonical_scatterer_label(const std::string& label) {
  size_t begin = label.find_first_not_of(" \t");
  size_t end = label.find_last_not_of(" \t");
  if (begin == std::string::npos) return "";
  std::string s = label.substr(begin, end - begin + 1);
  std::string upper;
  for (char ch : s) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (upper == "D" || upper == "2H") return "D";
  if (upper == "T" || upper == "3H") return "T";
  if (upper == "1H") return "1H";
  size_t i = 0;
  std::string symbol;
  while (i < s.size() && i < 2 && std::isalpha(static_cast<unsigned char>(s[i]))) symbol += s[i++];
  if (symbol.empty()) return "";
  symbol[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(symbol[0])));
  if (symbol.size() == 2)
    symbol[1] = static_cast<char>(std::tolower(static_cast<unsigned char>(symbol[1])));
  std::string digits;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) digits += s[i++];
  const std::string signs = s.substr(i);
  if (signs.empty()) return digits.empty() ? symbol : "";
  const char sign = signs[0];
  if ((sign != '+' && sign != '-') || signs.find_first_not_of(sign) != std::string::npos) return "";
  if (!digits.empty() && signs.size() != 1) return "";
  const int charge = digits.empty() ? static_cast<int>(signs.size()) : std::stoi(digits);
  if (charge < 1 || charge > 9) return "";
  return symbol + std::to_string(charge) + sign;
}

std::string label_element(const std::string& canonical) {
  if (canonical == "D" || canonical == "T" || canonical == "1H") return "H";
  size_t n = 0;
  while (n < canonical.size() && std::isalpha(static_cast<unsigned char>(canonical[n]))) ++n;
  return canonical.substr(0, n);
}

const ScattererWeight* builtin_scatterer(const std::string& canonical, Radiation r,
                                         const XrayFactorChoice& xray) {
  const auto& t = table(r, xray);
  auto it = t.find(canonical);
  // X-rays see electrons (isotopes alike); neutrons see nuclei (ions as their element).
  if (it == t.end() && (r == Radiation::neutron || label_element(canonical) == "H"))
    it = t.find(label_element(canonical));
  return it == t.end() ? nullptr : &it->second;
}

std::vector<std::string> builtin_labels(Radiation r) {
  std::vector<std::string> labels;
  if (r == Radiation::xray) {
    for (const XrayFormFactorRow& row : itc1992_rows()) labels.emplace_back(row.label);
  } else {
    for (const NeutronRow& row : kNeutron) labels.emplace_back(row.label);
  }
  return labels;
}

std::vector<ScattererWeight> species_weights(const std::vector<SpeciesScatterer>& species,
                                             Radiation r, const ScattererTable& user,
                                             const XrayFactorChoice& xray) {
  auto lookup = [&](const std::string& key, const std::string& label) -> const ScattererWeight* {
    if (auto it = user.find(key); it != user.end()) return &it->second;
    if (auto it = user.find(label); it != user.end()) return &it->second;
    return builtin_scatterer(label, r, xray);
  };
  std::vector<ScattererWeight> out;
  for (const SpeciesScatterer& s : species) {
    const ScattererWeight* w = lookup(s.species, s.label);
    if (w == nullptr)
      throw UsageError("species " + s.species + ": no " + radiation_name(r) +
                       " scattering weight for '" + s.label + "' (give --element " + s.species +
                       "=SYMBOL or a --table FILE entry)");
    ScattererWeight weight = *w;
    if (!(s.deuterium >= 0 && s.deuterium <= 1))
      throw UsageError("species " + s.species + ": deuterium fraction " +
                       std::to_string(s.deuterium) + " is not in [0, 1]");
    if (s.deuterium > 0) {
      if (s.label != "H")
        throw UsageError("species " + s.species + " is " + s.label +
                         ", not H: only hydrogen can be deuterated");
      if (r == Radiation::neutron) {
        const ScattererWeight* d = lookup("D", "D");
        weight.c = (1 - s.deuterium) * weight.c + s.deuterium * d->c;
        std::ostringstream fraction;
        fraction << s.deuterium;
        weight.source += ", D fraction " + fraction.str();
      }
    }
    if (s.maff) {
      if (r == Radiation::neutron)
        throw UsageError("species " + s.species +
                         ": MAFF modifies X-ray form factors, a neutron sees the nuclei");
      const std::string element = label_element(s.label);
      if (element != "O" && element != "H")
        throw UsageError("species " + s.species + " is " + s.label +
                         ": MAFF modifies water's O and H only");
      weight.maff_alpha = element == "O" ? kMaffAlphaO : kMaffAlphaH;
      weight.source += element == "O" ? ", MAFF alpha 0.12 (Sorenson et al. 2000)"
                                      : ", MAFF alpha -0.48 (Sorenson et al. 2000)";
    }
    if (r == Radiation::neutron && !weight.constant())
      throw UsageError("species " + s.species +
                       ": a neutron scattering length is one number, the table gives a q-dependent "
                       "form factor");
    out.push_back(weight);
  }
  return out;
}

std::vector<std::vector<double>> weights_on_grid(const std::vector<ScattererWeight>& weights,
                                                 const std::vector<double>& q) {
  std::vector<std::vector<double>> out(weights.size(), std::vector<double>(q.size()));
  for (size_t s = 0; s < weights.size(); ++s)
    for (size_t i = 0; i < q.size(); ++i) out[s][i] = weights[s].at(q[i]);
  return out;
}

}  // namespace pairhist::analysis
