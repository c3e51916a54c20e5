// libFuzzer harness: the selection parser and its position types ("res_com of ..."). The first
// byte picks what the topology carries (elements, types, an index file, an atom without an
// element, molecules); the rest is the selection text.
#include "analysis/selection.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "analysis/positions.hpp"
#include "fuzz/fuzz_support.hpp"
#include "pairhist/errors.hpp"

namespace {

using pairhist::analysis::IndexGroups;
using pairhist::analysis::Topology;

// Two waters, an ion pair and a residue number past GROMACS's wrap, with glob characters in one
// name: small enough to evaluate in microseconds, varied enough for every keyword to match.
Topology make_topology(unsigned flags) {
  Topology top;
  top.atom_names = {"OW", "HW1", "HW2", "OW", "HW1", "HW2", "NA", "CL", "C*1", "N[2]"};
  top.residue_names = {"SOL", "SOL", "SOL", "SOL", "SOL", "SOL", "NA", "CL", "LIG", "LIG"};
  top.residue_numbers = {1, 1, 1, 2, 2, 2, 3, 99999, 0, -5};
  if (flags & 1u) top.elements = {"O", "H", "H", "O", "H", "H", "Na", "Cl", "C", "N"};
  if (flags & 2u) top.types = {"1", "2", "2", "1", "2", "2", "3", "4", "5", "6"};
  if ((flags & 8u) && !top.elements.empty()) top.elements.set(8, "");
  if (flags & 16u) top.molecule_index = {0, 0, 0, 1, 1, 1, 2, 3, 4, 4};
  top.xyz.assign(3 * top.atom_names.size(), 0.0f);
  return top;
}

IndexGroups make_groups() {
  IndexGroups groups;
  groups.path = "groups.ndx";
  groups.names = {"OW", "r_1-2", "OW", "Ions"};
  groups.atoms = {{0, 3}, {0, 1, 2, 3, 4, 5}, {9}, {6, 7}};
  return groups;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const unsigned flags = data[0];
  const std::string selection(reinterpret_cast<const char*>(data) + 1, size - 1);
  const Topology top = make_topology(flags);
  const IndexGroups groups = make_groups();
  try {
    const auto split = pairhist::analysis::split_position_type(selection);
    const std::vector<int> atoms = pairhist::analysis::select_atoms(
        top, split.atoms_text, "top.gro", (flags & 4u) ? &groups : nullptr);
    if (atoms.empty()) pairhist::fuzz::violated("empty selection returned without an error");
    for (size_t i = 0; i < atoms.size(); ++i) {
      if (atoms[i] < 0 || atoms[i] >= top.natoms())
        pairhist::fuzz::violated("atom index " + std::to_string(atoms[i]) + " out of range");
      if (i > 0 && atoms[i] <= atoms[i - 1])
        pairhist::fuzz::violated("atom indices not strictly ascending");
    }
    pairhist::analysis::Centres centres;
    const std::vector<double> masses(static_cast<size_t>(top.natoms()), 1.0);
    const std::vector<int> positions = centres.add(top, "top.gro", split.type, atoms, masses);
    if (positions.empty() || positions.size() > atoms.size())
      pairhist::fuzz::violated("centres: " + std::to_string(positions.size()) + " positions of " +
                               std::to_string(atoms.size()) + " atoms");
    for (int p : positions)
      if (p < 0 || p >= top.natoms() + static_cast<int>(centres.size()))
        pairhist::fuzz::violated("position index " + std::to_string(p) + " out of range");
    std::vector<float> out(3 * centres.size());
    centres.compute(top.xyz.data(), {1, 0, 0, 0, 1, 0, 0, 0, 1}, pairhist::BoxKind::orthorhombic,
                    out.data());
  } catch (const pairhist::UsageError& e) {
    pairhist::fuzz::check_message(e.what(), "");
  } catch (const pairhist::InputError& e) {
    pairhist::fuzz::check_message(e.what(), "top.gro: ");
  }
  return 0;
}
