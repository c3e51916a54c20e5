// What a trajectory run is (drivers/job/trajectory_job.hpp): the trajectory and its topology,
// the frames chosen, the species and pairs, the histogram and its precision, the outputs' blocks,
// and how the machine runs it. Everything a run's identity, checks and engine settings read;
// none of the caller's callbacks.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "pairhist/engine.hpp"

namespace pairhist {

struct SpeciesSpec {
  std::string name;
  std::string selection;  // atom-name globs or an expression (analysis/selection.hpp)
};

struct RunSpec {
  std::string trajectory;            // any format open_trajectory reads
  std::string topology;              // empty: the trajectory's own species (CADISHI HDF5)
  std::vector<SpeciesSpec> species;  // empty with a CADISHI file: every species of the file
  // The species pairs counted, as "A-B" (species names); empty: every pair A <= B. A pair left
  // out never becomes a task and is absent from the result.
  std::vector<std::string> pairs;
  double r_max = 0;  // in `units`: the last bin's upper edge
  int nbins = 0;     // equal parts of [r_min, r_max)
  double r_min = 0;  // in `units`: the first bin's lower edge; pairs closer are not counted
  // Pairs at r >= r_cut are not counted (in `units`; 0: r_max). Inside the last bin it leaves
  // that bin partial: the r_max a user gave that is not a multiple of the bin width.
  double r_cut = 0;
  std::string units = "nm";  // nm | angstrom
  Precision precision = Precision::single;
  int64_t first = 0;  // frame selection: first, last (inclusive; -1 = end), step
  int64_t last = -1;
  int64_t step = 1;
  // Time window in ps (gmx -b/-e): frames outside it are skipped; NaN: no bound. Applied before
  // first/last/step, which count frame indices in the file.
  double begin_time = std::numeric_limits<double>::quiet_NaN();
  double end_time = std::numeric_limits<double>::quiet_NaN();
  // Without a topology: the trajectory's atoms, unnamed, selected only through the index file's
  // groups (`pairhist rdf -f traj.xtc -n index.ndx`, as gmx's tools take it without -s).
  bool unnamed_atoms = false;
  std::string scheduler;
  bool whole_frames = false;  // --schedule static: one task per frame (CADISHI's design)
  int ncpu = -1;
  int ncuda = -1;
  int frames_in_flight = 0;        // 0: as many as memory_budget_mib allows (2..64)
  uint64_t memory_budget_mib = 0;  // as EngineConfig::memory_budget_bytes; 0: the feeding plan's
                                   // (the engine's 64 MiB, more for GPUs on a node with memory)
  bool sum_tasks = false;      // explicit sum tasks instead of StarPU REDUX (run --reduction sum)
  int reserve_cores = -1;      // cores kept free of CPU workers; -1: one when GPUs are fed
  uint64_t task_pairs = 0;     // row tile size; 0: the decomposition policy's choice
  bool lp_bound = false;       // compute StarPU's LP lower bound of the makespan
  bool lp_bound_text = false;  // with lp_bound: keep StarPU's LP (RunActivity::lp_text)
  int decode_threads = 0;      // XTC frames decoded in parallel; 0: automatic, 1: serial
  Algorithm algorithm = Algorithm::automatic;  // how pairs are found (engine.hpp)
  int cell_reach = 0;                          // cell lists: 0 = default
  std::string cell_order;                      // cell lists: empty = default
  bool cell_prune = false;                     // cell lists: per-point pruning (CPU)
  double volume = 0;  // for trajectories without a box: the volume g(r) is normalised by (units^3)
  // gmx rdf -xy: distances in the x-y plane only (every position's z and the box's c vector
  // replaced, flatten_xy), and each frame's "volume" its box's x-y area (units^2).
  bool xy = false;
  // --sphere SELECTION,R (analysis/sphere_cut.hpp): per frame only the atoms within R (--units)
  // of the selection's centre, counted without a box. Empty: the whole frames.
  std::string sphere;
  // --sphere-centre (analysis::parse_sphere_centre): mass, geometry, box or X,Y,Z; empty: the
  // selection's centre of mass where the topology has masses, else of geometry.
  std::string sphere_centre;
  std::string index_file;         // GROMACS .ndx serving `group NAME` selections; may be empty
  std::string exclude = "none";   // none | residue: same-residue pairs are not counted
  std::string norm = "rdf";       // rdf | density | none (analysis/rdf.hpp)
  int64_t interval = 0;           // frames per output block (CADISHI's `sum`); 0: the whole run
  bool reading_timeline = false;  // JobMeasurements::reading_timeline (an XTC read by threads)
};

/// Parses a `--species NAME=SELECTION` value.
SpeciesSpec parse_species(const std::string& text);

}  // namespace pairhist
