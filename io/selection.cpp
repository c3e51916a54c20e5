#include "selection.hpp"

#include <fnmatch.h>

#include <sstream>

#include "pairhist/errors.hpp"

namespace pairhist::io {

std::vector<int> select_atoms_by_name(const Topology& topology, const std::string& selection,
                                      const std::string& topology_path) {
  std::vector<std::string> patterns;
  std::stringstream in(selection);
  for (std::string item; std::getline(in, item, ',');) {
    const auto b = item.find_first_not_of(" \t");
    const auto e = item.find_last_not_of(" \t");
    if (b != std::string::npos) patterns.push_back(item.substr(b, e - b + 1));
  }
  if (patterns.empty()) throw UsageError("empty selection '" + selection + "'");
  std::vector<int> atoms;
  for (int i = 0; i < topology.natoms(); ++i) {
    for (const auto& p : patterns) {
      if (fnmatch(p.c_str(), topology.atom_names[static_cast<size_t>(i)].c_str(), 0) == 0) {
        atoms.push_back(i);
        break;
      }
    }
  }
  if (atoms.empty())
    throw InputError(topology_path + ": selection '" + selection + "' matches no atom name");
  return atoms;
}

}  // namespace pairhist::io
