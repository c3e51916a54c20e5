#include "drivers/job/trajectory_job.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <sstream>
#include <thread>

#include "analysis/exclusions.hpp"
#include "analysis/rdf.hpp"
#include "drivers/distributed/distributed_job.hpp"
#include "drivers/distributed/distributed_setup.hpp"
#include "drivers/distributed/distribution.hpp"
#include "drivers/distributed/interval_exchange.hpp"
#include "drivers/job/frame_source.hpp"
#include "drivers/job/job_accumulator.hpp"
#include "drivers/job/job_inputs.hpp"
#include "drivers/job/job_support.hpp"
#include "drivers/job/stop_signals.hpp"
#include "io/trajectory_reader.hpp"
#include "io/xtc_parallel_reader.hpp"
#include "pairhist/errors.hpp"
#include "pairhist/host_cores.hpp"
#include "tasks/algorithm_choice.hpp"
#include "tasks/feeding_plan.hpp"

namespace pairhist {

namespace {
// Frames a process of a distributed run holds in its engine at once, plus one per GPU.
constexpr int kDistributedFramesInFlight = 2;
}  // namespace

SpeciesSpec parse_species(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw UsageError("--species expects NAME=SELECTION (e.g. O=OW or H=HW1,HW2), got '" + text +
                     "'");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

JobOutcome run_trajectory_job(const JobOptions& options) {
  JobOptions o = options;
  Distribution* dist = o.distribution;
  const bool root = !dist || dist->rank() == 0;
  // The GPUs' contexts are made, their kernels loaded, StarPU's view of the machine discovered
  // and the first frames decoded while the topology loads (a 1.4M-atom GRO file: ~0.3 s). A rank
  // of a distributed run opens its trajectory only once rank 0 has planned the frames: its
  // decoding threads claim them from rank 0.
  std::future<void> gpus_ready =
      std::async(std::launch::async, prepare_engine_start, o.ncuda, o.precision);
  // Before the trajectory opens: the decoding threads' columns are then pinned as they are first
  // allocated, at their cost, and the engine takes them over without a copy (submit_to_engine).
  if (o.ncuda != 0) use_pinned_host_columns();
  std::future<std::pair<analysis::Topology, JobOptions>> topology =
      std::async(std::launch::async, [o]() mutable {
        analysis::Topology t = load_job_topology(o);  // may fill in o.topology and o.species
        return std::make_pair(std::move(t), std::move(o));
      });
  FramePlan plan{o.first, o.last, o.step, o.begin_time, o.end_time, -1};
  if (o.resume && o.resume->frames() > 0) plan.resume_after = o.resume->frame_indices.back();
  io::FramePreparation pending;
  pending.pending = true;
  std::unique_ptr<FrameSource> source;
  try {
    if (!dist)
      source = std::make_unique<FrameSource>(o.trajectory, o.decode_threads, plan, pending);
  } catch (...) {
    topology.wait();  // a topology error is the one to report: it comes first in the arguments
    topology.get();
    throw;
  }
  auto [top, resolved] = topology.get();
  o = std::move(resolved);
  check_options(o);
  const double factor = length_factor(o.units);
  const double r_max_nm = o.r_max / factor;

  const auto atoms = resolve_species(o, top);
  const std::vector<uint64_t> shared = analysis::count_shared_atoms(atoms);
  const analysis::PairExclusions exclusions(analysis::parse_exclude_mode(o.exclude), top,
                                            o.topology, atoms);
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

  // A distributed run: rank 0 decides the frames and how they are cut, every rank follows.
  DistributedPlan dplan;
  if (dist) {
    DistributedPlan mine;
    if (root)
      mine = plan_distributed_run(o, plan, engine_config(o, atoms, BoxKind::none, r_max_nm), atoms,
                                  dist->ranks(), seed.box_kind);
    mine.resumed_frames = static_cast<int64_t>(seed.frames());
    dplan = dist->share_plan(&mine, o.stop);
    // The run cannot start (DistributedPlan::error_kind): rank 0 says why, the others end
    // quietly with the same exit status.
    const int kind = dplan.error_kind;
    if (kind != 0 && !root) throw RankFailure(kind >= 4 ? kind - 4 : kind == 2 ? 2 : 1);
    if (kind == 1) throw InputError(dplan.error);
    if (kind == 2) throw UsageError(dplan.error);
    if (kind == 3) throw std::runtime_error(dplan.error);
    if (kind >= 4) throw RankFailure(kind - 4);
  }
  const auto origin = std::chrono::steady_clock::now();  // the ranks' common clock
  const int parts = std::max(1, dplan.frame_parts);
  if (dist)
    source = std::make_unique<FrameSource>(o.trajectory, o.decode_threads, *dist, prep);
  else
    source->set_preparation(prep);
  if (!dist) source->stop_on(o.stop);
  if (source->natoms() != top.natoms())
    throw InputError(o.trajectory + ": frame 0: " + std::to_string(source->natoms()) +
                     " atoms, but topology " + o.topology + " has " + std::to_string(top.natoms()));

  JobOutcome out;
  out.root = root;
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
  bool kind_known = seed.box_kind >= 0;
  if (dist && dplan.box_kind >= 0) kind = static_cast<BoxKind>(dplan.box_kind), kind_known = true;
  // This process's counts; in a distributed run only those since its last hand-over, and the
  // run's state (rank 0) is `global`, folded from the ranks' reduced intervals.
  JobAccumulator acc(pairs.size(), o.nbins, shared, dist ? 0 : o.interval,
                     dist ? JobState{} : seed);
  std::unique_ptr<JobAccumulator> global;
  std::unique_ptr<IntervalExchange> exchange;
  if (dist) {
    if (parts > 1) acc.allow_wrapping();
    exchange = std::make_unique<IntervalExchange>(*dist, pairs.size(), o.nbins, o.interval,
                                                  dplan.resumed_frames);
    if (root)
      global = std::make_unique<JobAccumulator>(
          pairs.size(), o.nbins, std::vector<uint64_t>(pairs.size(), 0), o.interval, seed);
  }
  JobAccumulator& state = global ? *global : acc;  // what the outputs are made of (rank 0)
  // The result as far as completed intervals go: what is safe to write while the run goes on.
  auto snapshot = [&](const std::string& stopped_by) {
    header.box_kind = box_kind_name(kind);
    HistogramResult snap = state.result(header, false);
    snap.complete = false;
    snap.stopped_by = stopped_by;
    return snap;
  };

  const auto start = std::chrono::steady_clock::now();
  auto last_checkpoint = start;
  auto engine_started = start;
  io::TrajectoryFrame frame;
  WorkUnit unit;
  std::vector<std::vector<float>> species_xyz(atoms.size());
  for (size_t s = 0; s < atoms.size(); ++s) species_xyz[s].resize(atoms[s].size() * 3);
  std::vector<const float*> species_ptr;
  for (auto& v : species_xyz) species_ptr.push_back(v.data());
  std::vector<std::vector<uint64_t>> excluded_bins;
  if (!exclusions.empty())
    excluded_bins.assign(pairs.size(), std::vector<uint64_t>(static_cast<size_t>(o.nbins)));

  std::unique_ptr<HistogramEngine> engine;
  // PAIRHIST_COPY_COLUMNS=1 copies every frame's columns as before the hand-over, for measuring.
  const bool copy_columns = [] {
    const char* v = std::getenv("PAIRHIST_COPY_COLUMNS");
    return v && std::atoi(v) != 0;
  }();
  // Whole frames in single precision go to the engine as columns, without a copy; a part of a
  // frame leaves the frame's columns in place (the next unit may be another part).
  const bool hands_over = parts <= 1 && !copy_columns && o.precision == Precision::single;
  // After the engine: it is gone before the engine is. A distributed run's stop is rank 0's
  // to decide (the frames handed out are counted), so no rank drops frames on its own.
  StopWatcher watcher(dist ? nullptr : o.stop);
  auto stopping = [&] { return !dist && o.stop != nullptr && o.stop->load() != 0; };
  auto start_engine = [&](const io::TrajectoryFrame* first, const BoxMatrix* box) {
    if (!kind_known) kind = classify_box(*box);
    acc.set_box_kind(static_cast<int>(kind));
    if (global) global->set_box_kind(static_cast<int>(kind));
    EngineConfig config = engine_config(o, atoms, kind, r_max_nm);
    config.frame_parts = parts;
    for (int a : dplan.pair_algorithms) config.pair_algorithms.push_back(static_cast<Algorithm>(a));
    if (auto* parallel = dynamic_cast<io::XtcParallelReader*>(&source->reader())) {
      if (first) plan_reading(*parallel, o, config, *first, atoms, *box, hands_over, out);
      config.reader_threads = parallel->threads();
      out.decode_threads = parallel->threads();
    }
    if (dist) {
      // StarPU-MPI's sums run on a core of every rank.
      if (config.ncpu == 0) config.ncpu = 1;
      if (config.ncpu_beside_gpus == 0) config.ncpu_beside_gpus = 1;
      // Frames claimed are frames held: a few per GPU keep them fed, more would pile up the
      // last frames on one rank while others have none.
      const int gpus =
          o.ncuda == 0 ? 0 : (o.ncuda > 0 ? std::min(o.ncuda, cuda_devices()) : cuda_devices());
      config.max_frames_in_flight = kDistributedFramesInFlight + gpus;
    }
    gpus_ready.wait();
    engine_started = std::chrono::steady_clock::now();
    out.first_frame_seconds = std::chrono::duration<double>(engine_started - start).count();
    engine = std::make_unique<HistogramEngine>(config);
    out.engine_start_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - engine_started).count();
    watcher.set_engine(engine.get());
    for (const std::string& note : engine->notes())
      std::fprintf(stderr, "pairhist: warning: %s\n", note.c_str());
  };
  auto take = [&](std::vector<std::vector<uint64_t>> counts) {
    acc.taken(std::move(counts), engine->frames_counted());
  };
  auto checkpoint = [&] {
    if (o.on_checkpoint) o.on_checkpoint(state.state());
    last_checkpoint = std::chrono::steady_clock::now();
  };
  // Rank 0 of a distributed run: each interval the ranks completed is kept as one process
  // keeps its own (checkpoint, then outputs).
  auto interval_closed = [&] {
    checkpoint();
    if (o.on_interval) o.on_interval(snapshot("in progress"));
    if (dist)
      dist->note_kept(std::to_string(state.state().intervals.size()) + " complete intervals (" +
                      std::to_string(state.state().frames()) + " frames) are kept" +
                      o.output_place);
    if (o.progress) o.progress(static_cast<int64_t>(state.state().frames()));
  };
  bool exhausted = false;
  std::vector<int64_t> engine_frames;  // the file's frame of each frame the engine was given
  try {
    for (;;) {
      if (stopping()) break;
      if (!source->next(frame, unit)) {
        exhausted = !stopping();
        break;
      }
      const int64_t index = unit.file_index;
      const std::string where = o.trajectory + ": frame " + std::to_string(index) + ": ";
      try {
        const BoxMatrix box = to_matrix(frame.box);
        if (!engine) {
          if (const std::string problem = box_problem(box); !problem.empty())
            throw InputError(where + problem);
          start_engine(&frame, &box);
        }
        if (exchange && exchange->interval_of(unit.ordinal) != exchange->current()) {
          // The unit starts a later interval: this rank's counts of its interval go to rank 0.
          take(engine->take_histograms());
          exchange->hand_over(acc, exchange->interval_of(unit.ordinal));
        }
        check_frame_box(box, kind, o, r_max_nm, header.length_unit, where);
        if (parts > 1) engine->set_frame_part(unit.part);
        submit_to_engine(*engine, frame, atoms, box, where, hands_over);
        engine_frames.push_back(index);
        engine->check_devices();
        SparseBins excluded;
        const bool whole = unit.part <= 0;   // a frame, or the first part of one: its record
        if (!exclusions.empty() && whole) {  // the species' own coordinates
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
          exclusions.add_frame(species_ptr, box, kind, r_max_nm, o.nbins, o.precision,
                               excluded_bins);
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
        acc.submitted({index, frame.time, volume, whole}, std::move(excluded));
        if (exchange) exchange->submitted(unit);
      } catch (const InputError& e) {
        if (!dist) throw;
        // The run's frames end before this one, on every rank; this rank goes on to the end.
        dist->report_error(index, e.what());
        break;
      }
      const uint64_t submitted = engine->frames_submitted();
      const auto ring = static_cast<uint64_t>(engine->frames_in_flight());
      acc.finished_before(submitted > ring ? submitted - ring : 0);
      if (dist) {
        if (global) exchange->collect(*global, nullptr, INT64_MAX, false, interval_closed);
        continue;
      }
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
  } catch (const DeviceError& e) {
    // As for a bad frame: the completed intervals are kept, marked incomplete.
    const uint64_t f = e.frame();
    const std::string message =
        f < engine_frames.size()
            ? o.trajectory + ": frame " + std::to_string(engine_frames[f]) + ": " + e.problem()
            : std::string(e.what());
    if (dist) dist->fail(message);  // ends every rank
    if (engine) engine->drop_unstarted_frames();
    if (!acc.state().intervals.empty() && o.on_interval) o.on_interval(snapshot(message));
    throw DeviceError(message, e.problem(), f);
  } catch (const std::exception& e) {
    if (dist) dist->fail(e.what());  // ends every rank
    if (engine) engine->drop_unstarted_frames();
    throw;
  }
  if (dist) {
    if (!engine) start_engine(nullptr, nullptr);  // StarPU-MPI needs StarPU, frames or not
    DistributedEnd end{*dist,     o,          header, kind,           acc,   global.get(),
                       *exchange, *engine,    origin, engine_started, start, interval_closed,
                       snapshot,  checkpoint, parts};
    return finish_distributed_job(end, std::move(out));
  }
  const bool stopped = !exhausted || acc.dropped() > 0;
  if (!engine && acc.state().frames() == 0 && !stopped)
    throw InputError(o.trajectory + ": no frame selected among the " +
                     std::to_string(source->frames_read()) + " frames read");

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
  describe_engine(*engine, acc.state().frames() - out.frames_resumed, out);
  return out;
}

void describe_engine(const HistogramEngine& engine, uint64_t frames_here, JobOutcome& out) {
  out.activity = engine.activity();
  for (size_t p = 0; p < out.result.pairs.size() && p < out.activity.pair_work.size(); ++p) {
    const PairWork& w = out.activity.pair_work[p];
    out.pairs_examined += w.algorithm == Algorithm::cell_list
                              ? w.candidates
                              : out.result.pairs_per_frame(out.result.pairs[p]) * frames_here;
  }
  out.cpu_workers = engine.cpu_workers();
  out.cuda_workers = engine.cuda_workers();
  out.scheduler = engine.scheduler();
  out.tasks = engine.tasks_submitted();
  out.frames_in_flight = engine.frames_in_flight();
  out.frame_bytes = engine.frame_bytes();
}

}  // namespace pairhist
