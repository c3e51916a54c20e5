#include "analysis/topology.hpp"

namespace pairhist::analysis {

const std::vector<int>* IndexGroups::find(const std::string& name) const {
  for (size_t g = 0; g < names.size(); ++g)
    if (names[g] == name) return &atoms[g];
  return nullptr;
}

}  // namespace pairhist::analysis
