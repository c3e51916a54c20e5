// A sphere cut out of every frame around a solute (`pairhist run --sphere SELECTION,R`), as
// CAPRIQORN cuts a macromolecule with a layer of solvent out of a periodic box for SAXS/WAXS
// (seed 000, its second scenario): per frame, the atoms of the run's species within R of the
// solute's centre, at their minimum image around that centre, counted without a box.
//
// The centre: of mass where the topology states masses (a .tpr), else of geometry; the solute is
// first made whole, each of its atoms moved to the periodic image nearest the one before it in
// the selection (as Centres makes residues whole), so a solute across the box edge gets its true
// centre. Every atom of a species is then taken at its image nearest the centre; R may be at most
// half the box's shortest lattice vector, where that image is the only one inside the sphere.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pairhist/box_setup.hpp"

namespace pairhist::analysis {

/// `--sphere SELECTION,R`: the selection (which may hold commas) before the last comma, the
/// radius (in the run's length unit) after it.
struct SphereOption {
  std::string selection;
  double radius = 0;
};

/// Parses "SELECTION,R"; throws UsageError unless R is a positive finite number and the
/// selection is not empty.
SphereOption parse_sphere_option(const std::string& text);

/// One frame's cut-out: per species, the atoms inside the sphere, at their minimum image
/// relative to the centre (nm, single precision as the engine takes them).
struct SphereFrame {
  std::vector<float> xyz;               // x,y,z of every atom inside, species after species
  std::vector<std::vector<int>> atoms;  // per species: its atoms' indices into xyz (triples)
  std::vector<int64_t> counts;          // per species: atoms inside
  double centre[3] = {0, 0, 0};         // the solute's centre in the frame (nm)
};

class SphereCut {
 public:
  SphereCut() = default;
  /// `solute`: atom indices (the selection's order); `masses`: one per solute atom, or empty for
  /// the centre of geometry; `radius_nm` > 0.
  SphereCut(std::vector<int> solute, std::vector<double> masses, double radius_nm);

  bool active() const { return !solute_.empty(); }
  bool mass_weighted() const { return !masses_.empty(); }
  double radius_nm() const { return radius_; }

  /// Cuts one frame: `xyz` holds every position of the frame (nm), `box` its box (all zero: no
  /// periodic images), `species` each species' positions (indices into xyz). Returns "" or the
  /// problem (a non-finite coordinate, R beyond half the shortest box vector, no atom inside),
  /// which the caller reports with file and frame; `unit`/`factor` write lengths as the user
  /// gave them.
  std::string cut(const float* xyz, const BoxMatrix& box,
                  const std::vector<std::vector<int>>& species, const std::string& unit,
                  double factor, SphereFrame& out) const;

 private:
  std::vector<int> solute_;
  std::vector<double> masses_;
  double radius_ = 0;
};

}  // namespace pairhist::analysis
