// `pairhist rdf`'s counting (drivers/cli/rdf_command.cpp): its bins, and each -sel's counts from
// the engine's pair histograms or, with -surf, from the surface job (drivers/job/surface_job.hpp),
// folded into the half-width bins that gmx rdf's rows are made of (analysis/gmx_rdf.hpp).
#pragma once

#include <string>
#include <vector>

#include "analysis/gmx_rdf.hpp"
#include "analysis/positions.hpp"
#include "drivers/job/surface_job.hpp"
#include "drivers/job/trajectory_job.hpp"

namespace pairhist {

/// What the arguments of `pairhist rdf` ask for, checked.
struct RdfRequest {
  JobOptions job;  // files, frames, -excl, -xy; species (define_species) and bins (choose_bins)
  std::string ref;
  std::vector<std::string> sels;
  double bin = 0.002;
  double rmax = 0;  // 0: from the box
  double cut = 0;   // gmx rdf -cut: distances up to it are not counted
  bool surface = false;
  SurfaceUnit surface_unit = SurfaceUnit::molecule;  // with surface
  analysis::GmxNorm norm = analysis::GmxNorm::rdf;
  std::string norm_text;
  analysis::PositionType seltype;
  bool headers = true;  // -xvg xmgrace
  std::string out_rdf, out_cn;
  // choose_bins: the job's bins per half of -bin, and the first of them counted (-cut)
  int split = 1;
  int first_bin = 0;
};

/// The job's bins: half-width bins up to gmx's last edge (every row gmx writes is a sum of
/// whole ones), each split so that -cut falls on an edge. UsageError for an -rmax, -bin and
/// -cut that give no such bins.
void choose_bins(RdfRequest& q);

/// What gmx rdf normalises, per -sel.
struct RdfCounts {
  std::vector<std::vector<double>> half_counts;  // ordered pairs per half-bin, all frames
  double frames = 0;
  double ref_count = 0;             // reference positions per frame (-surf: surface groups)
  std::vector<double> sel_density;  // selection positions per volume, averaged over the frames
  double seconds = 0;
  std::string incomplete_frame;  // the trajectory ends inside this frame (JobOutcome's)
};

/// The pairs of the reference and each -sel (`species_of_sel`), from the engine.
RdfCounts count_pairs(const RdfRequest& q, const std::vector<int>& species_of_sel);
/// -surf: each -sel's positions' distances to the reference's surface groups.
RdfCounts count_surfaces(const RdfRequest& q, const std::vector<int>& species_of_sel);

}  // namespace pairhist
