#include "drivers/job/job_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "analysis/exclusions.hpp"
#include "analysis/rdf.hpp"
#include "io/trajectory/trajectory_opening.hpp"
#include "pairhist/environment.hpp"
#include "pairhist/errors.hpp"
#include "pairhist/host_cores.hpp"
#include "tasks/algorithm_choice.hpp"
#include "tasks/feeding_plan.hpp"

namespace pairhist {

double length_factor(const std::string& units) {
  // Trajectories store nm; the user's unit only changes r_max, edges and volumes reported.
  if (units == "nm") return 1.0;
  if (units == "angstrom" || units == "A") return 10.0;
  throw UsageError("unknown length unit '" + units + "' (use nm or angstrom)");
}

std::string format_length(double v, const std::string& unit) {
  std::ostringstream s;
  s.precision(6);
  s << v << ' ' << unit;
  return s.str();
}

void check_options(const JobOptions& o) {
  if (o.species.empty()) throw UsageError("no species given (use --species NAME=SELECTION)");
  if (!(o.r_max > 0) || !std::isfinite(o.r_max)) throw UsageError("--rmax must be positive");
  if (o.nbins <= 0) throw UsageError("--nbins must be positive");
  if (o.step <= 0) throw UsageError("--step must be positive");
  if (o.begin_time > o.end_time) throw UsageError("--begin must not be after --end");
  if (o.first < 0) throw UsageError("--first must be >= 0");
  if (o.interval < 0) throw UsageError("--interval must be >= 0");
  if (o.volume < 0 || !std::isfinite(o.volume)) throw UsageError("--volume must be positive");
  analysis::parse_exclude_mode(o.exclude);
  analysis::check_norm(o.norm);
  for (size_t i = 0; i < o.species.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (o.species[i].name == o.species[j].name)
        throw UsageError("species '" + o.species[i].name + "' is defined twice");
}

namespace {

int species_index(const JobOptions& o, const std::string& name) {
  for (size_t s = 0; s < o.species.size(); ++s)
    if (o.species[s].name == name) return static_cast<int>(s);
  return -1;
}

/// "A-B" as two species indices, a <= b. Species names may hold '-' themselves: the pair is read
/// at the one '-' whose sides both name species.
std::pair<int, int> parse_pair(const JobOptions& o, const std::string& text) {
  std::vector<std::pair<int, int>> readings;
  for (size_t dash = text.find('-'); dash != std::string::npos; dash = text.find('-', dash + 1)) {
    const int a = species_index(o, text.substr(0, dash));
    const int b = species_index(o, text.substr(dash + 1));
    if (a >= 0 && b >= 0) readings.emplace_back(std::min(a, b), std::max(a, b));
  }
  if (readings.size() == 1) return readings[0];
  std::string names;
  for (const auto& s : o.species) names += (names.empty() ? "" : ", ") + s.name;
  if (readings.empty())
    throw UsageError("--pairs: '" + excerpt(text) +
                     "' is not a pair A-B of species names (species: " + excerpt(names, 200) + ")");
  throw UsageError("--pairs: '" + excerpt(text) + "' can be read as more than one pair of " +
                   names);
}

}  // namespace

std::vector<std::pair<int, int>> selected_pairs(const JobOptions& o) {
  const auto all = species_pairs(static_cast<int>(o.species.size()));
  if (o.pairs.empty()) return all;
  std::vector<bool> wanted(all.size(), false);
  for (const std::string& text : o.pairs) {
    const auto pair = parse_pair(o, text);
    const size_t p = static_cast<size_t>(std::find(all.begin(), all.end(), pair) - all.begin());
    if (wanted[p]) throw UsageError("--pairs: the pair " + text + " is named twice");
    wanted[p] = true;
  }
  std::vector<std::pair<int, int>> pairs;
  for (size_t p = 0; p < all.size(); ++p)
    if (wanted[p]) pairs.push_back(all[p]);
  return pairs;
}

BoxMatrix to_matrix(const std::array<float, 9>& box) {
  BoxMatrix m;
  for (int i = 0; i < 9; ++i) m[i] = box[i];
  return m;
}

EngineConfig engine_config(const JobOptions& o, const std::vector<std::vector<int>>& atoms,
                           BoxKind kind, double r_max_nm) {
  EngineConfig config;
  for (const auto& a : atoms) config.species_sizes.push_back(static_cast<int64_t>(a.size()));
  config.r_max = r_max_nm;
  config.nbins = o.nbins;
  config.precision = o.precision;
  config.box_kind = kind;
  config.scheduler = o.scheduler;
  config.whole_frames = o.whole_frames;
  config.ncpu = o.ncpu;
  config.ncuda = o.ncuda;
  config.frames_in_flight = o.frames_in_flight;
  if (o.memory_budget_mib > 0) config.memory_budget_bytes = o.memory_budget_mib << 20;
  config.reserve_cores = o.reserve_cores;
  config.sum_tasks = o.sum_tasks;
  config.max_pairs_per_task = o.task_pairs;
  config.lp_bound = o.lp_bound;
  config.lp_bound_text = o.lp_bound_text;
  config.algorithm = o.algorithm;
  if (!o.pairs.empty()) {
    const auto all = species_pairs(static_cast<int>(atoms.size()));
    config.counted_pairs.assign(all.size(), false);
    for (const auto& pair : selected_pairs(o))
      config.counted_pairs[static_cast<size_t>(std::find(all.begin(), all.end(), pair) -
                                               all.begin())] = true;
  }
  config.cell_reach = o.cell_reach;
  if (!o.cell_order.empty()) {
    config.cell_order = parse_cell_order(o.cell_order);
    config.cell_order_set = true;
  }
  return config;
}

namespace {

/// The bounds of the species' atoms in a whole frame (the first frames may have been decoded
/// whole, before the topology told which atoms to pick), read in place: columns gathered for
/// them would be pinned memory, costly to allocate once. False if a coordinate is not finite.
bool whole_frame_bounds(const io::TrajectoryFrame& frame,
                        const std::vector<std::vector<int>>& atoms, CoordinateBounds& bounds) {
  for (int c = 0; c < 3; ++c) bounds.lo[c] = INFINITY, bounds.hi[c] = -INFINITY;
  for (const auto& species : atoms)
    for (int a : species)
      for (size_t c = 0; c < 3; ++c) {
        const float x = frame.xyz[3 * static_cast<size_t>(a) + c];
        if (!std::isfinite(x)) return false;
        bounds.lo[c] = std::min(bounds.lo[c], x);
        bounds.hi[c] = std::max(bounds.hi[c], x);
      }
  return true;
}

}  // namespace

bool legacy_feeding() {
  const char* v = env_get("PAIRHIST_FEEDING");
  return v && std::string(v) == "legacy";
}

namespace {

/// One frame's coordinates as the engine holds them (HistogramEngine::frame_bytes).
uint64_t engine_frame_bytes(const EngineConfig& config) {
  const uint64_t value = config.precision == Precision::single ? sizeof(float) : sizeof(double);
  uint64_t bytes = 0;
  for (int64_t n : config.species_sizes) bytes += static_cast<uint64_t>(std::max<int64_t>(n, 0));
  return bytes * 3 * value;
}

/// What the feeding plan weighs: the machine, the reader's measured pace, the cost model's time
/// for the first frame on the GPUs and on a core, and what the user fixed.
FeedingInputs feeding_inputs(const io::XtcParallelReader& reader, const JobOptions& o,
                             const EngineConfig& config, const BoxMatrix& box,
                             const CoordinateBounds& bounds, bool hands_over, bool legacy) {
  FeedingInputs in;
  in.cores = usable_cores();
  in.gpus = o.ncuda == 0 ? 0 : cuda_devices();
  if (o.ncuda > 0) in.gpus = std::min(in.gpus, o.ncuda);
  in.prepare_seconds = reader.seconds_per_frame();
  const FrameCost cost = estimated_frame_cost(config, box, bounds, in.gpus);
  in.gpu_seconds = cost.gpu_seconds;
  in.core_seconds = cost.core_seconds;
  in.core_task_seconds = cost.core_task_seconds;
  in.reader_threads = reader.threads();
  in.reader_threads_set = o.decode_threads > 0;
  in.max_reader_threads = in.reader_threads_set ? reader.threads() : reader.max_threads();
  // The plan before issue 24 grew the readers within 2 GiB, whatever the node's memory.
  if (legacy && !in.reader_threads_set)
    in.max_reader_threads = std::min(
        in.max_reader_threads,
        io::automatic_max_decode_threads(reader.natoms(), in.cores, io::kDecodeMemoryBytes));
  in.requested_cpu_workers = o.ncpu;
  in.feeding_thread_copies = !hands_over;
  in.frame_bytes = engine_frame_bytes(config);
  in.default_budget_bytes = EngineConfig().memory_budget_bytes;
  in.host_memory_bytes = host_memory_bytes();
  in.frames_in_flight_set = o.frames_in_flight > 0 || o.memory_budget_mib > 0;
  return in;
}

}  // namespace

void plan_reading(io::XtcParallelReader& reader, const JobOptions& o, EngineConfig& config,
                  const io::TrajectoryFrame& frame, const std::vector<std::vector<int>>& atoms,
                  const BoxMatrix& box, bool hands_over, JobOutcome& out) {
  const bool legacy = legacy_feeding();
  if (legacy && o.ncpu >= 0) return;
  CoordinateBounds bounds;
  if (frame.columns.filled) {
    if (frame.columns.bad_species >= 0) return;  // refused when the frame is submitted
    for (int c = 0; c < 3; ++c)
      bounds.lo[c] = frame.columns.lo[c], bounds.hi[c] = frame.columns.hi[c];
  } else if (!whole_frame_bounds(frame, atoms, bounds)) {
    return;
  }
  const FeedingInputs in = feeding_inputs(reader, o, config, box, bounds, hands_over, legacy);
  const FeedingPlan plan = legacy ? plan_feeding_legacy(in) : plan_feeding(in);
  reader.set_active_threads(plan.reader_threads);
  if (plan.cpu_workers >= 0 && o.ncpu < 0) config.ncpu_beside_gpus = plan.cpu_workers;
  // Through the budget, so that a distributed run's cap (max_frames_in_flight) still applies.
  if (plan.frames_in_flight > 0)
    config.memory_budget_bytes = static_cast<uint64_t>(plan.frames_in_flight) * in.frame_bytes;
  out.prepare_seconds = in.prepare_seconds;
  out.gpu_seconds = in.gpu_seconds;
  out.feed_bound = plan.feed_bound;
  out.feeding_planned = true;
  out.feeding_legacy = legacy;
  out.feeding_inputs = in;
  out.feeding_plan = plan;
}

void submit_to_engine(HistogramEngine& engine, io::TrajectoryFrame& frame,
                      const std::vector<std::vector<int>>& atoms, const BoxMatrix& box,
                      const std::string& where, bool hand_over) {
  try {
    io::SpeciesColumns& columns = frame.columns;
    if (!columns.filled) {
      // A frame decoded into columns has no whole frame: its columns went to the engine.
      if (frame.xyz.empty() &&
          std::any_of(atoms.begin(), atoms.end(), [](const auto& a) { return !a.empty(); }))
        throw std::logic_error("submit_to_engine: the frame's columns were handed over");
      engine.submit_frame_atoms(frame.xyz.data(), atoms, box);
      return;
    }
    if (columns.bad_species >= 0)
      throw NonFiniteCoordinate(columns.bad_species, columns.bad_position);
    CoordinateBounds bounds;
    for (int c = 0; c < 3; ++c) bounds.lo[c] = columns.lo[c], bounds.hi[c] = columns.hi[c];
    if (hand_over) {
      // The columns the engine gave back hold no frame until a decoding thread refills them.
      if (engine.submit_frame_columns_swap(columns.soa, box, bounds)) columns.filled = false;
      return;
    }
    std::vector<const float*> soa;
    for (const auto& species : columns.soa) soa.push_back(species.data());
    engine.submit_frame_columns(soa, box, &bounds);
  } catch (const NonFiniteCoordinate& e) {
    throw InputError(
        where + "atom " +
        std::to_string(atoms[static_cast<size_t>(e.species)][static_cast<size_t>(e.position)] + 1) +
        " has a non-finite coordinate");
  }
}

void check_frame_box(const BoxMatrix& box, BoxKind kind, const JobOptions& o, double r_max_nm,
                     const std::string& unit, const std::string& where) {
  if (const std::string problem = box_problem(box); !problem.empty())
    throw InputError(where + problem);
  const BoxKind frame_kind = classify_box(box);
  if (static_cast<int>(frame_kind) > static_cast<int>(kind) ||
      (kind != BoxKind::none && frame_kind == BoxKind::none)) {
    throw InputError(where + "box changes from " + box_kind_name(kind) + " to " +
                     box_kind_name(frame_kind));
  }
  const double factor = length_factor(o.units);
  const double limit = max_minimum_image_rmax(box);
  if (!rmax_fits_minimum_image(r_max_nm, box))
    throw InputError(where + "r_max " + format_length(o.r_max, unit) +
                     " exceeds the minimum-image limit " + format_length(limit * factor, unit) +
                     " of this frame's box (half its shortest lattice vector)");
  if (frame_kind == BoxKind::triclinic &&
      triclinic_search_size(box, r_max_nm) > static_cast<size_t>(kMaxOctantImages))
    throw InputError(where +
                     "triclinic box too skewed for an exact minimum image (reduce it "
                     "first, e.g. with gmx trjconv -pbc)");
}

void append_centres(const analysis::Centres& centres, int natoms, io::TrajectoryFrame& frame,
                    const std::string& where) {
  if (centres.empty()) return;
  const BoxMatrix box = to_matrix(frame.box);
  // A bad box is reported where the frame's box is checked; the centres are then never counted.
  const BoxKind kind = box_problem(box).empty() ? classify_box(box) : BoxKind::none;
  const size_t atoms = 3 * static_cast<size_t>(natoms);
  frame.xyz.resize(atoms + 3 * centres.size());
  const int64_t bad = centres.compute(frame.xyz.data(), box, kind, frame.xyz.data() + atoms);
  if (bad >= 0)
    throw InputError(where + "atom " + std::to_string(bad + 1) + " has a non-finite coordinate");
}

double frame_volume(const BoxMatrix& box, BoxKind kind, double length_factor, double volume) {
  if (kind != BoxKind::none) return box_volume(box) * length_factor * length_factor * length_factor;
  return volume > 0 ? volume : 0;  // the user's, already in their units
}

FrameExclusions::FrameExclusions(const analysis::PairExclusions& exclusions,
                                 const std::vector<std::vector<int>>& atoms, size_t npairs,
                                 int nbins)
    : exclusions_(exclusions), atoms_(atoms), nbins_(nbins), species_xyz_(atoms.size()) {
  for (size_t s = 0; s < atoms.size(); ++s) species_xyz_[s].resize(atoms[s].size() * 3);
  for (auto& v : species_xyz_) species_ptr_.push_back(v.data());
  if (!exclusions.empty()) bins_.assign(npairs, std::vector<uint64_t>(static_cast<size_t>(nbins)));
}

void FrameExclusions::flag_selected(const std::vector<std::vector<int>>& frame_atoms) {
  selected_.resize(atoms_.size());
  for (size_t s = 0; s < atoms_.size(); ++s) {
    const std::vector<int>& all = atoms_[s];
    const std::vector<int>& here = frame_atoms.at(s);
    selected_[s].assign(all.size(), 0);
    // Both ascending, and the frame's a subset of the species' (select_frame_species).
    size_t i = 0;
    for (int atom : here) {
      while (i < all.size() && all[i] < atom) ++i;
      if (i == all.size() || all[i] != atom)
        throw std::logic_error("FrameExclusions: a frame's atom outside its species");
      selected_[s][i++] = 1;
    }
  }
}

SparseBins FrameExclusions::bins_of(const io::TrajectoryFrame& frame, const BoxMatrix& box,
                                    BoxKind kind, double r_max_nm, Precision precision,
                                    const std::vector<std::vector<int>>* frame_atoms,
                                    std::vector<uint64_t>* frame_pairs) {
  SparseBins excluded;
  if (exclusions_.empty()) return excluded;
  for (size_t s = 0; s < atoms_.size(); ++s) {
    float* dst = species_xyz_[s].data();
    for (int a : atoms_[s]) {
      const float* src = &frame.xyz[3 * static_cast<size_t>(a)];
      *dst++ = src[0];
      *dst++ = src[1];
      *dst++ = src[2];
    }
  }
  if (frame_atoms) {
    flag_selected(*frame_atoms);
    left_out_.assign(bins_.size(), 0);
    exclusions_.add_selected_frame(species_ptr_, selected_, box, kind, r_max_nm, nbins_, precision,
                                   bins_, left_out_);
    for (size_t p = 0; p < left_out_.size(); ++p) frame_pairs->at(p) -= left_out_[p];
  } else {
    exclusions_.add_frame(species_ptr_, box, kind, r_max_nm, nbins_, precision, bins_);
  }
  for (size_t p = 0; p < bins_.size(); ++p)
    for (size_t k = 0; k < bins_[p].size(); ++k)
      if (bins_[p][k] != 0) {
        excluded.emplace_back(static_cast<uint32_t>(p * bins_[p].size() + k), bins_[p][k]);
        bins_[p][k] = 0;
      }
  return excluded;
}

void describe_engine(const HistogramEngine& engine, uint64_t frames_here, JobOutcome& out) {
  out.activity = engine.activity();
  // The pairs --pairs left out are no part of the result: pair_work then matches its pairs.
  std::vector<PairWork>& work = out.activity.pair_work;
  work.erase(std::remove_if(work.begin(), work.end(), [](const PairWork& w) { return !w.counted; }),
             work.end());
  for (size_t p = 0; p < out.result.pairs.size() && p < out.activity.pair_work.size(); ++p) {
    const PairWork& w = out.activity.pair_work[p];
    const PairHistogram& h = out.result.pairs[p];
    // A --sphere run's frames hold different numbers of atoms: their mean, to rounding.
    const uint64_t all_pairs =
        out.result.frame_species_counts.empty()
            ? out.result.pairs_per_frame(h) * frames_here
            : static_cast<uint64_t>(std::llround(out.result.mean_pairs_per_frame(h) *
                                                 static_cast<double>(frames_here)));
    out.pairs_examined += w.algorithm == Algorithm::cell_list ? w.candidates : all_pairs;
  }
  out.cpu_workers = engine.cpu_workers();
  out.cuda_workers = engine.cuda_workers();
  out.scheduler = engine.scheduler();
  out.tasks = engine.tasks_submitted();
  out.frames_in_flight = engine.frames_in_flight();
  out.frame_bytes = engine.frame_bytes();
}

}  // namespace pairhist
