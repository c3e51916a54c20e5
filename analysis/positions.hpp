// Positions other than atoms: the centre of mass or of geometry of each residue or molecule of a
// selection, as GROMACS's selections define them (`gmx help selections positions`):
//
//   [whole_|part_|dyn_](atom|res_com|res_cog|mol_com|mol_cog) of EXPR
//
// whole_ takes every atom of each residue/molecule EXPR touches; part_ and dyn_ only the atoms
// EXPR selects (the same for a selection evaluated once, as all of ours are); no prefix is part_,
// as for gmx's whole selections (-ref, -sel). Centres are computed per frame with each
// residue/molecule made whole: every atom is moved to the periodic image nearest the atom before
// it in the group, as gmx's -rmpbc makes molecules whole along their bonds before it averages.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analysis/topology.hpp"
#include "pairhist/box_setup.hpp"

namespace pairhist::analysis {

enum class PositionUnit { atom, residue, molecule };

struct PositionType {
  PositionUnit unit = PositionUnit::atom;
  bool mass_weighted = false;  // _com (masses) or _cog (geometry)
  bool whole = false;          // whole_: all atoms of every residue/molecule touched

  bool is_atom() const { return unit == PositionUnit::atom; }
};

/// "res_com", "whole_mol_cog", "atom", ...; false for anything else.
bool parse_position_type(const std::string& word, PositionType& type);
/// The names parse_position_type takes, for messages.
std::string position_type_list();
/// "res_com", "whole_mol_cog", "atom" (part_ and dyn_ are the default, not named).
std::string position_type_name(const PositionType& type);

/// A fixed point as a species of one position (`point X,Y,Z` or `point centre`): the
/// reference of a density profile around a point of space (a droplet's or pore's centre), as
/// cpptraj's `toxyz x,y,z` or a gmx position selection `[x, y, z]` give it.
enum class PointKind { none, fixed, box_centre };

/// A selection whose leading "POSTYPE of" (if any) is split off.
struct PositionSelection {
  PositionType type;
  bool stated = false;                // the selection states its position type
  std::string atoms_text;             // the atom expression after "POSTYPE of"
  PointKind point = PointKind::none;  // a point selects no atoms
  std::array<double, 3> point_xyz{};  // PointKind::fixed: as written (the run's length unit)
};

/// Splits "res_com of resname SOL" into res_com and "resname SOL"; a selection without the prefix
/// gets `default_type` (gmx rdf's -seltype). "point X,Y,Z" (also "point X Y Z") and "point
/// centre" (or "center": the centre of each frame's box) are points, stated. Throws UsageError for
/// an unknown position type before "of" (with the one probably meant) and for gmx's single centres
/// "com of", "cog of" (one position for the whole selection), which pairhist does not compute.
PositionSelection split_position_type(const std::string& selection,
                                      const PositionType& default_type = {});

/// The atoms whose positions the centres of `type` over `atoms` (ascending) average: `atoms`,
/// or for whole_ types every atom of the residues or molecules they touch. Throws as
/// Centres::add.
std::vector<int> centre_atoms(const Topology& top, const std::string& topology_path,
                              const PositionType& type, const std::vector<int>& atoms);

/// Every centre of a run: for centre c, the atoms members[offsets[c] .. offsets[c + 1]) in
/// ascending order and their weights (masses, or 1). A centre of one atom is never stored: it is
/// that atom (add_centres returns the atom itself), so the same atom in another species stays
/// the same position.
class Centres {
 public:
  /// Adds the centres of `type` over `atoms` (ascending atom indices of `top`) and returns the
  /// position of each: an atom index below top.natoms() for a centre of one atom, else
  /// top.natoms() + the centre's index here (a centre already added, with the same atoms and
  /// weighting, is reused). `masses`: per atom of `top`, read only for _com types. Throws
  /// UsageError naming `topology_path` for a molecule type without molecules (only a .tpr has
  /// them), residues without residue information, and a centre whose atoms weigh nothing.
  std::vector<int> add(const Topology& top, const std::string& topology_path,
                       const PositionType& type, const std::vector<int>& atoms,
                       const std::vector<double>& masses);

  /// Adds a fixed point (`xyz`, nm) or, for `box_centre`, the centre of each frame's box
  /// ((a + b + c) / 2); returns its position, top.natoms() + its index here. Points are never
  /// merged: each species of a point is a position of its own.
  int add_point(int natoms, bool box_centre, const std::array<double, 3>& xyz);

  size_t size() const { return inverse_weight_.size(); }
  bool empty() const { return size() == 0; }

  /// Writes every centre of a frame (xyz: all atoms, nm) to out[3c .. 3c + 2], each residue or
  /// molecule made whole in `box` (of kind `kind`; none: as the coordinates are), and every
  /// point. Returns -1, kNoBoxForCentre where a point is the box's centre and the frame has no
  /// box, or the first atom with a non-finite coordinate (its centre is then not finite either).
  int64_t compute(const float* xyz, const BoxMatrix& box, BoxKind kind, float* out) const;
  static constexpr int64_t kNoBoxForCentre = -2;

 private:
  // Per centre: 0 for a centre of atoms, 1 for a fixed point (points_ holds it), 2 for the
  // box's centre.
  std::vector<char> point_kind_;
  std::vector<std::array<double, 3>> points_;
  std::vector<int64_t> offsets_{0};
  std::vector<int> members_;
  std::vector<double> weights_;
  std::vector<double> inverse_weight_;
  std::map<std::pair<char, std::vector<int>>, int> known_;  // (mass weighted, atoms) -> centre
};

}  // namespace pairhist::analysis
