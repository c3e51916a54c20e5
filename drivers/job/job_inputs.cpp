#include "drivers/job/job_inputs.hpp"

#include <algorithm>

#include "analysis/selection.hpp"
#include "io/ndx_reader.hpp"
#include "io/topology_reader.hpp"
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

}  // namespace

analysis::Topology load_job_topology(JobOptions& o) {
  bool own_species = false;
  if (o.topology.empty()) {
    if (!io::carries_species(o.trajectory))
      throw UsageError(o.trajectory +
                       ": this trajectory format carries no atom names: give --top TOPOLOGY");
    o.topology = o.trajectory;
  }
  own_species = io::carries_species(o.topology);
  // The run's positions come from the trajectory.
  analysis::Topology top = io::read_topology(o.topology, io::TopologyContent::names);
  if (o.species.empty() && own_species) o.species = species_of_file(top, o.topology);
  return top;
}

std::vector<std::vector<int>> resolve_species(const JobOptions& o, const analysis::Topology& top) {
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
  std::vector<std::vector<int>> atoms;
  for (const auto& sp : o.species) {
    try {
      atoms.push_back(analysis::select_atoms(top, sp.selection, o.topology, served));
    } catch (const UsageError& e) {  // which species, where several are given
      throw UsageError("species " + sp.name + ": " + e.what());
    }
  }
  return atoms;
}

}  // namespace pairhist
