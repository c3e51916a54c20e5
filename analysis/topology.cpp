#include "analysis/topology.hpp"

#include <cctype>

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

}  // namespace pairhist::analysis
