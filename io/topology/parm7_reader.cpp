#include "io/topology/parm7_reader.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <numeric>
#include <unordered_map>

#include "analysis/atom_masses.hpp"
#include "io/common/text_lines.hpp"
#include "io/trajectory/unit_cell.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {
namespace {

constexpr double kAmberChargeUnit = 18.2223;  // sqrt(332.0522173): charges are stored as q * this
constexpr double kAngstromToNm = 0.1;
constexpr int kExclusionBonds = 3;  // 1-2, 1-3 and 1-4 neighbours, as GROMACS's nrexcl = 3

// POINTERS entries (prmtop.pdf): the ones the reader uses.
constexpr size_t kNatom = 0, kNres = 11, kIfbox = 27;

using text::fail_at_line;
using text::trim;

/// The sections of a read file by flag, and the numbers in them, with messages naming both.
class Parm7File {
 public:
  Parm7File(std::string path, std::vector<Parm7Section> sections) : path_(std::move(path)) {
    for (auto& s : sections) {
      const std::string flag = s.flag;
      if (!by_flag_.emplace(flag, std::move(s)).second)
        throw InputError(path_ + ": %FLAG " + flag + " appears twice");
    }
  }
  const Parm7Section* find(const std::string& flag) const {
    const auto it = by_flag_.find(flag);
    return it == by_flag_.end() ? nullptr : &it->second;
  }
  const Parm7Section& need(const std::string& flag) const {
    if (const Parm7Section* s = find(flag)) return *s;
    throw InputError(path_ + ": no %FLAG " + flag + " section (not a complete parm7 topology)");
  }
  // The section's values, of which there must be `count` (unless count < 0).
  const Parm7Section& sized(const std::string& flag, long long count, char kind) const {
    const Parm7Section& s = need(flag);
    if (s.kind != kind)
      fail_at_line(path_, s.line,
                   "%FLAG " + flag + ": %FORMAT has the wrong type (expected " +
                       (kind == 'a'   ? "text"
                        : kind == 'i' ? "integers"
                                      : "reals") +
                       ")");
    if (count >= 0 && static_cast<long long>(s.values.size()) != count)
      fail_at_line(path_, s.line,
                   "%FLAG " + flag + " has " + std::to_string(s.values.size()) + " values, " +
                       std::to_string(count) + " expected from POINTERS");
    return s;
  }
  std::vector<long long> integers(const std::string& flag, long long count) const {
    const Parm7Section& s = sized(flag, count, 'i');
    std::vector<long long> out(s.values.size());
    for (size_t k = 0; k < out.size(); ++k)
      if (!text::parse_int(trim(s.values[k]), out[k]))
        fail_at_line(path_, s.line,
                     "%FLAG " + flag + ": value " + std::to_string(k + 1) + " '" +
                         excerpt(s.values[k]) + "' is not an integer");
    return out;
  }
  std::vector<double> reals(const std::string& flag, long long count) const {
    const Parm7Section& s = sized(flag, count, 'e');
    std::vector<double> out(s.values.size());
    for (size_t k = 0; k < out.size(); ++k) {
      std::string v = trim(s.values[k]);
      std::replace(v.begin(), v.end(), 'D', 'E');  // Fortran double exponents
      if (!text::parse_double(v, out[k]))
        fail_at_line(path_, s.line,
                     "%FLAG " + flag + ": value " + std::to_string(k + 1) + " '" +
                         excerpt(s.values[k]) + "' is not a finite number");
    }
    return out;
  }
  [[noreturn]] void fail(const std::string& flag, const std::string& problem) const {
    fail_at_line(path_, need(flag).line, "%FLAG " + flag + ": " + problem);
  }

