// The pieces of a trajectory job around its frame loop (drivers/job/trajectory_pipeline.cpp):
// checks of the options and of each frame, the engine's configuration, the feeding plan, and the
// one place frames reach the engine.
#pragma once

#include <string>
#include <vector>

#include "analysis/exclusions.hpp"
#include "analysis/positions.hpp"
#include "drivers/job/job_accumulator.hpp"
#include "drivers/job/trajectory_job.hpp"
#include "io/trajectory/trajectory_reader.hpp"
#include "io/xtc/xtc_parallel_reader.hpp"
#include "pairhist/engine.hpp"

namespace pairhist {

/// Length units per nm of `units` (nm: 1, angstrom: 10); UsageError for others.
double length_factor(const std::string& units);
std::string format_length(double v, const std::string& unit);
/// UsageError for options no run can have.
void check_options(const JobOptions& o);
BoxMatrix to_matrix(const std::array<float, 9>& box);
/// The species pairs o.pairs names, in species_pairs() order: every pair when o.pairs is empty.
/// UsageError for a name that is no species, or a pair named twice.
std::vector<std::pair<int, int>> selected_pairs(const JobOptions& o);
EngineConfig engine_config(const JobOptions& o, const std::vector<std::vector<int>>& atoms,
                           BoxKind kind, double r_max_nm);

/// Sizes the decoding threads, the CPU workers and the frames in flight from the first frame
/// (tasks/feeding_plan.hpp): how long a thread took to prepare it against how long the GPUs and
/// a core will need for it. The user's --ncpu, --decode-threads, --frames-in-flight and
/// --memory-budget stand; the rest is planned around them. PAIRHIST_FEEDING=legacy plans as
/// before issue 24 (legacy_feeding), for A/B measurements.
/// `hands_over`: the frames' columns go to the engine without a copy (submit_to_engine), so the
/// feeding thread leaves its core to decoding.
bool legacy_feeding();
void plan_reading(io::XtcParallelReader& reader, const JobOptions& o, EngineConfig& config,
                  const io::TrajectoryFrame& frame, const std::vector<std::vector<int>>& atoms,
                  const BoxMatrix& box, bool hands_over, JobOutcome& out);

/// InputError (naming the frame by `where`, "FILE: frame K: ") when a frame cannot be counted
/// in a run of box kind `kind`: a bad box, one of another kind, r_max beyond its minimum-image
/// limit, a triclinic box too skewed.
void check_frame_box(const BoxMatrix& box, BoxKind kind, const JobOptions& o, double r_max_nm,
                     const std::string& unit, const std::string& where);

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

/// The volume g(r) normalises a frame by, in the user's units^3: its box's, or without a box
/// --volume (0: none).
double frame_volume(const BoxMatrix& box, BoxKind kind, double length_factor, double volume);

/// The bins of each frame's excluded pairs that the kernels count, in buffers kept from frame to
/// frame: the exclusions need the species' coordinates as the engine got them.
class FrameExclusions {
 public:
  FrameExclusions(const analysis::PairExclusions& exclusions,
                  const std::vector<std::vector<int>>& atoms, size_t npairs, int nbins);
  /// `frame`'s bins (empty without exclusions), for a run of box kind `kind`. A frame of
  /// dynamic species passes its atoms (`frame_atoms`, each species a subset of `atoms`): only
  /// the excluded pairs of atoms it selects count, and their number per pair, at any distance,
  /// is subtracted from `frame_pairs` (the frame's pairs, as select_frame_species made them).
  SparseBins bins_of(const io::TrajectoryFrame& frame, const BoxMatrix& box, BoxKind kind,
                     double r_max_nm, Precision precision,
                     const std::vector<std::vector<int>>* frame_atoms = nullptr,
                     std::vector<uint64_t>* frame_pairs = nullptr);

 private:
  void flag_selected(const std::vector<std::vector<int>>& frame_atoms);

  const analysis::PairExclusions& exclusions_;
  const std::vector<std::vector<int>>& atoms_;
  int nbins_;
  std::vector<std::vector<float>> species_xyz_;
  std::vector<const float*> species_ptr_;
  std::vector<std::vector<uint64_t>> bins_;     // per pair, all 0 between frames
  std::vector<std::vector<uint8_t>> selected_;  // per species, per atom of atoms_: in this frame
  std::vector<uint64_t> left_out_;              // per pair: this frame's excluded pairs
};

/// The engine's report, its workers and the pairs it examined for `whole_frames` frames.
void describe_engine(const HistogramEngine& engine, uint64_t whole_frames, JobOutcome& out);

}  // namespace pairhist
