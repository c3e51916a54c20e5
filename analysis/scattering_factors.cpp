#include "analysis/scattering_factors.hpp"

#include <cctype>
#include <cmath>
#include <sstream>

#include "pairhist/errors.hpp"

namespace pairhist::analysis {

namespace {

constexpr double kPi = 3.14159265358979323846;

struct XrayRow {
  const char* label;
  std::array<double, 4> a, b;
  double c;
};

// X-ray atomic form factors, f(s) = c + sum_i a_i exp(-b_i s^2), s = sin(theta)/lambda in 1/A:
// International Tables for Crystallography, Vol. C (ed. A. J. C. Wilson, Kluwer 1992), Table
// 6.1.1.4, the coefficients of Cromer & Mann / Doyle & Turner, a reprint of International Tables
// for X-ray Crystallography Vol. IV (1974), Table 2.2B; fits to Hartree-Fock scattering factors,
// valid for s <= 2 / A (q <= 251 / nm). Cross-checked against GROMACS's share/top/sfactor.dat
// (the same coefficients to 3 decimals) by test_scattering where that file is installed.
// clang-format off
const XrayRow kXray[] = {
    {"H", {0.493002, 0.322912, 0.140191, 0.040810}, {10.5109, 26.1257, 3.14236, 57.7997}, 0.003038},
    {"He", {0.873400, 0.630900, 0.311200, 0.178000}, {9.10370, 3.35680, 22.9276, 0.982100}, 0.006400},
    {"Li", {1.12820, 0.750800, 0.617500, 0.465300}, {3.95460, 1.05240, 85.3905, 168.261}, 0.037700},
    {"Li1+", {0.696800, 0.788800, 0.341400, 0.156300}, {4.62370, 1.95570, 0.631600, 10.0953}, 0.016700},
    {"Be", {1.59190, 1.12780, 0.539100, 0.702900}, {43.6427, 1.86230, 103.483, 0.542000}, 0.038500},
    {"Be2+", {6.26030, 0.884900, 0.799300, 0.164700}, {0.002700, 0.831300, 2.27580, 5.11460}, -6.1092},
    {"B", {2.05450, 1.33260, 1.09790, 0.706800}, {23.2185, 1.02100, 60.3498, 0.140300}, -0.19320},
    {"C", {2.31000, 1.02000, 1.58860, 0.865000}, {20.8439, 10.2075, 0.568700, 51.6512}, 0.215600},
    {"N", {12.2126, 3.13220, 2.01250, 1.16630}, {0.005700, 9.89330, 28.9975, 0.582600}, -11.529},
    {"O", {3.04850, 2.28680, 1.54630, 0.867000}, {13.2771, 5.70110, 0.323900, 32.9089}, 0.250800},
    {"F", {3.53920, 2.64120, 1.51700, 1.02430}, {10.2825, 4.29440, 0.261500, 26.1476}, 0.277600},
    {"F1-", {3.63220, 3.51057, 1.26064, 0.940706}, {5.27756, 14.7353, 0.442258, 47.3437}, 0.653396},
    {"Ne", {3.95530, 3.11250, 1.45460, 1.12510}, {8.40420, 3.42620, 0.230600, 21.7184}, 0.351500},
    {"Na", {4.76260, 3.17360, 1.26740, 1.11280}, {3.28500, 8.84220, 0.313600, 129.424}, 0.676000},
    {"Na1+", {3.25650, 3.93620, 1.39980, 1.00320}, {2.66710, 6.11530, 0.200100, 14.0390}, 0.404000},
    {"Mg", {5.42040, 2.17350, 1.22690, 2.30730}, {2.82750, 79.2611, 0.380800, 7.19370}, 0.858400},
    {"Mg2+", {3.49880, 3.83780, 1.32840, 0.849700}, {2.16760, 4.75420, 0.185000, 10.1411}, 0.485300},
    {"Al", {6.42020, 1.90020, 1.59360, 1.96460}, {3.03870, 0.742600, 31.5472, 85.0886}, 1.11510},
    {"Al3+", {4.17448, 3.38760, 1.20296, 0.528137}, {1.93816, 4.14553, 0.228753, 8.28524}, 0.706786},
    {"Si", {6.29150, 3.03530, 1.98910, 1.54100}, {2.43860, 32.3337, 0.678500, 81.6937}, 1.14070},
    {"Si4+", {4.43918, 3.20345, 1.19453, 0.416530}, {1.64167, 3.43757, 0.214900, 6.65365}, 0.746297},
    {"P", {6.43450, 4.17910, 1.78000, 1.49080}, {1.90670, 27.1570, 0.526000, 68.1645}, 1.11490},
    {"S", {6.90530, 5.20340, 1.43790, 1.58630}, {1.46790, 22.2151, 0.253600, 56.1720}, 0.866900},
    {"Cl", {11.4604, 7.19640, 6.25560, 1.64550}, {0.010400, 1.16620, 18.5194, 47.7784}, -9.5574},
    {"Cl1-", {18.2915, 7.20840, 6.53370, 2.33860}, {0.006600, 1.17170, 19.5424, 60.4486}, -16.378},
    {"Ar", {7.48450, 6.77230, 0.653900, 1.64420}, {0.907200, 14.8407, 43.8983, 33.3929}, 1.44450},
    {"K", {8.21860, 7.43980, 1.05190, 0.865900}, {12.7949, 0.774800, 213.187, 41.6841}, 1.42280},
    {"K1+", {7.95780, 7.49170, 6.35900, 1.19150}, {12.6331, 0.767400, -0.00200, 31.9128}, -4.9978},
    {"Ca", {8.62660, 7.38730, 1.58990, 1.02110}, {10.4421, 0.659900, 85.7484, 178.437}, 1.37510},
    {"Ca2+", {15.6348, 7.95180, 8.43720, 0.853700}, {-0.00740, 0.608900, 10.3116, 25.9905}, -14.875},
    {"Fe", {11.7695, 7.35730, 3.52220, 2.30450}, {4.76110, 0.307200, 15.3535, 76.8805}, 1.03690},
    {"Fe2+", {11.0424, 7.37400, 4.13460, 0.439900}, {4.65380, 0.305300, 12.0546, 31.2809}, 1.00970},
    {"Fe3+", {11.1764, 7.38630, 3.39480, 0.072400}, {4.61470, 0.300500, 11.6729, 38.5566}, 0.970700},
    {"Zn", {14.0743, 7.03180, 5.16520, 2.41000}, {3.26550, 0.233300, 10.3163, 58.7097}, 1.30410},
    {"Zn2+", {11.9719, 7.38620, 6.46680, 1.39400}, {2.99460, 0.203100, 7.08260, 18.0995}, 0.780700},
    {"Br", {17.1789, 5.23580, 5.63770, 3.98510}, {2.17230, 16.5796, 0.260900, 41.4328}, 2.95570},
    {"Br1-", {17.1718, 6.33380, 5.57540, 3.72720}, {2.20590, 19.3345, 0.287100, 58.1535}, 3.17760},
    {"Rb", {17.1784, 9.64350, 5.13990, 1.52920}, {1.78880, 17.3151, 0.274800, 164.934}, 3.48730},
    {"Rb1+", {17.5816, 7.65980, 5.89810, 2.78170}, {1.71390, 14.7957, 0.160300, 31.2087}, 2.07820},
};
// clang-format on

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
const char* const kNeutronSource = "Sears 1992 (NIST)";

/// The built-in weights, made once.
const std::map<std::string, ScattererWeight>& table(Radiation r) {
  static const auto make = [](Radiation which) {
    std::map<std::string, ScattererWeight> t;
    if (which == Radiation::xray) {
      for (const XrayRow& row : kXray) t[row.label] = {row.a, row.b, row.c, kXraySource};
    } else {
      for (const NeutronRow& row : kNeutron) t[row.label] = {{}, {}, row.b, kNeutronSource};
    }
    return t;
  };
  static const std::map<std::string, ScattererWeight> xray = make(Radiation::xray);
  static const std::map<std::string, ScattererWeight> neutron = make(Radiation::neutron);
  return r == Radiation::xray ? xray : neutron;
}

}  // namespace

Radiation parse_radiation(const std::string& name) {
  if (name == "xray" || name == "x-ray") return Radiation::xray;
  if (name == "neutron") return Radiation::neutron;
  throw UsageError("--radiation must be xray or neutron, got '" + name + "'");
}

std::string radiation_name(Radiation r) {
  return r == Radiation::xray ? "xray" : "neutron";
}

double ScattererWeight::at(double q_nm) const {
  const double s = q_nm / (4 * kPi) / 10;  // sin(theta)/lambda in 1/A
  double w = c;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != 0) w += a[i] * std::exp(-b[i] * s * s);
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

const ScattererWeight* builtin_scatterer(const std::string& canonical, Radiation r) {
  const auto& t = table(r);
  auto it = t.find(canonical);
  // X-rays see electrons (isotopes alike); neutrons see nuclei (ions as their element).
  if (it == t.end() && (r == Radiation::neutron || label_element(canonical) == "H"))
    it = t.find(label_element(canonical));
  return it == t.end() ? nullptr : &it->second;
}

std::vector<std::string> builtin_labels(Radiation r) {
  std::vector<std::string> labels;
  if (r == Radiation::xray) {
    for (const XrayRow& row : kXray) labels.emplace_back(row.label);
  } else {
    for (const NeutronRow& row : kNeutron) labels.emplace_back(row.label);
  }
  return labels;
}

std::vector<ScattererWeight> species_weights(const std::vector<SpeciesScatterer>& species,
                                             Radiation r, const ScattererTable& user) {
  auto lookup = [&](const std::string& key, const std::string& label) -> const ScattererWeight* {
    if (auto it = user.find(key); it != user.end()) return &it->second;
    if (auto it = user.find(label); it != user.end()) return &it->second;
    return builtin_scatterer(label, r);
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
