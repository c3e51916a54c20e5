#include "trajectory_job.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>
#include <sstream>
#include <thread>

#include "algorithm_choice.hpp"
#include "exclusions.hpp"
#include "feeding_plan.hpp"
#include "frame_source.hpp"
#include "job_accumulator.hpp"
#include "job_inputs.hpp"
#include "pairhist/errors.hpp"
#include "rdf.hpp"
#include "stop_signals.hpp"
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
  config.memory_budget_bytes = o.memory_budget_mib << 20;
  config.reserve_cores = o.reserve_cores;
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
  return config;
}

/// Sizes the decoding threads and the CPU workers from the first frame (tasks/feeding_plan.hpp):
/// how long a thread took to prepare it against how long the GPUs will need for it. The user's
/// --ncpu stands; so do --decode-threads (then only the CPU workers follow the plan).
void plan_reading(io::XtcParallelReader& reader, const JobOptions& o, EngineConfig& config,
                  const io::TrajectoryFrame& frame, const std::vector<std::vector<int>>& atoms,
                  const BoxMatrix& box, JobOutcome& out) {
  if (o.ncpu >= 0) return;
  // The first frames may have been decoded whole, before the topology told which atoms to pick.
  io::SpeciesColumns gathered;
  if (!frame.columns.filled) io::gather_species_columns(frame.xyz.data(), atoms, gathered);
  const io::SpeciesColumns& columns = frame.columns.filled ? frame.columns : gathered;
  if (columns.bad_species >= 0) return;  // refused when the frame is submitted
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

/// The one place frames reach the engine: the selected atoms' columns the decoding thread
/// gathered when there are any, else the engine picks them from the whole frame. A non-finite
/// coordinate of a selected atom is refused (`where` names file and frame): such a pair would
/// land in no bin and silently vanish from the counts.
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
  // The GPUs' contexts are made, and the first frames decoded, while the topology loads (a
  // 1.4M-atom GRO file: ~0.3 s).
  std::future<void> gpus_ready = std::async(std::launch::async, warm_up_gpus, o.ncuda);
  std::future<std::pair<io::Topology, JobOptions>> topology =
      std::async(std::launch::async, [o]() mutable {
        io::Topology t = load_job_topology(o);  // may fill in o.topology and o.species
        return std::make_pair(std::move(t), std::move(o));
      });
  FramePlan plan{o.first, o.last, o.step, o.begin_time, o.end_time, -1};
  if (o.resume && o.resume->frames() > 0) plan.resume_after = o.resume->frame_indices.back();
  io::FramePreparation pending;
  pending.pending = true;
  std::unique_ptr<FrameSource> opened;
  try {
    opened = std::make_unique<FrameSource>(o.trajectory, o.decode_threads, plan, pending);
  } catch (...) {
    topology.wait();  // a topology error is the one to report: it comes first in the arguments
    topology.get();
    throw;
  }
  FrameSource& source = *opened;
  auto [top, resolved] = topology.get();
  o = std::move(resolved);
  check_options(o);
  const double factor = length_factor(o.units);
  const double r_max_nm = o.r_max / factor;

  const auto atoms = resolve_species(o, top);
  const std::vector<uint64_t> shared = count_shared_atoms(atoms);
  const PairExclusions exclusions(parse_exclude_mode(o.exclude), top, o.topology, atoms);
  const auto pairs = species_pairs(static_cast<int>(atoms.size()));
  JobState seed;
  if (o.resume) {
    seed = *o.resume;
    if (seed.open_counts.size() != pairs.size() ||
        (!seed.open_counts.empty() && seed.open_counts[0].size() != static_cast<size_t>(o.nbins)))
      throw InputError("the checkpoint holds " + std::to_string(seed.open_counts.size()) +
                       " histograms, this run has " + std::to_string(pairs.size()));
  }
  // Parallel decoding threads also prepare the species' columns; the exclusions need whole frames.
  io::FramePreparation prep;
  prep.species = atoms;
  prep.whole_frame = !exclusions.empty();
  source.set_preparation(prep);
  source.stop_on(o.stop);
  if (source.natoms() != top.natoms())
    throw InputError(o.trajectory + ": frame 0: " + std::to_string(source.natoms()) +
                     " atoms, but topology " + o.topology + " has " + std::to_string(top.natoms()));

  JobOutcome out;
  out.frames_resumed = seed.frames();
  HistogramResult header;
  for (size_t s = 0; s < o.species.size(); ++s)
    header.species.push_back(
        {o.species[s].name, o.species[s].selection, static_cast<int64_t>(atoms[s].size())});
  header.r_max = o.r_max;
  header.nbins = o.nbins;
  header.length_unit = factor == 1.0 ? "nm" : "angstrom";
  header.precision = o.precision == Precision::single ? "single" : "double";
  header.norm = o.norm;
  header.exclude = o.exclude;
  for (size_t p = 0; p < pairs.size(); ++p)
    header.pairs.push_back(
        {pairs[p].first, pairs[p].second, {}, shared[p], exclusions.per_frame(p)});
  // The run's box kind is its first frame's, also for a resumed run's later frames.
  BoxKind kind = seed.box_kind >= 0 ? static_cast<BoxKind>(seed.box_kind) : BoxKind::none;
  const bool kind_known = seed.box_kind >= 0;
  JobAccumulator acc(pairs.size(), o.nbins, shared, o.interval, std::move(seed));
  // The result as far as completed intervals go: what is safe to write while the run goes on.
  auto snapshot = [&](const std::string& stopped_by) {
    header.box_kind = box_kind_name(kind);
    HistogramResult snap = acc.result(header, false);
    snap.complete = false;
    snap.stopped_by = stopped_by;
    return snap;
  };

  const auto start = std::chrono::steady_clock::now();
  auto last_checkpoint = start;
  io::TrajectoryFrame frame;
  int64_t index = -1;
  std::vector<std::vector<float>> species_xyz(atoms.size());
  for (size_t s = 0; s < atoms.size(); ++s) species_xyz[s].resize(atoms[s].size() * 3);
  std::vector<const float*> species_ptr;
  for (auto& v : species_xyz) species_ptr.push_back(v.data());
  std::vector<std::vector<uint64_t>> excluded_bins;
  if (!exclusions.empty())
    excluded_bins.assign(pairs.size(), std::vector<uint64_t>(static_cast<size_t>(o.nbins)));

  std::unique_ptr<HistogramEngine> engine;
  StopWatcher watcher(o.stop);  // after the engine: it is gone before the engine is
  auto stopping = [&] { return o.stop != nullptr && o.stop->load() != 0; };
  auto take = [&](std::vector<std::vector<uint64_t>> counts) {
    acc.taken(std::move(counts), engine->frames_counted());
  };
  auto checkpoint = [&] {
    if (o.on_checkpoint) o.on_checkpoint(acc.state());
    last_checkpoint = std::chrono::steady_clock::now();
  };
  bool exhausted = false;
  try {
    for (;;) {
      if (stopping()) break;
      if (!source.next(frame, index)) {
        exhausted = !stopping();
        break;
      }
      const std::string where = o.trajectory + ": frame " + std::to_string(index) + ": ";
      const BoxMatrix box = to_matrix(frame.box);
      if (const std::string problem = box_problem(box); !problem.empty())
        throw InputError(where + problem);
      const BoxKind frame_kind = classify_box(box);
      if (!engine) {
        if (!kind_known) kind = frame_kind;
        acc.set_box_kind(static_cast<int>(kind));
        EngineConfig config = engine_config(o, atoms, kind, r_max_nm);
        if (auto* parallel = dynamic_cast<io::XtcParallelReader*>(&source.reader())) {
          plan_reading(*parallel, o, config, frame, atoms, box, out);
          config.reader_threads = parallel->threads();
          out.decode_threads = parallel->threads();
        }
        gpus_ready.wait();
        const auto engine_start = std::chrono::steady_clock::now();
        out.first_frame_seconds = std::chrono::duration<double>(engine_start - start).count();
        engine = std::make_unique<HistogramEngine>(config);
        out.engine_start_seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - engine_start).count();
        watcher.set_engine(engine.get());
      }
      if (static_cast<int>(frame_kind) > static_cast<int>(kind) ||
          (kind != BoxKind::none && frame_kind == BoxKind::none)) {
        throw InputError(where + "box changes from " + box_kind_name(kind) + " to " +
                         box_kind_name(frame_kind));
      }
      const double limit = max_minimum_image_rmax(box);
      if (!rmax_fits_minimum_image(r_max_nm, box))
        throw InputError(where + "r_max " + format_length(o.r_max, header.length_unit) +
                         " exceeds the minimum-image limit " +
                         format_length(limit * factor, header.length_unit) +
                         " of this frame's box (half its shortest lattice vector)");
      if (frame_kind == BoxKind::triclinic &&
          triclinic_search_size(box, r_max_nm) > static_cast<size_t>(kMaxOctantImages))
        throw InputError(where +
                         "triclinic box too skewed for an exact minimum image (reduce it "
                         "first, e.g. with gmx trjconv -pbc)");
      submit_to_engine(*engine, frame, atoms, box, where);
      SparseBins excluded;
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
        // Kept per frame until the engine has counted it: a stop may drop the frame.
        exclusions.add_frame(species_ptr, box, kind, r_max_nm, o.nbins, o.precision, excluded_bins);
        for (size_t p = 0; p < excluded_bins.size(); ++p)
          for (size_t k = 0; k < excluded_bins[p].size(); ++k)
            if (excluded_bins[p][k] != 0) {
              excluded.emplace_back(static_cast<uint32_t>(p * excluded_bins[p].size() + k),
                                    excluded_bins[p][k]);
              excluded_bins[p][k] = 0;
            }
      }
      double volume = 0;
      if (kind != BoxKind::none)
        volume = box_volume(box) * factor * factor * factor;
      else if (o.volume > 0)
        volume = o.volume;  // the user's, already in their units
      acc.submitted({index, frame.time, volume}, std::move(excluded));
      const uint64_t submitted = engine->frames_submitted();
      const auto ring = static_cast<uint64_t>(engine->frames_in_flight());
      acc.finished_before(submitted > ring ? submitted - ring : 0);
      if (o.progress) o.progress(static_cast<int64_t>(acc.state().frames() + acc.pending()));
      if (o.interval > 0 && acc.open_frames() + acc.pending() >= static_cast<size_t>(o.interval)) {
        take(engine->take_histograms());
        if (acc.dropped() > 0) break;  // a stop came while the interval's frames were finishing
        acc.close_block();
        checkpoint();
        if (o.on_interval) o.on_interval(snapshot("in progress"));
      } else if (o.checkpoint_seconds > 0 &&
                 std::chrono::steady_clock::now() - last_checkpoint >=
                     std::chrono::duration<double>(o.checkpoint_seconds)) {
        take(engine->take_histograms());
        if (acc.dropped() > 0) break;
        checkpoint();
      }
    }
    if (engine) {
      if (stopping()) engine->drop_unstarted_frames();  // the watcher may not have yet
      take(engine->finish());  // after a stop: only the frames that had begun
    }
  } catch (const InputError& e) {
    if (engine) engine->drop_unstarted_frames();  // no need to finish what will not be kept
    // Keep what completed intervals hold, marked incomplete, then report the error.
    if (!acc.state().intervals.empty() && o.on_interval) o.on_interval(snapshot(e.what()));
    throw;
  } catch (...) {
    if (engine) engine->drop_unstarted_frames();
    throw;
  }
  const bool stopped = !exhausted || acc.dropped() > 0;
  if (!engine && acc.state().frames() == 0 && !stopped)
    throw InputError(o.trajectory + ": no frame selected among the " +
                     std::to_string(source.frames_read()) + " frames read");

  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  header.box_kind = box_kind_name(kind);
  out.result = acc.result(header, true);
  out.frames_dropped = acc.dropped();
  if (stopped) {
    out.stopped_by_signal = o.stop ? o.stop->load() : 0;
    out.result.complete = false;
    out.result.stopped_by = signal_name(out.stopped_by_signal);
    if (acc.state().frames() > 0) checkpoint();
  }
  if (!engine) return out;
  out.activity = engine->activity();
  const uint64_t frames_here = acc.state().frames() - out.frames_resumed;
  for (size_t p = 0; p < pairs.size(); ++p) {
    const PairWork& w = out.activity.pair_work[p];
    out.pairs_examined += w.algorithm == Algorithm::cell_list
                              ? w.candidates
                              : out.result.pairs_per_frame(out.result.pairs[p]) * frames_here;
  }
  out.cpu_workers = engine->cpu_workers();
  out.cuda_workers = engine->cuda_workers();
  out.scheduler = engine->scheduler();
  out.tasks = engine->tasks_submitted();
  out.frames_in_flight = engine->frames_in_flight();
  out.frame_bytes = engine->frame_bytes();
  return out;
}

}  // namespace pairhist
