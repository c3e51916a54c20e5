// What happens to each frame between the reader and the engine
// (drivers/job/trajectory_pipeline.cpp): its box checked against the run's, its volume, the centres
// appended to its atoms, and the one place its atoms reach the engine.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/positions.hpp"
#include "drivers/job/run_spec.hpp"
#include "io/trajectory/trajectory_reader.hpp"
#include "pairhist/engine.hpp"

namespace pairhist {

/// A frame's box rows (TrajectoryFrame::box) as the engine takes them.
BoxMatrix to_matrix(const std::array<float, 9>& box);

/// A frame whose box is of a more general periodic kind than the run's (triclinic, however
/// slightly, in an orthorhombic run): the run is counted again as triclinic from its first frame
/// (run_trajectory_job), so that its counts are those of a run whose boxes were all triclinic.
/// Its message says which frame and box, for the warning.
class BoxKindWidens : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A frame whose box is too small for r_max (beyond its minimum-image limit) in a run that counts
/// the minimum image only: the run is counted again from its first frame with every periodic
/// image (run_trajectory_job), as a run whose first box had been too small.
class ImagesNeeded : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// InputError (naming the frame by `where`, "FILE: frame K: ") when a frame cannot be counted
/// in a run of box kind `kind`: a bad box, a periodic and a non-periodic box in one run; without
/// `images` r_max beyond its minimum-image limit (ImagesNeeded where `can_count_images`, else
/// InputError) and a triclinic box too skewed; BoxKindWidens for a triclinic box in an
/// orthorhombic run. With `images` (every periodic image counted) any r_max and skew will do.
void check_frame_box(const BoxMatrix& box, BoxKind kind, const RunSpec& o, double r_max_nm,
                     const std::string& unit, const std::string& where, bool images = false,
                     bool can_count_images = false);

/// The volume g(r) normalises a frame by, in the user's units^3: its box's, or without a box
/// --volume (0: none).
double frame_volume(const BoxMatrix& box, BoxKind kind, double length_factor, double volume);

/// The one place frames reach the engine: the selected atoms' columns the decoding thread
/// gathered when there are any, else the engine picks them from the whole frame. A non-finite
/// coordinate of a selected atom is refused (`where` names file and frame): such a pair would
/// land in no bin and silently vanish from the counts. With `hand_over` the engine may take the
/// columns without a copy (single precision), leaving in `frame` buffers for a later frame
/// (frame.columns.filled is then false): only for a frame not submitted again, which a unit
/// that is a part of a frame may be (the next unit can be another part of it).
void submit_to_engine(HistogramEngine& engine, io::TrajectoryFrame& frame,
                      const std::vector<std::vector<int>>& atoms, const BoxMatrix& box,
                      const std::string& where, bool hand_over);

/// Puts the positions of `centres` after the `natoms` atoms of `frame` (frame.xyz then holds
/// natoms + centres.size() positions; again from the atoms when the same frame comes twice), each
/// residue or molecule made whole in the frame's box. InputError (`where` names file and frame)
/// for an atom of a centre with a non-finite coordinate.
void append_centres(const analysis::Centres& centres, int natoms, io::TrajectoryFrame& frame,
                    const std::string& where);

}  // namespace pairhist