 private:
  std::string path_;
  std::map<std::string, Parm7Section> by_flag_;
};

// The element of a mass (files older than ATOMIC_NUMBER): the one whose standard weight is
// nearest, if within 0.5 u; "" otherwise (extra points of mass 0, repartitioned hydrogens).
std::string element_of_mass(double mass) {
  std::string best;
  double best_gap = 0.5;
  for (int z = 1; *analysis::element_symbol(z); ++z) {
    const double m = analysis::element_mass(analysis::element_symbol(z));
    if (m > 0 && std::fabs(m - mass) < best_gap) {
      best_gap = std::fabs(m - mass);
      best = analysis::element_symbol(z);
    }
  }
  return best;
}

// Bond partners of every atom as compressed rows; bonds are stored as 3 * (index - 1) pairs
// followed by a type index.
struct BondGraph {
  std::vector<int64_t> offsets;
  std::vector<int> partners;
};

BondGraph read_bonds(const Parm7File& file, int natoms) {
  std::vector<std::pair<int, int>> bonds;
  for (const char* flag : {"BONDS_INC_HYDROGEN", "BONDS_WITHOUT_HYDROGEN"}) {
    if (!file.find(flag)) continue;
    const std::vector<long long> v = file.integers(flag, -1);
    if (v.size() % 3 != 0)
      file.fail(flag, std::to_string(v.size()) + " values are not whole bonds (3 per bond)");
    for (size_t k = 0; k < v.size(); k += 3) {
      for (size_t e = 0; e < 2; ++e)
        if (v[k + e] < 0 || v[k + e] % 3 != 0 || v[k + e] / 3 >= natoms)
          file.fail(flag, "bond " + std::to_string(k / 3 + 1) + " names atom entry " +
                              std::to_string(v[k + e]) + ", not 3 * (atom - 1) of " +
                              std::to_string(natoms) + " atoms");
      const int i = static_cast<int>(v[k] / 3), j = static_cast<int>(v[k + 1] / 3);
      if (i != j) bonds.emplace_back(i, j);
    }
  }
  BondGraph g;
  g.offsets.assign(static_cast<size_t>(natoms) + 1, 0);
  for (const auto& [i, j] : bonds)
    ++g.offsets[static_cast<size_t>(i) + 1], ++g.offsets[static_cast<size_t>(j) + 1];
  std::partial_sum(g.offsets.begin(), g.offsets.end(), g.offsets.begin());
  g.partners.resize(2 * bonds.size());
  std::vector<int64_t> fill(g.offsets.begin(), g.offsets.end() - 1);
  for (const auto& [i, j] : bonds) {
    g.partners[static_cast<size_t>(fill[static_cast<size_t>(i)]++)] = j;
    g.partners[static_cast<size_t>(fill[static_cast<size_t>(j)]++)] = i;
  }
  return g;
}

// Every atom's exclusions: itself and the atoms within kExclusionBonds bonds, ascending.
void set_bonded_exclusions(const BondGraph& g, Topology& top) {
  const size_t n = g.offsets.size() - 1;
  top.exclusion_offsets.assign(1, 0);
  top.exclusion_offsets.reserve(n + 1);
  std::vector<int> seen(n, -1), current, next, found;
  for (size_t a = 0; a < n; ++a) {
    const int atom = static_cast<int>(a);
    found.assign(1, atom);
    seen[a] = atom;
    current.assign(1, atom);
    for (int depth = 0; depth < kExclusionBonds && !current.empty(); ++depth) {
      next.clear();
      for (int u : current)
        for (int64_t k = g.offsets[static_cast<size_t>(u)];
             k < g.offsets[static_cast<size_t>(u) + 1]; ++k) {
          const int w = g.partners[static_cast<size_t>(k)];
          if (seen[static_cast<size_t>(w)] == atom) continue;
          seen[static_cast<size_t>(w)] = atom;
          next.push_back(w);
          found.push_back(w);
        }
      current.swap(next);
    }
    std::sort(found.begin(), found.end());
    top.exclusion_atoms.insert(top.exclusion_atoms.end(), found.begin(), found.end());
    top.exclusion_offsets.push_back(static_cast<int64_t>(top.exclusion_atoms.size()));
  }
}

// Molecules as AMBER lists them for periodic systems, else the bonded clusters in the order of
// their first atoms.
void set_molecules(const Parm7File& file, const BondGraph& g, Topology& top) {
  const size_t n = g.offsets.size() - 1;
  if (file.find("SOLVENT_POINTERS") && file.find("ATOMS_PER_MOLECULE")) {
    const auto solvent = file.integers("SOLVENT_POINTERS", 3);
    const auto sizes = file.integers("ATOMS_PER_MOLECULE", solvent[1]);
    top.molecule_index.reserve(n);
    for (size_t m = 0; m < sizes.size(); ++m) {
      if (sizes[m] < 1 || sizes[m] > static_cast<long long>(n - top.molecule_index.size()))
        file.fail("ATOMS_PER_MOLECULE", "molecule " + std::to_string(m + 1) + " of " +
                                            std::to_string(sizes[m]) +
                                            " atoms does not fit the topology's atoms");
      top.molecule_index.insert(top.molecule_index.end(), static_cast<size_t>(sizes[m]),
                                static_cast<int>(m));
    }
    if (top.molecule_index.size() != n)
      file.fail("ATOMS_PER_MOLECULE", "the molecules hold " +
                                          std::to_string(top.molecule_index.size()) + " of " +
                                          std::to_string(n) + " atoms");
    return;
  }
  top.molecule_index.assign(n, -1);
  int molecules = 0;
  std::vector<int> stack;
  for (size_t a = 0; a < n; ++a) {
    if (top.molecule_index[a] >= 0) continue;
    top.molecule_index[a] = molecules;
    stack.assign(1, static_cast<int>(a));
    while (!stack.empty()) {
      const int u = stack.back();
      stack.pop_back();
      for (int64_t k = g.offsets[static_cast<size_t>(u)]; k < g.offsets[static_cast<size_t>(u) + 1];
           ++k) {
        const auto w = static_cast<size_t>(g.partners[static_cast<size_t>(k)]);
        if (top.molecule_index[w] < 0) {
          top.molecule_index[w] = molecules;
          stack.push_back(static_cast<int>(w));
        }
      }
    }
    ++molecules;
  }
}

void set_residues(const Parm7File& file, long long nres, Topology& top) {
  const size_t n = static_cast<size_t>(top.natoms());
  const auto& labels = file.sized("RESIDUE_LABEL", nres, 'a').values;
  const auto first = file.integers("RESIDUE_POINTER", nres);
  top.residue_names.reserve(n);
  top.residue_numbers.reserve(n);
  for (size_t r = 0; r < first.size(); ++r) {
    const long long begin = first[r];
    const long long end = r + 1 < first.size() ? first[r + 1] : static_cast<long long>(n) + 1;
    if ((r == 0 && begin != 1) || end <= begin || end > static_cast<long long>(n) + 1)
      file.fail("RESIDUE_POINTER", "residue " + std::to_string(r + 1) + " starts at atom " +
                                       std::to_string(begin) +
                                       " (residues must start at atom 1 and ascend)");
    for (long long a = begin; a < end; ++a) {
      top.residue_names.push_back(labels[r]);
      top.residue_numbers.push_back(static_cast<int>(r + 1));
    }
  }
}

void set_elements(const Parm7File& file, Topology& top) {
  const size_t n = static_cast<size_t>(top.natoms());
  top.elements.reserve(n);
  top.atomic_numbers.reserve(n);
  if (file.find("ATOMIC_NUMBER")) {
    for (long long z : file.integers("ATOMIC_NUMBER", static_cast<long long>(n))) {
      // Extra points (lone pairs, TIP4P's M) carry -1 or 0.
      top.elements.emplace_back(analysis::element_symbol(z));
      top.atomic_numbers.push_back(analysis::atomic_number(top.elements.back()));
    }
    return;
  }
  std::unordered_map<float, std::string> by_mass;  // few distinct masses
  for (float m : top.masses) {
    auto it = by_mass.find(m);
    if (it == by_mass.end()) it = by_mass.emplace(m, element_of_mass(m)).first;
    top.elements.emplace_back(it->second);
    top.atomic_numbers.push_back(analysis::atomic_number(it->second));
  }
}

void set_box(const Parm7File& file, long long ifbox, Topology& top) {
  if (ifbox <= 0 || !file.find("BOX_DIMENSIONS")) return;
  const auto d = file.reals("BOX_DIMENSIONS", 4);  // beta, a, b, c (degrees, Angstrom)
  // IFBOX 2 is a truncated octahedron, all angles equal; otherwise only beta may differ from 90.
  const double beta = cos_degrees(d[0]);
  const double alpha = ifbox == 2 ? beta : 0.0, gamma = ifbox == 2 ? beta : 0.0;
  std::array<double, 9> box{};
  if (!(d[1] > 0 && d[2] > 0 && d[3] > 0))
    file.fail("BOX_DIMENSIONS", "box lengths must be positive");
  if (const std::string problem = box_from_cell(d[1], d[2], d[3], alpha, beta, gamma, box);
      !problem.empty())
    file.fail("BOX_DIMENSIONS", problem);
  for (size_t k = 0; k < 9; ++k) top.box[k] = static_cast<float>(box[k] * kAngstromToNm);
}

}  // namespace

