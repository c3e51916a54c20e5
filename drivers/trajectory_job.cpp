#include "trajectory_job.hpp"

#include <chrono>
#include <cmath>
#include <future>
#include <sstream>
#include <thread>

#include "algorithm_choice.hpp"
#include "exclusions.hpp"
#include "feeding_plan.hpp"
#include "job_inputs.hpp"
#include "pairhist/errors.hpp"
#include "rdf.hpp"
#include "trajectory_reader.hpp"
#include "xtc_parallel_reader.hpp"

namespace pairhist {

SpeciesSpec parse_species(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw UsageError("--species expects NAME=SELECTION (e.g. O=OW or H=HW1,HW2), got '" + text +
                     "'");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

namespace {

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
  parse_exclude_mode(o.exclude);
  io::check_norm(o.norm);
  for (size_t i = 0; i < o.species.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (o.species[i].name == o.species[j].name)
        throw UsageError("species '" + o.species[i].name + "' is defined twice");
}

BoxMatrix to_matrix(const std::array<float, 9>& box) {
  BoxMatrix m;
  for (int i = 0; i < 9; ++i) m[i] = box[i];
  return m;
}

/// Sizes the decoding threads and the CPU workers from the first frame (tasks/feeding_plan.hpp):
/// how long a thread took to prepare it against how long the GPUs will need for it. The user's
/// --ncpu stands; so do --decode-threads (then only the CPU workers follow the plan).
void plan_reading(io::XtcParallelReader& reader, const JobOptions& o, EngineConfig& config,
                  const io::TrajectoryFrame& frame, const BoxMatrix& box, JobOutcome& out) {
  const io::SpeciesColumns& columns = frame.columns;
  if (o.ncpu >= 0 || !columns.filled || columns.bad_species >= 0) return;
  FeedingInputs in;
  in.cores = static_cast<int>(std::thread::hardware_concurrency());
  in.gpus = o.ncuda == 0 ? 0 : cuda_devices();
  if (o.ncuda > 0) in.gpus = std::min(in.gpus, o.ncuda);
  in.prepare_seconds = reader.seconds_per_frame();
  CoordinateBounds bounds;
  for (int c = 0; c < 3; ++c) bounds.lo[c] = columns.lo[c], bounds.hi[c] = columns.hi[c];
  in.gpu_seconds = estimated_gpu_seconds_per_frame(config, box, bounds, in.gpus);
  in.reader_threads = reader.threads();
  in.max_reader_threads = o.decode_threads > 0 ? reader.threads() : reader.max_threads();
  const FeedingPlan plan = pairhist::plan_feeding(in);
  reader.set_active_threads(plan.reader_threads);
  if (plan.cpu_workers >= 0) config.ncpu = plan.cpu_workers;
  out.prepare_seconds = in.prepare_seconds;
  out.gpu_seconds = in.gpu_seconds;
  out.feed_bound = plan.feed_bound;
}

/// Hands one frame's selected atoms to the engine: the columns the decoding thread gathered
/// when there are any, else the engine picks them from the whole frame. A non-finite coordinate
/// of a selected atom is refused (`where` names file and frame): such a pair would land in no
/// bin and silently vanish from the counts.
void submit_to_engine(HistogramEngine& engine, const io::TrajectoryFrame& frame,
                      const std::vector<std::vector<int>>& atoms, const BoxMatrix& box,
                      const std::string& where) {
  try {
    const io::SpeciesColumns& columns = frame.columns;
    if (!columns.filled) {
      engine.submit_frame_atoms(frame.xyz.data(), atoms, box);
      return;
    }
    if (columns.bad_species >= 0)
      throw NonFiniteCoordinate(columns.bad_species, columns.bad_position);
    std::vector<const float*> soa;
    for (const auto& species : columns.soa) soa.push_back(species.data());
    CoordinateBounds bounds;
    for (int c = 0; c < 3; ++c) bounds.lo[c] = columns.lo[c], bounds.hi[c] = columns.hi[c];
    engine.submit_frame_columns(soa, box, &bounds);
  } catch (const NonFiniteCoordinate& e) {
    throw InputError(
        where + "atom " +
        std::to_string(atoms[static_cast<size_t>(e.species)][static_cast<size_t>(e.position)] + 1) +
        " has a non-finite coordinate");
  }
}

}  // namespace

JobOutcome run_trajectory_job(const JobOptions& options) {
  JobOptions o = options;
  // The GPUs' contexts are made while the topology loads (a 1.4M-atom GRO file: ~0.3 s).
  std::future<void> gpus_ready = std::async(std::launch::async, warm_up_gpus, o.ncuda);
  const io::Topology top = load_job_topology(o);  // may fill in o.topology and o.species
  check_options(o);
  const double factor = length_factor(o.units);
  const double r_max_nm = o.r_max / factor;

  const auto atoms = resolve_species(o, top);
  const std::vector<uint64_t> shared = count_shared_atoms(atoms);
  const PairExclusions exclusions(parse_exclude_mode(o.exclude), top, o.topology, atoms);
  // Parallel decoding threads also prepare the species' columns; the exclusions need whole frames.
  io::FramePreparation prep;
  prep.species = atoms;
  prep.whole_frame = !exclusions.empty();
  const auto reader_ptr = io::open_trajectory_threaded(o.trajectory, o.decode_threads, prep);
  io::TrajectoryReader& reader = *reader_ptr;
  if (reader.natoms() != top.natoms())
    throw InputError(o.trajectory + ": frame 0: " + std::to_string(reader.natoms()) +
                     " atoms, but topology " + o.topology + " has " + std::to_string(top.natoms()));

  JobOutcome out;
  HistogramResult& res = out.result;
  for (size_t s = 0; s < o.species.size(); ++s)
    res.species.push_back(
        {o.species[s].name, o.species[s].selection, static_cast<int64_t>(atoms[s].size())});
  res.r_max = o.r_max;
  res.nbins = o.nbins;
  res.length_unit = factor == 1.0 ? "nm" : "angstrom";
  res.precision = o.precision == Precision::single ? "single" : "double";
  res.norm = o.norm;
  res.exclude = o.exclude;

  const auto start = std::chrono::steady_clock::now();
  io::TrajectoryFrame frame;
  std::vector<std::vector<float>> species_xyz(atoms.size());
  for (size_t s = 0; s < atoms.size(); ++s) species_xyz[s].resize(atoms[s].size() * 3);
  std::vector<const float*> species_ptr;
  for (auto& v : species_xyz) species_ptr.push_back(v.data());

  std::unique_ptr<HistogramEngine> engine;
  BoxKind kind = BoxKind::none;
  int64_t index = -1;
  const auto pairs = species_pairs(static_cast<int>(atoms.size()));
  std::vector<std::vector<uint64_t>> totals(pairs.size(),
                                            std::vector<uint64_t>(static_cast<size_t>(o.nbins)));
  // Bins of the open interval's excluded pairs, subtracted when it closes.
  auto excluded_bins = totals;
  auto make_pair = [&](size_t p, std::vector<uint64_t> counts) {
    return PairHistogram{pairs[p].first, pairs[p].second, std::move(counts), shared[p],
                         exclusions.per_frame(p)};
  };
  size_t block_begin = 0;  // first frame (index into res.frame_indices) of the open interval
  auto close_block = [&](std::vector<std::vector<uint64_t>> counts) {
    remove_left_out(counts, shared, res.frame_indices.size() - block_begin, excluded_bins);
    for (size_t p = 0; p < pairs.size(); ++p)
      for (size_t k = 0; k < totals[p].size(); ++k) totals[p][k] += counts[p][k];
    if (o.interval > 0) res.intervals.push_back({block_begin, res.frame_indices.size(), counts});
    block_begin = res.frame_indices.size();
  };
  // The result as far as completed intervals go: what is safe to write now.
  auto snapshot = [&]() {
    HistogramResult snap = res;
    const size_t frames = snap.intervals.empty() ? 0 : snap.intervals.back().frame_end;
    snap.frame_indices.resize(frames);
    snap.frame_times.resize(frames);
    if (!snap.volumes.empty()) snap.volumes.resize(frames);
    snap.box_kind = box_kind_name(kind);
    for (size_t p = 0; p < pairs.size(); ++p) snap.pairs.push_back(make_pair(p, totals[p]));
    return snap;
  };
  try {
    while (reader.next(frame)) {
      ++index;
      if (o.last >= 0 && index > o.last) break;
      if (index < o.first || (index - o.first) % o.step != 0) continue;
      if (frame.time < o.begin_time) continue;  // false for NaN: no bound
      if (frame.time > o.end_time) break;
      const std::string where = o.trajectory + ": frame " + std::to_string(index) + ": ";
      const BoxMatrix box = to_matrix(frame.box);
      if (const std::string problem = box_problem(box); !problem.empty())
        throw InputError(where + problem);
      const BoxKind frame_kind = classify_box(box);
      if (!engine) {
        kind = frame_kind;
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
        config.memory_budget_bytes = o.memory_budget_mib << 20;
        config.reserve_cores = o.reserve_cores;
        if (auto* parallel = dynamic_cast<io::XtcParallelReader*>(&reader)) {
          plan_reading(*parallel, o, config, frame, box, out);
          config.reader_threads = parallel->threads();
          out.decode_threads = parallel->threads();
        }
        config.sum_tasks = o.sum_tasks;
        config.max_pairs_per_task = o.task_pairs;
        config.lp_bound = o.lp_bound;
        config.lp_bound_text = o.lp_bound_text;
        config.algorithm = o.algorithm;
        config.cell_reach = o.cell_reach;
        if (!o.cell_order.empty()) {
          config.cell_order = parse_cell_order(o.cell_order);
          config.cell_order_set = true;
        }
        gpus_ready.wait();
        const auto engine_start = std::chrono::steady_clock::now();
        out.first_frame_seconds = std::chrono::duration<double>(engine_start - start).count();
        engine = std::make_unique<HistogramEngine>(config);
        out.engine_start_seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - engine_start).count();
      } else if (static_cast<int>(frame_kind) > static_cast<int>(kind) ||
                 (kind != BoxKind::none && frame_kind == BoxKind::none)) {
        throw InputError(where + "box changes from " + box_kind_name(kind) + " to " +
                         box_kind_name(frame_kind));
      }
      const double limit = max_minimum_image_rmax(box);
      if (!rmax_fits_minimum_image(r_max_nm, box))
        throw InputError(where + "r_max " + format_length(o.r_max, res.length_unit) +
                         " exceeds the minimum-image limit " +
                         format_length(limit * factor, res.length_unit) +
                         " of this frame's box (half its shortest lattice vector)");
      if (frame_kind == BoxKind::triclinic &&
          triclinic_search_size(box, r_max_nm) > static_cast<size_t>(kMaxOctantImages))
        throw InputError(where +
                         "triclinic box too skewed for an exact minimum image (reduce it "
                         "first, e.g. with gmx trjconv -pbc)");
      submit_to_engine(*engine, frame, atoms, box, where);
      if (!exclusions.empty()) {  // the exclusions need the species' own coordinates
        for (size_t s = 0; s < atoms.size(); ++s) {
          float* dst = species_xyz[s].data();
          for (int a : atoms[s]) {
            const float* src = &frame.xyz[3 * static_cast<size_t>(a)];
            *dst++ = src[0];
            *dst++ = src[1];
            *dst++ = src[2];
          }
        }
        exclusions.add_frame(species_ptr, box, kind, r_max_nm, o.nbins, o.precision, excluded_bins);
      }
      res.frame_indices.push_back(index);
      res.frame_times.push_back(frame.time);
      if (kind != BoxKind::none)
        res.volumes.push_back(box_volume(box) * factor * factor * factor);
      else if (o.volume > 0)
        res.volumes.push_back(o.volume);  // the user's, already in their units
      if (o.progress) o.progress(static_cast<int64_t>(res.frame_indices.size()));
      if (o.interval > 0 &&
          res.frame_indices.size() - block_begin == static_cast<size_t>(o.interval)) {
        close_block(engine->take_histograms());
        if (o.on_interval) o.on_interval(snapshot());
      }
    }
  } catch (const InputError& e) {
    // Keep what completed intervals hold, marked incomplete, then report the error.
    if (!res.intervals.empty() && o.on_interval) {
      HistogramResult snap = snapshot();
      snap.complete = false;
      snap.stopped_by = e.what();
      o.on_interval(snap);
    }
    throw;
  }
  if (!engine)
    throw InputError(o.trajectory + ": no frame selected among the " + std::to_string(index + 1) +
                     " frames read");

  auto remaining = engine->finish();
  if (res.frame_indices.size() > block_begin) close_block(std::move(remaining));  // last, partial
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.activity = engine->activity();
  for (size_t p = 0; p < pairs.size(); ++p) {
    PairHistogram h = make_pair(p, totals[p]);
    const PairWork& w = out.activity.pair_work[p];
    out.pairs_examined += w.algorithm == Algorithm::cell_list
                              ? w.candidates
                              : res.pairs_per_frame(h) * res.frame_indices.size();
    res.pairs.push_back(std::move(h));
  }
  res.box_kind = box_kind_name(kind);
  out.cpu_workers = engine->cpu_workers();
  out.cuda_workers = engine->cuda_workers();
  out.scheduler = engine->scheduler();
  out.tasks = engine->tasks_submitted();
  out.frames_in_flight = engine->frames_in_flight();
  out.frame_bytes = engine->frame_bytes();
  return out;
}

}  // namespace pairhist
