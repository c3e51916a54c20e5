#include "analysis/topology.hpp"

#include <algorithm>
#include <cctype>

#include "pairhist/errors.hpp"

namespace pairhist::analysis {

namespace {

bool equal_ignoring_case(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

}  // namespace

const std::vector<int>* IndexGroups::find(const std::string& name) const {
  for (size_t g = 0; g < names.size(); ++g)
    if (equal_ignoring_case(names[g], name)) return &atoms[g];
  // A group number; at most 9 digits so that it cannot overflow.
  if (name.empty() || name.size() > 9) return nullptr;
  for (char c : name)
    if (!std::isdigit(static_cast<unsigned char>(c))) return nullptr;
  const size_t number = std::stoul(name);
  return number < atoms.size() ? &atoms[number] : nullptr;
}

std::vector<int> residue_of_atoms(const Topology& top, const std::string& topology_path,
                                  const std::string& needed_for) {
  const size_t n = static_cast<size_t>(top.natoms());
  const bool named = std::any_of(top.residue_names.begin(), top.residue_names.end(),
                                 [](const std::string& s) { return !s.empty(); });
  if (top.residue_numbers.size() != n || top.residue_names.size() != n || !named)
    throw UsageError(topology_path + ": the topology has no residues, so " + needed_for +
                     " cannot be used (give a .gro, .pdb or .tpr topology)");
  // A .tpr may number the residues of every copy of a molecule alike.
  const bool molecules = top.molecule_index.size() == n;
  const bool segments = top.segment_names.size() == n;
  const bool codes = top.insertion_codes.size() == n;
  std::vector<int> residue(n);
  int current = -1;
  for (size_t i = 0; i < n; ++i) {
    if (i == 0 || top.residue_numbers[i] != top.residue_numbers[i - 1] ||
        top.residue_names[i] != top.residue_names[i - 1] ||
        (molecules && top.molecule_index[i] != top.molecule_index[i - 1]) ||
        (segments && top.segment_names.ids()[i] != top.segment_names.ids()[i - 1]) ||
        (codes && top.insertion_codes.ids()[i] != top.insertion_codes.ids()[i - 1]))
      ++current;
    residue[i] = current;
  }
  return residue;
}

}  // namespace pairhist::analysis
