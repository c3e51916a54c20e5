// What a job reads before any frame: the topology (from --top, or the trajectory itself when it
// carries species) and the atoms of every species. Shared by `run` and `convert`.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "analysis/positions.hpp"
#include "analysis/selection_tree.hpp"
#include "analysis/sphere_cut.hpp"
#include "drivers/job/trajectory_job.hpp"
#include "io/topology/gro_reader.hpp"

namespace pairhist {

/// The job's topology: o.topology, or, when that is empty and the trajectory carries its own
/// species (CADISHI HDF5), the trajectory (o.topology is then set to it). With no species
/// given and a species-carrying topology, o.species becomes every species of the file, named as
/// in the file. Throws UsageError when a topology is needed but missing.
analysis::Topology load_job_topology(JobOptions& o);

/// The positions of every species: atom indices, and for a species of centres ("res_com of
/// resname SOL", analysis/positions.hpp) indices from top.natoms() on into `centres`, whose
/// coordinates the job appends to each frame's atoms (append_centres, frame_handling.hpp).
struct SpeciesPositions {
  std::vector<std::vector<int>> atoms;  // of every species
  std::vector<std::string> centred;     // per species: its position type, "" for atoms
  analysis::Centres centres;
  std::vector<std::string> notes;  // for the user: masses guessed from atom names
  // Per species: its selection where it is dynamic (within/around; atoms then holds every atom
  // it may select), else null.
  std::vector<std::shared_ptr<const analysis::Selection>> dynamic;
};

/// Positions of every species (selections may name --index groups, or without --index a
/// .tpr topology's default groups). Species may share atoms
/// (see PairHistogram): the kernels then pair a shared atom with itself at distance 0, which the
/// job takes out of bin 0 again; equal centres are one position too.
SpeciesPositions resolve_species_positions(const JobOptions& o, const analysis::Topology& top);

/// The sphere of --sphere SELECTION,R (o.sphere not empty): the selection's atoms, their masses
/// where the topology states them (a .tpr: the centre of mass) or none (the centre of geometry;
/// the run's summary and pairhist.h5 say which), the radius in nm. UsageError / InputError as for
/// a species' selection, naming --sphere.
analysis::SphereCut resolve_sphere(const JobOptions& o, const analysis::Topology& top);

/// UsageError naming `command`, which takes fixed atoms, for the first species (of `species`,
/// with `dynamic` and `centred` as SpeciesPositions has them) that is dynamic, else for the first
/// of centres.
void require_fixed_atoms(const std::vector<SpeciesSpec>& species,
                         const std::vector<std::shared_ptr<const analysis::Selection>>& dynamic,
                         const std::vector<std::string>& centred, const std::string& command);

/// Atom indices of every species, for commands that take atoms only (UsageError for a species
/// of centres, naming `command`).
std::vector<std::vector<int>> resolve_species(const JobOptions& o, const analysis::Topology& top,
                                              const std::string& command);

}  // namespace pairhist
