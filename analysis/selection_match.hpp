// How a selection's keywords match the atoms of a topology column: text columns by globs (each
// distinct value once), number columns by value ranges.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "analysis/name_column.hpp"
#include "analysis/selection_tree.hpp"

namespace pairhist::analysis {

/// The atoms whose value matches any of `patterns` (fnmatch with `flags`). Each distinct value is
/// matched once (an 11M-atom system has a handful), then the atoms take their value's verdict,
/// in stretches on all cores.
AtomMask match_names(const NameColumn& values, const std::vector<std::string>& patterns, int flags);

/// The atoms whose value lies in any [lo, hi] of `ranges` (both ends included).
AtomMask match_values(const std::vector<float>& values,
                      const std::vector<std::pair<double, double>>& ranges);

}  // namespace pairhist::analysis
