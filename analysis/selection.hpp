// Species selections: which atoms of a topology form a species.
//
// Two forms are accepted:
//  - a plain list of atom-name globs, comma separated, one word (spaces only next to commas):
//    "OW", "HW1,HW2", "HW1, HW2", "HW*";
//  - an expression in a small VMD/MDAnalysis-like language:
//      name PAT...          atom names matching any glob
//      resname PAT...       residue names matching any glob
//      resid A[-B] ...      residue numbers (ranges inclusive; A:B and GROMACS's `A to B` also
//                           accepted, the latter reversed as gmx reads it: `3 to 1` is 1..3)
//      index A[-B] ...      atom numbers, 1-based as in .gro/.pdb files; ranges as for resid
//      group NAME...        atoms of GROMACS index groups: those of an index file (ndx_reader), or
//                           without one gmx make_ndx's default groups of a .tpr topology;
//                           names ignore case, and a number N is the group gmx lists as N
//                           (0-based)
//      element PAT...       element symbols, case-insensitive, where the topology file states
//                           them (PDB columns 77-78, XYZ species); never guessed from names
//      type PAT...          atom types where the file has them (LAMMPS dump type column)
//      all
//      within R of SEL      atoms within R nm of an atom of SEL, SEL's own included (GROMACS)
//      around R SEL         the same without SEL's atoms (MDAnalysis)
//    combined with `and`, `or`, `not` and parentheses ("resname SOL and name H*",
//    "name OW or (resname NA and not resid 1-10)").
// `within` and `around` make a selection dynamic: its atoms change from frame to frame
// (analysis/selection_tree.hpp evaluates them per frame, analysis/selection_within.hpp tells the
// distances: minimum image, <= R). Their SEL is one operand, as `not` takes it:
// "within 0.5 of resname NA and name OW" is "(within 0.5 of resname NA) and name OW".
// Anything else is an error, never a guess: a word where a keyword belongs ("nam OW", "foo OW",
// "atomname OW", "NA or CL") is refused with what was probably meant (a keyword close to it or
// of another program's language, `name NA`, `resname SOL`, `group SOL`), and a name list that
// matches no atom but names a residue or a group says so.
#pragma once

#include <string>
#include <vector>

#include "analysis/selection_tree.hpp"
#include "analysis/topology.hpp"

namespace pairhist::analysis {

/// True when the selection uses the `group` keyword (so that it needs index groups). A plain list
/// of names naming an atom "group" also answers true: the caller then just reads groups in vain.
bool uses_groups(const std::string& selection);

/// The selection, static or dynamic, checked as select_atoms() checks it (its superset() must
/// hold an atom).
Selection parse_selection(const Topology& topology, const std::string& selection,
                          const std::string& topology_path, const IndexGroups* groups = nullptr);

/// Indices (0-based, ascending) of the atoms a static selection picks (UsageError for a dynamic
/// one). `groups` (may be null) serves
/// the `group` keyword. Throws UsageError for a malformed expression, `group` without groups or
/// an unknown group name (naming where the groups came from), `element`/`type` on a topology
/// without them or with an atom lacking one (naming the topology file), and InputError naming the
/// topology when the selection picks no atom.
std::vector<int> select_atoms(const Topology& topology, const std::string& selection,
                              const std::string& topology_path,
                              const IndexGroups* groups = nullptr);

}  // namespace pairhist::analysis
