#include "drivers/job/frame_handling.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "drivers/job/length_units.hpp"
#include "pairhist/errors.hpp"
#include "pairhist/periodic_images.hpp"

namespace pairhist {

BoxMatrix to_matrix(const std::array<float, 9>& box) {
  BoxMatrix m;
  for (int i = 0; i < 9; ++i) m[i] = box[i];
  return m;
}

void submit_to_engine(HistogramEngine& engine, io::TrajectoryFrame& frame,
                      const std::vector<std::vector<int>>& atoms, const BoxMatrix& box,
                      const std::string& where, bool hand_over) {
  try {
    io::SpeciesColumns& columns = frame.columns;
    if (!columns.filled) {
      // A frame decoded into columns has no whole frame: its columns went to the engine.
      if (frame.xyz.empty() &&
          std::any_of(atoms.begin(), atoms.end(), [](const auto& a) { return !a.empty(); }))
        throw std::logic_error("submit_to_engine: the frame's columns were handed over");
      engine.submit_frame_atoms(frame.xyz.data(), atoms, box);
      return;
    }
    if (columns.bad_species >= 0)
      throw NonFiniteCoordinate(columns.bad_species, columns.bad_position);
    CoordinateBounds bounds;
    for (int c = 0; c < 3; ++c) bounds.lo[c] = columns.lo[c], bounds.hi[c] = columns.hi[c];
    if (hand_over) {
      // The columns the engine gave back hold no frame until a decoding thread refills them.
      if (engine.submit_frame_columns_swap(columns.soa, box, bounds)) columns.filled = false;
      return;
    }
    std::vector<const float*> soa;
    for (const auto& species : columns.soa) soa.push_back(species.data());
    engine.submit_frame_columns(soa, box, &bounds);
  } catch (const NonFiniteCoordinate& e) {
    throw InputError(
        where + "atom " +
        std::to_string(atoms[static_cast<size_t>(e.species)][static_cast<size_t>(e.position)] + 1) +
        " has a non-finite coordinate");
  }
}

namespace {

/// The angle between two box vectors (rows of `box`), in degrees.
double box_angle(const BoxMatrix& box, int u, int v) {
  double dot = 0, uu = 0, vv = 0;
  for (int c = 0; c < 3; ++c) {
    dot += box[3 * u + c] * box[3 * v + c];
    uu += box[3 * u + c] * box[3 * u + c];
    vv += box[3 * v + c] * box[3 * v + c];
  }
  return std::acos(std::clamp(dot / std::sqrt(uu * vv), -1.0, 1.0)) * 180 / M_PI;
}

}  // namespace

void check_frame_box(const BoxMatrix& box, BoxKind kind, const RunSpec& o, double r_max_nm,
                     const std::string& unit, const std::string& where, bool images,
                     bool can_count_images) {
  if (const std::string problem = box_problem(box); !problem.empty())
    throw InputError(where + problem);
  const BoxKind frame_kind = classify_box(box);
  if (kind == BoxKind::orthorhombic && frame_kind == BoxKind::triclinic) {
    char angles[96];
    std::snprintf(angles, sizeof angles, " (alpha, beta, gamma = %.6g, %.6g, %.6g degrees)",
                  box_angle(box, 1, 2), box_angle(box, 0, 2), box_angle(box, 0, 1));
    throw BoxKindWidens(where + "the box changes from orthorhombic to triclinic" + angles);
  }
  // A run with a periodic box and frames without one (or the reverse) has no one meaning.
  if (static_cast<int>(frame_kind) > static_cast<int>(kind) ||
      (kind != BoxKind::none && frame_kind == BoxKind::none)) {
    throw InputError(where + "box changes from " + box_kind_name(kind) + " to " +
                     box_kind_name(frame_kind));
  }
  const double factor = length_factor(o.units);
  if (images) {  // every image is counted: any r_max, any skew
    // -xy's third vector only keeps the layers apart: its images are no part of the plane.
    if (o.xy && counted_radius(r_max_nm, o.r_cut / factor) >= box[8])
      throw InputError(where + "-xy with r_max at least 2 max(a_x, b_y) = " +
                       format_length(box[8] * factor, unit) +
                       " is not counted: the plane's images would meet the next layer");
    return;
  }
  const double limit = max_minimum_image_rmax(box);
  // Only the pairs below the cut-off are counted: a partial last bin may reach past the limit.
  const double counted_nm = o.r_cut > 0 ? o.r_cut / factor : r_max_nm;
  if (!rmax_fits_minimum_image(counted_nm, box)) {
    const std::string problem =
        where + "r_max " + format_length(o.r_cut > 0 ? o.r_cut : o.r_max, unit) +
        " exceeds the minimum-image limit " + format_length(limit * factor, unit) +
        " of this frame's box (half its shortest lattice vector)";
    if (can_count_images) throw ImagesNeeded(problem);
    throw InputError(problem);
  }
  if (frame_kind == BoxKind::triclinic &&
      triclinic_search_size(box, r_max_nm) > static_cast<size_t>(kMaxOctantImages))
    throw InputError(where +
                     "triclinic box too skewed for an exact minimum image (reduce it "
                     "first, e.g. with gmx trjconv -pbc)");
}

void append_centres(const analysis::Centres& centres, int natoms, io::TrajectoryFrame& frame,
                    const std::string& where) {
  if (centres.empty()) return;
  const BoxMatrix box = to_matrix(frame.box);
  // A bad box is reported where the frame's box is checked; the centres are then never counted.
  const BoxKind kind = box_problem(box).empty() ? classify_box(box) : BoxKind::none;
  const size_t atoms = 3 * static_cast<size_t>(natoms);
  frame.xyz.resize(atoms + 3 * centres.size());
  const int64_t bad = centres.compute(frame.xyz.data(), box, kind, frame.xyz.data() + atoms);
  if (bad == analysis::Centres::kNoBoxForCentre)
    throw InputError(where + "no box, so no box centre for a species 'point centre'");
  if (bad >= 0)
    throw InputError(where + "atom " + std::to_string(bad + 1) + " has a non-finite coordinate");
}

double frame_volume(const BoxMatrix& box, BoxKind kind, double length_factor, double volume) {
  if (kind != BoxKind::none) return box_volume(box) * length_factor * length_factor * length_factor;
  return volume > 0 ? volume : 0;  // the user's, already in their units
}

}  // namespace pairhist
