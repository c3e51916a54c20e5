// The keywords of the selection language (analysis/selection.hpp), and what a word that is not
// one most likely meant: selections never fall back to reading an unknown word as a name.
#pragma once

#include <cstddef>
#include <string>

namespace pairhist::analysis {

/// The keywords, as a message lists them.
constexpr const char* kSelectionKeywordList =
    "name, resname, resid, segid, index, group, element, type, mass, charge, all, within, around, "
    "and, or, not";

/// One value or range of a `mass` or `charge` selection into [lo, hi]: "A:B", "A-B" (A not
/// negative; a negative A needs "A:B") or "A" alone, which stands for [A - 1e-3, A + 1e-3] as
/// files state masses and charges to a few decimals. False where the token is none of these.
bool parse_value_range(const std::string& token, double& lo, double& hi);

bool is_keyword(const std::string& word);

/// Edit distance (insertions, deletions, substitutions) of two short words, ignoring case.
size_t edit_distance(const std::string& a, const std::string& b);

/// The keyword a foreign one (VMD's, MDAnalysis's, gmx's: `atomname`, `resnum`, `&&`) stands
/// for, or "".
std::string keyword_alias(const std::string& word);

/// The keyword a misspelt or foreign one most likely means (keyword_alias, else a keyword one or
/// two edits away), or "".
std::string keyword_meant(const std::string& word);

}  // namespace pairhist::analysis
