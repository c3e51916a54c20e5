// A sphere cut out of every frame around a solute (`pairhist run --sphere SELECTION,R`), as
// CAPRIQORN cuts a macromolecule with a layer of solvent out of a periodic box for SAXS/WAXS
// (seed 000, its second scenario): per frame, the atoms of the run's species within R of the
// centre, at their minimum image around that centre, counted without a box.
//
// The centre (`--sphere-centre`): the selection's centre of mass (default where the topology
// states masses, a .tpr) or of geometry, the solute first made whole, each of its atoms moved to
// the periodic image nearest the one before it in the selection (as Centres makes residues
// whole), so a solute across the box edge gets its true centre; or a fixed point, or the centre
// of each frame's box, so that a pure-solvent run needs no dummy solute atom. Every atom of a
// species is then taken at its image nearest the centre; R may be at most half the box's
// shortest lattice vector, where that image is the only one inside the sphere.
//
// Per species, the atoms' distances from the centre are binned as well (CAPRIQORN's "length
// histograms"): the sphere's mean amplitude, which the excess intensity's background term needs
// (drivers/cli/scattering_excess.cpp), is their sum over sinc.
#pragma once

#include <cstdint>
#include <functional>
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

/// Parses "SELECTION,R", or "R" alone (a fixed or box centre needs no selection); throws
/// UsageError unless R is a positive finite number and a selection before a comma is not empty.
SphereOption parse_sphere_option(const std::string& text);

/// `--sphere-centre`: where the sphere's centre is in every frame.
enum class SphereCentreKind {
  automatic,  // the selection's centre of mass where the topology has masses, else of geometry
  mass,       // the selection's centre of mass
  geometry,   // the selection's centre of geometry
  point,      // a fixed point
  box,        // the centre (a + b + c) / 2 of each frame's box
};
struct SphereCentre {
  SphereCentreKind kind = SphereCentreKind::automatic;
  double point[3] = {0, 0, 0};  // kind point: in the run's length unit, as given
  /// Whether the centre is a selection's (then --sphere names one).
  bool of_selection() const {
    return kind != SphereCentreKind::point && kind != SphereCentreKind::box;
  }
};

/// Parses mass, geometry, box or X,Y,Z (three finite numbers); "" is automatic. Throws
/// UsageError naming --sphere-centre otherwise.
SphereCentre parse_sphere_centre(const std::string& text);

/// One frame's cut-out: per species, the atoms inside the sphere, at their minimum image
/// relative to the centre (nm, single precision as the engine takes them).
struct SphereFrame {
  std::vector<float> xyz;               // x,y,z of every atom inside, species after species
  std::vector<std::vector<int>> atoms;  // per species: its atoms' indices into xyz (triples)
  std::vector<int64_t> counts;          // per species: atoms inside
  double centre[3] = {0, 0, 0};         // the sphere's centre in the frame (nm)
  // Per species, its atoms inside binned by their distance d from the centre: bin
  // floor(d / width) of SphereCut::set_centre_bins() (the last bin also holds d = R).
  std::vector<std::vector<uint64_t>> centre_counts;
};

class SphereCut {
 public:
  SphereCut() = default;
  /// `solute`: atom indices (the selection's order); `masses`: one per solute atom, or empty for
  /// the centre of geometry; `radius_nm` > 0.
  SphereCut(std::vector<int> solute, std::vector<double> masses, double radius_nm);
  /// A sphere around a fixed point (nm) or, with `box_centre`, each frame's box centre.
  SphereCut(const double point_nm[3], bool box_centre, double radius_nm);

  bool active() const { return radius_ > 0; }
  bool mass_weighted() const { return !masses_.empty(); }
  bool box_centred() const { return box_centre_; }
  bool fixed_point() const { return solute_.empty() && !box_centre_; }
  double radius_nm() const { return radius_; }

  /// Bins the atoms' distances from the centre into `nbins` bins of `width_nm` from 0 (nbins
  /// width_nm >= R): SphereFrame::centre_counts. Without it, none are binned.
  void set_centre_bins(double width_nm, int nbins);
  int centre_nbins() const { return centre_nbins_; }

  /// Cuts one frame: `xyz` holds every position of the frame (nm), `box` its box (all zero: no
  /// periodic images), `species` each species' positions (indices into xyz). Returns "" or the
  /// problem (a non-finite coordinate, R beyond half the shortest box vector, no atom inside, a
  /// box centre without a box),
  /// which the caller reports with file and frame; `unit`/`factor` write lengths as the user
  /// gave them.
  std::string cut(const float* xyz, const BoxMatrix& box,
                  const std::vector<std::vector<int>>& species, const std::string& unit,
                  double factor, SphereFrame& out) const;

 private:
  /// The solute made whole and its centre (mass or geometry) into centre[3]; "" or the problem.
  std::string solute_centre(const float* xyz, const std::function<void(double*)>& nearest,
                            double* centre) const;

  std::vector<int> solute_;
  std::vector<double> masses_;
  double point_[3] = {0, 0, 0};  // nm, without a solute and not box-centred
  bool box_centre_ = false;
  double radius_ = 0;
  double centre_width_ = 0;  // nm
  int centre_nbins_ = 0;
};

}  // namespace pairhist::analysis
