#include "drivers/cli/convert_command.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "drivers/job/job_inputs.hpp"
#include "io/common/input_path.hpp"
#include "io/common/output_paths.hpp"
#include "io/topology/gro_writer.hpp"
#include "io/topology/topology_reader.hpp"
#include "io/trajectory/cadishi_writer.hpp"
#include "io/trajectory/trajectory_reader.hpp"
#include "io/xtc/xtc_writer.hpp"
#include "pairhist/errors.hpp"

namespace pairhist {
namespace {

struct ConvertArgs {
  std::string input, output, topology;
  std::vector<std::string> species;
  int64_t first = 0, last = -1, step = 1;
  float precision = 1000;
  bool quiet = false;
  bool overwrite = false;
};

std::string lower_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

void convert(const ConvertArgs& a) {
  const std::string ext = lower_extension(a.output);
  const bool to_cadishi = ext == ".h5" || ext == ".hdf5" || ext == ".hdf";
  if (!to_cadishi && ext != ".xtc")
    throw UsageError("output " + a.output +
                     ": unknown format (.h5/.hdf5 for CADISHI's layout, or .xtc)");
  if (a.step <= 0) throw UsageError("--step must be positive");
  if (a.first < 0) throw UsageError("--first must be >= 0");
  for (const auto& f : {a.input, a.topology})
    if (!f.empty()) io::require_input_file(f);

  JobOptions o;
  o.trajectory = a.input;
  o.topology = a.topology;
  for (const auto& s : a.species) o.species.push_back(parse_species(s));
  if (!o.species.empty() && o.topology.empty() && !io::carries_species(o.trajectory))
    throw UsageError("--species needs --top for " + o.trajectory);
  const bool have_topology = !o.topology.empty() || io::carries_species(o.trajectory);
  // The atom order changed (species grouped) or the input had no topology file (its atoms' names
  // are its own, load_job_topology()): a .gro beside the XTC lets `pairhist run OUT.xtc --top
  // OUT.gro` find the species again.
  const bool own_names = o.topology.empty() || o.topology == o.trajectory;
  const std::string gro = !to_cadishi && have_topology && (!a.species.empty() || own_names)
                              ? std::filesystem::path(a.output).replace_extension(".gro").string()
                              : "";
  io::CommandFiles files;
  files.read(a.input, "the input " + a.input);
  files.read(a.topology, "--top " + a.topology);
  files.write(a.output, "the output " + a.output);
  files.write(gro, "the output " + gro + " (the atoms' names)");
  files.check(a.overwrite);

  // Which atoms go out, grouped by species; without species (XTC only) all of them.
  std::vector<std::string> names;
  std::vector<std::vector<int>> atoms;
  analysis::Topology top;
  if (have_topology) {
    top = load_job_topology(o);
    atoms = resolve_species(o, top, "pairhist convert");
    for (const auto& s : o.species) names.push_back(s.name);
  }
  if (to_cadishi && names.empty())
    throw UsageError("CADISHI's layout stores species: give --top and --species NAME=SELECTION");

  const auto reader = io::open_trajectory(o.trajectory);
  if (have_topology && reader->natoms() != top.natoms())
    throw InputError(o.trajectory + ": frame 0: " + std::to_string(reader->natoms()) +
                     " atoms, but topology " + o.topology + " has " + std::to_string(top.natoms()));
  std::vector<int> order;  // atoms in output order
  if (atoms.empty()) {
    for (int i = 0; i < reader->natoms(); ++i) order.push_back(i);
  } else {
    for (const auto& s : atoms) order.insert(order.end(), s.begin(), s.end());
  }

  std::unique_ptr<io::CadishiWriter> cadishi;
  std::unique_ptr<io::XtcWriter> xtc;
  if (to_cadishi)
    cadishi = std::make_unique<io::CadishiWriter>(a.output, names, atoms);
  else
    xtc = std::make_unique<io::XtcWriter>(a.output, static_cast<int>(order.size()), a.precision);

  io::TrajectoryFrame frame, out;
  analysis::Topology written;  // names and first frame of the written atoms, for the .gro
  int64_t index = -1, frames = 0;
  while (reader->next(frame)) {
    ++index;
    if (a.last >= 0 && index > a.last) break;
    if (index < a.first || (index - a.first) % a.step != 0) continue;
    if (cadishi) {
      cadishi->write(index + 1, frame);  // CADISHI numbers frames from 1
    } else {
      out.step = frame.step;
      out.time = frame.time;
      out.box = frame.box;
      out.xyz.resize(3 * order.size());
      for (size_t i = 0; i < order.size(); ++i)
        for (size_t d = 0; d < 3; ++d) out.xyz[3 * i + d] = frame.xyz[3 * order[i] + d];
      if (out.step < INT32_MIN || out.step > INT32_MAX)
        throw InputError(o.trajectory + ": frame " + std::to_string(index) + ": step " +
                         std::to_string(out.step) + " does not fit XTC's 32-bit step field");
      xtc->write(out);
      if (frames == 0 && have_topology) {
        for (int i : order) written.atom_names.push_back(top.atom_names[static_cast<size_t>(i)]);
        written.residue_names.assign(order.size(), std::string());
        written.residue_numbers.assign(order.size(), 0);
        written.xyz = out.xyz;
        written.box = out.box;
        written.title = "pairhist convert " + a.input;
      }
    }
    ++frames;
  }
  if (frames == 0)
    throw InputError(o.trajectory + ": no frame selected (the file has " +
                     std::to_string(index + 1) + " frames)");
  if (cadishi) {
    cadishi->close();
  } else {
    xtc->close();
    if (!gro.empty()) io::write_gro(gro, written);
  }
  if (!a.quiet) {
    std::printf("pairhist convert: %s -> %s%s%s: %lld frames, %zu atoms", a.input.c_str(),
                a.output.c_str(), gro.empty() ? "" : " + ", gro.c_str(),
                static_cast<long long>(frames), order.size());
    if (!names.empty()) {
      std::printf(", species");
      for (size_t s = 0; s < names.size(); ++s)
        std::printf(" %s=%zu", names[s].c_str(), atoms[s].size());
    }
    std::printf("\n");
  }
}

}  // namespace

void add_convert_command(CLI::App& app) {
  auto args = std::make_shared<ConvertArgs>();
  CLI::App* cmd = app.add_subcommand(
      "convert",
      "Convert a trajectory into CADISHI's HDF5 input layout (OUT.h5) or into XTC (OUT.xtc)");
  cmd->add_option("input", args->input, "Any trajectory `pairhist run` reads")->required();
  cmd->add_option("output", args->output,
                  ".h5/.hdf5: CADISHI layout (species from --species, Angstrom, float64); .xtc: "
                  "XTC (the selected species' atoms, or all atoms), with a .gro beside it when "
                  "atoms were regrouped by species")
      ->required();
  cmd->add_option("--top,-s", args->topology, "Topology with atom names, as for run");
  cmd->add_option("--species", args->species,
                  "NAME=SELECTION, repeatable, as for run (default for CADISHI input: its "
                  "species)");
  cmd->add_option("--first", args->first, "First frame (0-based)")->capture_default_str();
  cmd->add_option("--last", args->last, "Last frame, inclusive (-1: end)")->capture_default_str();
  cmd->add_option("--step", args->step, "Use every step-th frame")->capture_default_str();
  cmd->add_option("--xtc-precision", args->precision, "XTC precision (steps per nm)")
      ->capture_default_str();
  cmd->add_flag("-q,--quiet", args->quiet, "No summary line");
  cmd->add_flag("--overwrite", args->overwrite,
                "Replace existing output files without keeping a backup #NAME.N# (default: kept, "
                "as GROMACS does)");
  cmd->callback([args]() { convert(*args); });
}

}  // namespace pairhist
