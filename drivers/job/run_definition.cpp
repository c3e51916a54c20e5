#include "drivers/job/run_definition.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "drivers/job/box_limit.hpp"
#include "drivers/job/engine_settings.hpp"
#include "drivers/job/frame_handling.hpp"
#include "drivers/job/job_inputs.hpp"
#include "drivers/job/length_units.hpp"
#include "pairhist/errors.hpp"

namespace pairhist {
namespace {

/// What pairhist.h5's sphere_centre says: "mass" or "geometry" (of the selection), "box" (each
/// frame's box centre) or "point X,Y,Z UNIT".
std::string sphere_centre_text(const JobOptions& o, const analysis::SphereCut& sphere) {
  if (sphere.box_centred()) return "box";
  if (sphere.fixed_point())
    return "point " + o.sphere_centre + " " + (o.units == "angstrom" ? "A" : o.units);
  return sphere.mass_weighted() ? "mass" : "geometry";
}

HistogramResult result_header(const RunDefinition& run) {
  const JobOptions& o = run.options;
  HistogramResult header;
  for (size_t s = 0; s < o.species.size(); ++s)
    header.species.push_back(
        {o.species[s].name, o.species[s].selection, static_cast<int64_t>(run.atoms[s].size())});
  header.r_max = o.r_max;
  header.nbins = o.nbins;
  header.r_min = o.r_min;
  header.length_unit = run.length_factor == 1.0 ? "nm" : "angstrom";
  header.precision = o.precision == Precision::single ? "single" : "double";
  header.norm = o.norm;
  header.exclude = o.exclude;
  for (size_t p = 0; p < run.pairs.size(); ++p)
    header.pairs.push_back(
        {run.pairs[p].first, run.pairs[p].second, {}, run.shared[p], run.exclusions.per_frame(p)});
  return header;
}

}  // namespace

std::vector<std::vector<uint64_t>> run_histograms(const RunDefinition& run,
                                                  std::vector<std::vector<uint64_t>> engine) {
  if (run.engine_pair.size() == engine.size()) return engine;  // every pair
  std::vector<std::vector<uint64_t>> counts;
  for (size_t e : run.engine_pair) counts.push_back(std::move(engine.at(e)));
  return counts;
}

void prepare_positions(const RunDefinition& run, io::TrajectoryFrame& frame,
                       const std::string& where) {
  append_centres(run.centres, run.topology_atoms, frame, where);
  if (!run.options.xy) return;
  // Images along a c with x or y components shift the plane's lattice too: gmx refuses them.
  if (frame.box[6] != 0 || frame.box[7] != 0)
    throw InputError(where +
                     "-xy needs a box whose third vector is along z (gmx rdf refuses this box "
                     "too: its images along c shift the x-y plane)");
  if (box_problem(to_matrix(frame.box)).empty()) frame.box = xy_box(frame.box);
  for (size_t i = 2; i < frame.xyz.size(); i += 3) frame.xyz[i] = 0;
}

RunDefinition define_run(JobOptions resolved, const analysis::Topology& topology) {
  RunDefinition run;
  run.options = std::move(resolved);
  const JobOptions& o = run.options;
  check_options(o);
  run.length_factor = length_factor(o.units);
  run.r_max_nm = o.r_max / run.length_factor;
  run.r_cut_nm = o.r_cut / run.length_factor;
  run.r_min_nm = o.r_min / run.length_factor;
  run.topology_atoms = topology.natoms();
  SpeciesPositions positions = resolve_species_positions(o, topology);
  run.atoms = std::move(positions.atoms);
  run.centres = std::move(positions.centres);
  run.notes = std::move(positions.notes);
  run.dynamic = std::move(positions.dynamic);
  if (analysis::parse_exclude_mode(o.exclude) != analysis::ExcludeMode::none)
    for (size_t s = 0; s < o.species.size(); ++s)
      if (!positions.centred[s].empty())
        throw UsageError(
            "exclusions (--exclude, gmx rdf's -excl) leave out pairs of atoms, and "
            "species " +
            o.species[s].name + " has " + positions.centred[s] + " positions");
  run.centred = std::move(positions.centred);
  run.pairs = selected_pairs(o);
  const auto all = species_pairs(static_cast<int>(run.atoms.size()));
  for (const auto& pair : run.pairs)
    run.engine_pair.push_back(
        static_cast<size_t>(std::find(all.begin(), all.end(), pair) - all.begin()));
  run.shared = analysis::count_shared_atoms(run.atoms, run.pairs);
  run.exclusions = analysis::PairExclusions(analysis::parse_exclude_mode(o.exclude), topology,
                                            o.topology, run.atoms, run.pairs);
  if (o.resume) {
    run.seed = *o.resume;
    const JobState& seed = run.seed;
    if (seed.open_counts.size() != run.pairs.size() ||
        (!seed.open_counts.empty() && seed.open_counts[0].size() != static_cast<size_t>(o.nbins)))
      throw InputError("the checkpoint holds " + std::to_string(seed.open_counts.size()) +
                       " histograms, this run has " + std::to_string(run.pairs.size()));
  }
  if (!o.sphere.empty()) {
    if (o.distributed.active())
      throw UsageError("--sphere runs in one process: leave out the distribution over ranks");
    if (run.has_dynamic())
      throw UsageError(
          "--sphere takes species of fixed atoms: the sphere already cuts them per frame (a "
          "within/around selection would cut them twice)");
    run.sphere = resolve_sphere(o, topology);
    // A shared atom's self pair is taken out of bin 0 once per frame, which a sphere that may
    // or may not hold the atom cannot know.
    for (uint64_t shared : run.shared)
      if (shared > 0)
        throw UsageError("--sphere needs species without shared atoms (each atom in one species)");
  }
  run.header = result_header(run);
  if (run.sphere.active()) {
    run.header.sphere = o.sphere;
    run.header.sphere_centre = sphere_centre_text(o, run.sphere);
    run.header.centre_bin_width = (o.r_max - o.r_min) / o.nbins;
    // The atoms' distances from the centre in the run's bin width, up to R: the excess
    // intensity's background term (drivers/cli/scattering_excess.cpp) sums them.
    const double width_nm = (o.r_max - o.r_min) / length_factor(o.units) / o.nbins;
    run.sphere.set_centre_bins(
        width_nm, std::max(1, static_cast<int>(std::ceil(run.sphere.radius_nm() / width_nm))));
  }
  // Parallel decoding threads also prepare the species' columns; the exclusions and
  // prepare_positions need whole frames.
  // A dynamic species' atoms are known only once its frame is: whole frames then.
  const bool prepared =
      !run.centres.empty() || o.xy || run.sphere.active();  // prepare_positions changes the frames
  if (!prepared && !run.has_dynamic()) run.preparation.species = run.atoms;
  run.preparation.whole_frame = !run.exclusions.empty() || prepared || run.has_dynamic();
  return run;
}

void select_frame_species(const RunDefinition& run, const io::TrajectoryFrame& frame,
                          const std::string& where, FrameSpecies& out) {
  const size_t n = run.atoms.size();
  out.atoms.resize(n);
  out.counts.assign(n, 0);
  const BoxMatrix box = to_matrix(frame.box);
  for (size_t s = 0; s < n; ++s) {
    if (run.dynamic[s]) {
      try {
        run.dynamic[s]->evaluate(frame.xyz.data(), box, out.atoms[s]);
      } catch (const std::domain_error& e) {
        throw InputError(where + "species " + run.options.species[s].name + ": " + e.what());
      }
    } else if (out.atoms[s].size() != run.atoms[s].size())
      out.atoms[s] = run.atoms[s];
    out.counts[s] = static_cast<int64_t>(out.atoms[s].size());
  }
  out.pairs.assign(run.pairs.size(), 0);
  out.shared.assign(run.pairs.size(), 0);
  for (size_t p = 0; p < run.pairs.size(); ++p) {
    const auto [a, b] = run.pairs[p];
    const auto& x = out.atoms[static_cast<size_t>(a)];
    const auto& y = out.atoms[static_cast<size_t>(b)];
    const auto na = static_cast<uint64_t>(x.size()), nb = static_cast<uint64_t>(y.size());
    if (a == b) {
      out.pairs[p] = na > 0 ? na * (na - 1) / 2 : 0;
      continue;
    }
    // Both lists ascending: the atoms in both, each a self pair the kernels count at 0.
    uint64_t both = 0;
    for (size_t i = 0, j = 0; i < x.size() && j < y.size();) {
      if (x[i] < y[j])
        ++i;
      else if (y[j] < x[i])
        ++j;
      else
        ++both, ++i, ++j;
    }
    out.shared[p] = both;
    out.pairs[p] = na * nb - both;
  }
}

}  // namespace pairhist
