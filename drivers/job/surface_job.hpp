// gmx rdf -surf (pairhist rdf -surf mol|res): per frame, the distance from every position of a
// selection to the nearest atom of each molecule or residue of the reference, binned.
//
// A frame loop of its own on the CPU, beside the engine's pipeline rather than in it: the
// engine counts pairs, and a surface distance is a minimum over a group's atoms taken before
// binning, which its kernels do not compute (analysis/surface_distance.hpp says why and how).
// The frames, selections, centres and -xy are those of a trajectory job (define_run,
// prepare_positions), so the positions are the ones `pairhist rdf` counts pairs of.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "drivers/job/trajectory_job.hpp"

namespace pairhist {

/// What a surface group of the reference is (gmx rdf -surf mol, res).
enum class SurfaceUnit { molecule, residue };

struct SurfaceOutcome {
  // Per species of the options: its positions' nearest distances to the reference's surface
  // groups, in o.nbins bins over [0, o.r_max), summed over the frames; empty for a species not
  // asked for.
  std::vector<std::vector<uint64_t>> counts;
  int64_t frames = 0;
  double mean_groups = 0;  // the reference's surface groups per frame, averaged over the frames
  double seconds = 0;
  std::string incomplete_frame;  // as JobOutcome's: the trajectory ends inside this frame
};

/// Runs over o's frames (as run_trajectory_job reads them: time window, frame step, -xy; nm
/// only), the reference being species 0, which must select atoms. Distances in bins below
/// `first_bin` are not counted (gmx rdf -cut). `count`: the species whose positions are
/// counted. A topology without molecules (anything but a .tpr) is one molecule, as gmx reads
/// such a file. Throws UsageError / InputError as a trajectory job does.
SurfaceOutcome run_surface_job(JobOptions o, SurfaceUnit unit, int first_bin,
                               const std::vector<int>& count);

}  // namespace pairhist