bool is_parm7(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string first;
  std::getline(in, first);
  return first.rfind("%VERSION", 0) == 0 || first.rfind("%FLAG", 0) == 0;
}

Topology read_parm7(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open parm7 topology");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw InputError(path + ": read error");
  const Parm7File file(path, parse_parm7_sections(text, path));

  const auto pointers = file.integers("POINTERS", -1);
  if (pointers.size() <= kIfbox)
    file.fail("POINTERS", "has " + std::to_string(pointers.size()) + " values, at least " +
                              std::to_string(kIfbox + 1) + " expected");
  const long long natoms = pointers[kNatom], nres = pointers[kNres];
  // Every atom takes at least 4 bytes of ATOM_NAME, so the count cannot exceed the file's size.
  if (natoms < 1 || natoms > static_cast<long long>(text.size() / 4))
    file.fail("POINTERS", "atom count " + std::to_string(natoms) + " is impossible for a file of " +
                              std::to_string(text.size()) + " bytes");
  if (nres < 1 || nres > natoms)
    file.fail("POINTERS",
              "residue count " + std::to_string(nres) + " is not 1.." + std::to_string(natoms));

  Topology top;
  if (const Parm7Section* t = file.find("TITLE") ? file.find("TITLE") : file.find("CTITLE"))
    for (const auto& v : t->values) top.title += (top.title.empty() ? "" : " ") + v;
  top.atom_names = analysis::NameColumn(file.sized("ATOM_NAME", natoms, 'a').values);
  if (file.find("AMBER_ATOM_TYPE"))
    top.types = analysis::NameColumn(file.sized("AMBER_ATOM_TYPE", natoms, 'a').values);
  for (double m : file.reals("MASS", natoms)) top.masses.push_back(static_cast<float>(m));
  for (double q : file.reals("CHARGE", natoms))
    top.charges.push_back(static_cast<float>(q / kAmberChargeUnit));
  set_residues(file, nres, top);
  set_elements(file, top);
  const BondGraph bonds = read_bonds(file, static_cast<int>(natoms));
  set_molecules(file, bonds, top);
  set_bonded_exclusions(bonds, top);
  set_box(file, pointers[kIfbox], top);
  return top;
}

}  // namespace pairhist::io
