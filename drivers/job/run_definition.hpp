// What a run counts, as its options and topology define it before any frame is read: the
// species' atoms, the species pairs with the pairs each frame leaves out, the header of the
// result, and the state a resumed run goes on from. Every stage of the job pipeline
// (drivers/job/trajectory_pipeline.hpp) reads it; none changes it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "analysis/exclusions.hpp"
#include "analysis/positions.hpp"
#include "analysis/selection_tree.hpp"
#include "analysis/sphere_cut.hpp"
#include "analysis/topology.hpp"
#include "drivers/job/job_accumulator.hpp"
#include "drivers/job/trajectory_job.hpp"
#include "io/trajectory/trajectory_reader.hpp"
#include "pairhist/result.hpp"

namespace pairhist {

struct RunDefinition {
  JobOptions options;        // as the topology completed them (species, topology path)
  double length_factor = 1;  // the user's length unit per nm
  double r_max_nm = 0;
  double r_cut_nm = 0;  // RunSpec::r_cut in nm (0: r_max)
  double r_min_nm = 0;  // RunSpec::r_min in nm
  int topology_atoms = 0;
  std::vector<std::vector<int>> atoms;     // of every species (centres from topology_atoms on)
  std::vector<std::string> centred;        // per species: its position type, "" for atoms
  analysis::Centres centres;               // appended to every frame's atoms (append_centres)
  std::vector<std::string> notes;          // for the user, before the first frame
  std::vector<std::pair<int, int>> pairs;  // species pairs counted (--pairs), in the engine's order
  std::vector<size_t> engine_pair;         // of every pair: its index among the engine's pairs
  std::vector<uint64_t> shared;            // self pairs per frame of every pair
  analysis::PairExclusions exclusions;     // --exclude
  analysis::SphereCut sphere;              // --sphere: active() when given
  JobState seed;                           // a resumed run's checkpoint state, else empty
  HistogramResult header;                  // the result without frames, counts or box kind
  io::FramePreparation preparation;        // what XTC decoding threads deliver
  // Per species: its selection where it is dynamic (within/around), evaluated on every frame
  // (atoms then holds every atom it may select), else null.
  std::vector<std::shared_ptr<const analysis::Selection>> dynamic;

  bool has_dynamic() const {
    for (const auto& d : dynamic)
      if (d) return true;
    return false;
  }
};

/// A frame's atoms of every species (run.atoms, each dynamic species evaluated on `frame`) and,
/// per pair of run.pairs, its pairs and the self pairs of atoms in both species.
struct FrameSpecies {
  std::vector<std::vector<int>> atoms;
  std::vector<int64_t> counts;
  std::vector<uint64_t> pairs;
  std::vector<uint64_t> shared;
};
/// InputError (`where` names file and frame) for an atom with a non-finite coordinate that a
/// distance of a dynamic selection needs.
void select_frame_species(const RunDefinition& run, const io::TrajectoryFrame& frame,
                          const std::string& where, FrameSpecies& out);

/// The histograms of run.pairs out of the engine's (one per species pair, those left out by
/// --pairs zero).
std::vector<std::vector<uint64_t>> run_histograms(const RunDefinition& run,
                                                  std::vector<std::vector<uint64_t>> engine);

/// Makes a frame's positions those the run counts, before anything reads the frame: the
/// centres after the atoms (append_centres), and with options.xy every z set to 0 in the x-y box
/// (xy_box). `where` names file and frame for errors.
void prepare_positions(const RunDefinition& run, io::TrajectoryFrame& frame,
                       const std::string& where);

/// Checks `resolved` (load_job_topology's options) and defines the run over `topology`. Throws
/// UsageError / InputError as the options, the selections or a resumed checkpoint call for.
RunDefinition define_run(JobOptions resolved, const analysis::Topology& topology);

}  // namespace pairhist
