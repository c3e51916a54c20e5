#include "drivers/job/job_inputs.hpp"

#include <algorithm>
#include <exception>
#include <string>

#include "analysis/atom_masses.hpp"
#include "analysis/selection.hpp"
#include "drivers/job/length_units.hpp"
#include "io/topology/ndx_reader.hpp"
#include "io/topology/topology_reader.hpp"
#include "io/trajectory/trajectory_reader.hpp"
#include "io/trajectory/trajectory_topology.hpp"
#include "pairhist/errors.hpp"

namespace pairhist {

namespace {

/// One species per run of equal atom names (CADISHI files store species contiguously), selected
/// by atom index so that any species name works, glob characters included.
std::vector<SpeciesSpec> species_of_file(const analysis::Topology& top, const std::string& path) {
  std::vector<SpeciesSpec> out;
  int begin = 0;
  for (int i = 1; i <= top.natoms(); ++i) {
    if (i < top.natoms() &&
        top.atom_names[static_cast<size_t>(i)] == top.atom_names[static_cast<size_t>(begin)])
      continue;
    const std::string& name = top.atom_names[static_cast<size_t>(begin)];
    for (const auto& s : out)
      if (s.name == name)
        throw InputError(path + ": species " + name + " is not stored contiguously");
    out.push_back({name, "index " + std::to_string(begin + 1) + "-" + std::to_string(i)});
    begin = i;
  }
  return out;
}

/// The atoms of the trajectory's first frame, without names or residues (as the XYZ reader
/// leaves residues): what an index file's groups select from.
analysis::Topology unnamed_atoms(const std::string& trajectory) {
  const auto natoms = static_cast<size_t>(io::open_trajectory(trajectory)->natoms());
  analysis::Topology top;
  top.atom_names =
      analysis::NameColumn({std::string()}, std::vector<analysis::NameColumn::Id>(natoms, 0));
  top.residue_names = top.atom_names;
  top.residue_numbers.assign(natoms, 0);
  return top;
}

}  // namespace

analysis::Topology load_job_topology(JobOptions& o) {
  bool own_species = false;
  if (o.topology.empty() && o.unnamed_atoms) return unnamed_atoms(o.trajectory);
  if (o.topology.empty()) {
    if (!io::carries_species(o.trajectory))
      throw UsageError(o.trajectory +
                       ": this trajectory format carries no atom names: give --top TOPOLOGY");
    o.topology = o.trajectory;
  }
  own_species = io::carries_species(o.topology);
  io::state_trajectory_topology(o.trajectory, o.topology);  // an .mdcrd's atom count
  // The run's positions come from the trajectory.
  analysis::Topology top = io::read_topology(o.topology, io::TopologyContent::names);
  if (o.species.empty() && own_species) o.species = species_of_file(top, o.topology);
  return top;
}

SpeciesPositions resolve_species_positions(const JobOptions& o, const analysis::Topology& top) {
  // `group NAME` takes the index file's groups; without one, the topology's own default groups
  // (a .tpr's, as gmx make_ndx offers them), which cost a second reading, so only on demand.
  analysis::IndexGroups groups;
  const analysis::IndexGroups* served = nullptr;
  if (!o.index_file.empty()) {
    groups = io::read_ndx(o.index_file, top.natoms());
    served = &groups;
  } else if (std::any_of(
                 o.species.begin(), o.species.end(),
                 [](const SpeciesSpec& sp) { return analysis::uses_groups(sp.selection); }) &&
             io::has_default_groups(o.topology)) {
    groups = io::read_default_groups(o.topology);
    served = &groups;
  }
  std::vector<analysis::PositionSelection> split;
  std::vector<std::vector<int>> selected;
  std::vector<std::shared_ptr<const analysis::Selection>> dynamic;
  std::vector<int> weighed;  // atoms of centres of mass: their masses are needed
  // Every species' usage error at once, one line each (naming the species); bad input (a
  // selection that matches nothing) only where there is none, the first.
  std::string problems;
  std::exception_ptr bad_input;
  for (const auto& sp : o.species) {
    try {
      split.push_back(analysis::split_position_type(sp.selection));
      if (split.back().point != analysis::PointKind::none) {  // no atoms: a position of its own
        selected.emplace_back();
        dynamic.push_back(nullptr);
        continue;
      }
      auto parsed = std::make_shared<analysis::Selection>(
          analysis::parse_selection(top, split.back().atoms_text, o.topology, served));
      // A static selection is not kept: its atoms are moved out, not copied (11M atoms).
      selected.push_back(parsed->dynamic() ? parsed->superset() : parsed->take_superset());
      dynamic.push_back(parsed->dynamic() ? std::move(parsed) : nullptr);
      if (dynamic.back() && !split.back().type.is_atom())
        throw UsageError(analysis::position_type_name(split.back().type) +
                         " positions of a dynamic selection (within/around) are not supported");
    } catch (const UsageError& e) {  // which species, where several are given
      problems += (problems.empty() ? "" : "\n") + ("species " + sp.name + ": " + e.what());
      continue;
    } catch (const InputError&) {
      if (!bad_input) bad_input = std::current_exception();
      continue;
    }
    if (!problems.empty() || bad_input) continue;
    if (split.back().type.mass_weighted) {
      const std::vector<int> used =
          analysis::centre_atoms(top, o.topology, split.back().type, selected.back());
      weighed.insert(weighed.end(), used.begin(), used.end());
    }
  }
  if (!problems.empty()) throw UsageError(problems);
  if (bad_input) std::rethrow_exception(bad_input);
  SpeciesPositions out;
  out.dynamic = std::move(dynamic);
  analysis::AtomMasses masses;
  if (!weighed.empty()) {
    masses = analysis::atom_masses(top, weighed, o.topology);
    if (!masses.guesses.empty()) {
      std::string list;
      for (const auto& g : masses.guesses) list += (list.empty() ? "" : ", ") + g;
      out.notes.push_back(o.topology + " has no masses: centres of mass weigh atoms by the " +
                          "element guessed from their names (" + list + ")");
    }
  }
  for (size_t s = 0; s < o.species.size(); ++s) {
    if (split[s].point != analysis::PointKind::none) {
      std::array<double, 3> nm = split[s].point_xyz;
      for (double& v : nm) v /= length_factor(o.units);
      out.atoms.push_back({out.centres.add_point(
          top.natoms(), split[s].point == analysis::PointKind::box_centre, nm)});
      out.centred.push_back("point");
      continue;
    }
    try {
      out.atoms.push_back(
          out.centres.add(top, o.topology, split[s].type, selected[s], masses.mass));
    } catch (const UsageError& e) {
      throw UsageError("species " + o.species[s].name + ": " + e.what());
    }
    out.centred.push_back(split[s].type.is_atom() ? ""
                                                  : analysis::position_type_name(split[s].type));
  }
  return out;
}

analysis::SphereCut resolve_sphere(const JobOptions& o, const analysis::Topology& top) {
  const analysis::SphereOption sphere = analysis::parse_sphere_option(o.sphere);
  const analysis::SphereCentre centre = analysis::parse_sphere_centre(o.sphere_centre);
  const double factor = length_factor(o.units);
  if (!centre.of_selection()) {
    if (!sphere.selection.empty())
      throw UsageError("--sphere '" + o.sphere + "' names a selection, but --sphere-centre " +
                       o.sphere_centre + " does not use one: give --sphere R alone");
    const double point[3] = {centre.point[0] / factor, centre.point[1] / factor,
                             centre.point[2] / factor};
    return analysis::SphereCut(point, centre.kind == analysis::SphereCentreKind::box,
                               sphere.radius / factor);
  }
  if (sphere.selection.empty())
    throw UsageError("--sphere '" + o.sphere +
                     "': give SELECTION,R (the centre is the selection's), or --sphere-centre "
                     "box or X,Y,Z");
  analysis::IndexGroups groups;
  const analysis::IndexGroups* served = nullptr;
  if (!o.index_file.empty()) {
    groups = io::read_ndx(o.index_file, top.natoms());
    served = &groups;
  } else if (analysis::uses_groups(sphere.selection) && io::has_default_groups(o.topology)) {
    groups = io::read_default_groups(o.topology);
    served = &groups;
  }
  std::vector<int> solute;
  try {
    solute = analysis::select_atoms(top, sphere.selection, o.topology, served);
  } catch (const UsageError& e) {
    throw UsageError(std::string("--sphere: ") + e.what());
  } catch (const InputError& e) {
    throw InputError(std::string("--sphere: ") + e.what());
  }
  std::vector<double> masses;
  const bool have_masses = top.masses.size() == static_cast<size_t>(top.natoms());
  if (centre.kind == analysis::SphereCentreKind::mass && !have_masses)
    throw UsageError("--sphere-centre mass: " + o.topology +
                     " states no masses (a .tpr does); use --sphere-centre geometry");
  if (have_masses && centre.kind != analysis::SphereCentreKind::geometry) {
    for (int atom : solute) masses.push_back(top.masses[static_cast<size_t>(atom)]);
    if (std::all_of(masses.begin(), masses.end(), [](double m) { return m == 0; }))
      throw UsageError("--sphere: the atoms of '" + sphere.selection + "' weigh nothing in " +
                       o.topology);
  }
  return analysis::SphereCut(std::move(solute), std::move(masses), sphere.radius / factor);
}

void require_fixed_atoms(const std::vector<SpeciesSpec>& species,
                         const std::vector<std::shared_ptr<const analysis::Selection>>& dynamic,
                         const std::vector<std::string>& centred, const std::string& command) {
  for (size_t s = 0; s < species.size(); ++s)
    if (dynamic[s])
      throw UsageError("species " + species[s].name + ": " + command +
                       " takes a fixed selection, and within/around changes from frame to frame");
  for (size_t s = 0; s < species.size(); ++s)
    if (!centred[s].empty())
      throw UsageError("species " + species[s].name + ": " + command + " takes atoms, not " +
                       centred[s] + " positions");
}

std::vector<std::vector<int>> resolve_species(const JobOptions& o, const analysis::Topology& top,
                                              const std::string& command) {
  SpeciesPositions positions = resolve_species_positions(o, top);
  require_fixed_atoms(o.species, positions.dynamic, positions.centred, command);
  return std::move(positions.atoms);
}

}  // namespace pairhist
