// How the text of a selection (analysis/selection.hpp) is read before it is parsed: split into
// words, and the plain form (one word of comma-separated atom-name globs) told from an
// expression and rewritten as one.
#pragma once

#include <string>
#include <vector>

namespace pairhist::analysis {

/// The words of a selection: split at whitespace, with each parenthesis a word of its own.
std::vector<std::string> tokenize_selection(const std::string& text);

/// The selection without whitespace next to commas ("HW1, HW2" -> "HW1,HW2").
std::string joined_lists(const std::string& selection);

/// Whether the selection is the plain form: one word of comma-separated atom-name globs.
bool is_name_list(const std::string& selection);

/// A cpptraj atom mask of one word as an expression, else "": `:RES` residues (numbers and
/// ranges as `resid`, names as `resname`, comma separated), `@ATOM` atoms (numbers and ranges as
/// `index`, names as `name`, %TYPE as `type`), `:RES@ATOM` both, `*` all atoms, combined with `!`
/// (not), `&` (and), `|` (or) and parentheses in cpptraj's precedence (! before & before |):
/// ":WAT@O" -> "((resname WAT) and (name O))", "!:WAT" -> "not ((resname WAT))", ":1-13" ->
/// "((resid 1-13))". cpptraj numbers residues 1, 2, ... in topology order; `resid` is the file's
/// residue numbers, the same for an AMBER topology. What pairhist cannot translate (distance
/// masks `<:`, molecules `^`, elements `/`) throws UsageError naming the selection and the part.
std::string mask_expression(const std::string& selection);

/// A cpptraj mask (mask_expression) or the plain form written as a `name` expression ("HW1, HW2"
/// -> "name HW1 HW2"); an expression is returned as it is.
std::string as_expression(const std::string& selection);

}  // namespace pairhist::analysis
