#include "drivers/job/surface_job.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>

#include "analysis/surface_distance.hpp"
#include "drivers/job/frame_handling.hpp"
#include "drivers/job/frame_source.hpp"
#include "drivers/job/job_inputs.hpp"
#include "drivers/job/run_definition.hpp"
#include "pairhist/errors.hpp"

namespace pairhist {
namespace {

/// The molecule or residue of every atom of the topology.
std::vector<int> unit_of_atoms(const analysis::Topology& top, const std::string& path,
                               SurfaceUnit unit) {
  if (unit == SurfaceUnit::residue) return analysis::residue_of_atoms(top, path, "-surf res");
  if (!top.molecule_index.empty()) return top.molecule_index;
  // gmx makes a topology of one molecule from a file that lists none: the nearest atom of the
  // whole reference, which it computes without a word. Said here, since it is seldom meant.
  std::fprintf(stderr,
               "pairhist rdf: note: %s states no molecules: -surf mol takes the whole reference "
               "as one surface, as gmx rdf does (a .tpr has the molecules)\n",
               path.c_str());
  return std::vector<int>(static_cast<size_t>(top.natoms()), 0);
}

/// The surface group of every reference atom: a new group wherever the unit changes along the
/// reference's atoms, as gmx numbers them; returns the number of groups.
int number_groups(const std::vector<int>& ref, const std::vector<int>& unit_of_atom,
                  std::vector<int>& group) {
  group.clear();
  int groups = 0, previous = -1;
  for (int a : ref) {
    const int u = unit_of_atom[static_cast<size_t>(a)];
    if (groups == 0 || u != previous) ++groups, previous = u;
    group.push_back(groups - 1);
  }
  return groups;
}

}  // namespace

SurfaceOutcome run_surface_job(JobOptions o, SurfaceUnit unit, int first_bin,
                               const std::vector<int>& count) {
  const auto t0 = std::chrono::steady_clock::now();
  const analysis::Topology top = load_job_topology(o);
  const RunDefinition run = define_run(o, top);
  for (const std::string& note : run.notes)
    std::fprintf(stderr, "pairhist: warning: %s\n", note.c_str());
  for (int a : run.atoms[0])
    if (a >= run.topology_atoms) throw UsageError("-surf needs a -ref of atoms, not of centres");
  const std::vector<int> unit_of_atom = unit_of_atoms(top, o.topology, unit);

  FrameSource source(o.trajectory, o.decode_threads,
                     FramePlan{o.first, o.last, o.step, o.begin_time, o.end_time, -1});
  if (source.natoms() != run.topology_atoms)
    throw InputError(o.trajectory + ": frame 0: " + std::to_string(source.natoms()) +
                     " atoms, but topology " + o.topology + " has " +
                     std::to_string(run.topology_atoms));
  SurfaceOutcome out;
  out.counts.resize(run.atoms.size());
  for (int s : count) out.counts[static_cast<size_t>(s)].assign(static_cast<size_t>(o.nbins), 0);
  io::TrajectoryFrame frame;
  int64_t index = 0;
  BoxKind kind = BoxKind::none;
  FrameSpecies species;
  std::vector<int> group;
  double groups_sum = 0;
  while (source.next(frame, index)) {
    const std::string where = o.trajectory + ": frame " + std::to_string(index) + ": ";
    // The selection reads the frame as the file holds it (-xy flattens only the distances).
    if (run.has_dynamic()) select_frame_species(run, frame, where, species);
    prepare_positions(run, frame, where);
    const BoxMatrix box = to_matrix(frame.box);
    if (out.frames == 0) {
      if (const std::string problem = box_problem(box); !problem.empty())
        throw InputError(where + problem);
      kind = classify_box(box);
    }
    try {
      check_frame_box(box, kind, run.options, run.r_max_nm, run.header.length_unit, where);
    } catch (const BoxKindWidens&) {
      // The surface distances take each frame's own box kind (analysis::SurfaceDistances): a
      // run's frames are counted alike whichever kind came first.
      kind = BoxKind::triclinic;
      check_frame_box(box, kind, run.options, run.r_max_nm, run.header.length_unit, where);
    }
    const auto& atoms = run.has_dynamic() ? species.atoms : run.atoms;
    const int groups = number_groups(atoms[0], unit_of_atom, group);
    groups_sum += groups;
    try {
      double max_abs = analysis::largest_coordinate(frame.xyz.data(), atoms[0]);
      for (int s : count)
        max_abs = std::max(
            max_abs, analysis::largest_coordinate(frame.xyz.data(), atoms[static_cast<size_t>(s)]));
      const analysis::SurfaceDistances surfaces(frame.xyz.data(), atoms[0], group, groups, box,
                                                run.r_max_nm, o.nbins, run.r_cut_nm, max_abs);
      for (int s : count)
        surfaces.count(frame.xyz.data(), atoms[static_cast<size_t>(s)], first_bin,
                       out.counts[static_cast<size_t>(s)].data());
    } catch (const std::domain_error& e) {
      throw InputError(where + e.what());
    }
    ++out.frames;
  }
  out.incomplete_frame = source.cut_short();
  if (out.frames == 0 && !out.incomplete_frame.empty()) throw InputError(out.incomplete_frame);
  if (out.frames == 0) throw InputError(o.trajectory + ": no frame to count (-b, -e, -dt)");
  out.mean_groups = groups_sum / static_cast<double>(out.frames);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace pairhist
