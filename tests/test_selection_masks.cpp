// cpptraj masks with '!', '&', '|' and parentheses, against the same sets computed directly on a
// random topology; what cannot be translated is a one-line error naming the part.
#include <doctest/doctest.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "analysis/selection.hpp"
#include "analysis/selection_text.hpp"
#include "pairhist/errors.hpp"

using namespace pairhist;

namespace {

analysis::Topology random_topology() {
  std::mt19937 rng(1202);
  const std::vector<std::string> residues = {"WAT", "ALA", "NA", "GLY"};
  const std::vector<std::string> names = {"O", "H1", "H2", "CA", "N", "C"};
  analysis::Topology top;
  int resid = 0;
  while (top.natoms() < 400) {
    const std::string res = residues[rng() % residues.size()];
    ++resid;
    for (int k = 0, n = 1 + static_cast<int>(rng() % 4); k < n; ++k) {
      top.atom_names.push_back(names[rng() % names.size()]);
      top.residue_names.push_back(res);
      top.residue_numbers.push_back(resid);
      top.types.push_back(rng() % 2 ? "OW" : "CT");
    }
  }
  return top;
}

std::vector<int> where(const analysis::Topology& top, const std::function<bool(size_t)>& keep) {
  std::vector<int> out;
  for (size_t i = 0; i < static_cast<size_t>(top.natoms()); ++i)
    if (keep(i)) out.push_back(static_cast<int>(i));
  return out;
}

std::string error_of(const analysis::Topology& top, const std::string& mask) {
  try {
    analysis::select_atoms(top, mask, "top.parm7");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("cpptraj masks with !, &, | and parentheses select what the operators say") {
  const analysis::Topology top = random_topology();
  auto res = [&](size_t i, const char* r) { return top.residue_names[i] == r; };
  auto name = [&](size_t i, const char* n) { return top.atom_names[i] == n; };
  auto id = [&](size_t i) { return top.residue_numbers[i]; };
  auto check = [&](const std::string& mask, const std::function<bool(size_t)>& keep) {
    INFO(mask << " -> " << analysis::mask_expression(mask));
    const auto want = where(top, keep);
    CHECK(!want.empty());
    CHECK(analysis::select_atoms(top, mask, "top.parm7") == want);
  };
  check(":WAT&@O", [&](size_t i) { return res(i, "WAT") && name(i, "O"); });
  check("!:WAT", [&](size_t i) { return !res(i, "WAT"); });
  check(":WAT|:NA", [&](size_t i) { return res(i, "WAT") || res(i, "NA"); });
  check("!:WAT&!@H*", [&](size_t i) { return !res(i, "WAT") && top.atom_names[i][0] != 'H'; });
  // & before |, ! before &.
  check(":NA|:WAT&@O", [&](size_t i) { return res(i, "NA") || (res(i, "WAT") && name(i, "O")); });
  check("(:NA|:WAT)&@O", [&](size_t i) { return (res(i, "NA") || res(i, "WAT")) && name(i, "O"); });
  check("!(:1-20|@CA,C)",
        [&](size_t i) { return !(id(i) <= 20 || name(i, "CA") || name(i, "C")); });
  check(":ALA@CA|:GLY@N", [&](size_t i) {
    return (res(i, "ALA") && name(i, "CA")) || (res(i, "GLY") && name(i, "N"));
  });
  check("@%OW&!:WAT", [&](size_t i) { return top.types[i] == "OW" && !res(i, "WAT"); });
  check("*&!@O", [&](size_t i) { return !name(i, "O"); });
  check("!!:WAT", [&](size_t i) { return res(i, "WAT"); });
  // One-word masks read as before.
  check(":WAT@O", [&](size_t i) { return res(i, "WAT") && name(i, "O"); });
  check(":5-9", [&](size_t i) { return id(i) >= 5 && id(i) <= 9; });
}

TEST_CASE("cpptraj masks that cannot be translated are one line naming the part") {
  const analysis::Topology top = random_topology();
  auto says = [&](const std::string& mask, const std::string& part) {
    const std::string e = error_of(top, mask);
    INFO(e);
    CHECK(e.find("selection '" + mask + "': cpptraj mask: ") == 0);
    CHECK(e.find(part) != std::string::npos);
    CHECK(e.find('\n') == std::string::npos);
  };
  says(":WAT<:3.0", "distance masks");
  says("@O>@5", "distance masks");
  says("^1&@O", "molecule masks");
  says(":WAT&-@O", "':RES' or '@ATOM' expected at '-@O'");
  says(":1^2", "molecule masks");
  says("(:WAT&@O", "missing ')'");
  says(":WAT)&@O", "a ')' without its '('");
  says(":WAT&", "the mask ends early");
  says(":&@O", "an empty residue list");
  says(":WAT@", "an empty atom list");
  says(":WAT@O@H1", "a second '@'");
  says("@/O", "element masks");
}
