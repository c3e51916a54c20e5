#include "drivers/job/trajectory_pipeline.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <string>

#include "drivers/job/engine_settings.hpp"
#include "drivers/job/frame_handling.hpp"
#include "drivers/job/job_inputs.hpp"
#include "drivers/job/reading_plan.hpp"
#include "io/memory/species_columns.hpp"
#include "io/trajectory/trajectory_reader.hpp"
#include "io/trajectory/trajectory_topology.hpp"
#include "pairhist/errors.hpp"
#include "pairhist/periodic_images.hpp"

namespace pairhist {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Threads that pick the first frame's columns while the engine starts (one took 0.1-0.3 s at
// 11M atoms: longer than the engine's start).
constexpr int kFirstColumnsThreads = 4;

// The reader's timings' clock (io::ReadingTiming).
double seconds_since_epoch() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

TrajectoryPipeline::TrajectoryPipeline(const JobOptions& options) : options_(options) {}

JobOutcome TrajectoryPipeline::run() {
  start_loading();
  assemble();
  count_frames();
  io::TrajectoryReader& reader = stream_->source().reader();
  if (const io::ReadingFigures figures = reader.reading_figures(); figures.threaded()) {
    out_.decode_seconds_per_frame = figures.seconds_per_frame;
    out_.decode_window_wait_seconds = figures.window_wait_seconds;
    out_.decode_caller_wait_seconds = figures.caller_wait_seconds;
    out_.decode_caller_promotions = figures.caller_promotions;
    out_.decode_lock_wait_seconds = figures.lock_wait_seconds;
    if (options_.reading_timeline && engine_) {
      const double offset = engine_->activity_seconds() - seconds_since_epoch();
      out_.reading_timeline = reader.timings();
      for (io::ReadingTiming& t : out_.reading_timeline)
        for (double* at : {&t.claimed, &t.decoded, &t.ready, &t.delivered})
          if (*at != 0) *at += offset;
    }
  }
  if (!engine_ && sink_->needs_engine_to_finish()) start_engine(nullptr, nullptr);
  return sink_->finish(std::move(out_), engine_.get(), *stream_);
}

void TrajectoryPipeline::release_engine() {
  watcher_.reset();
  engine_.reset();
}

void TrajectoryPipeline::start_loading() {
  const JobOptions& o = options_;
  // The GPUs' contexts are made, their kernels loaded, StarPU's view of the machine discovered
  // and the first frames decoded while the topology loads (a 1.4M-atom GRO file: ~0.3 s). A rank
  // of a distributed run opens its trajectory only once rank 0 has planned the frames: its
  // decoding threads claim them from rank 0.
  out_.start_marks.pipeline = process_seconds();
  // An .mdcrd takes its atom count from the topology, which loads beside its opening.
  if (!o.topology.empty()) io::state_trajectory_topology(o.trajectory, o.topology);
  // The hooks that pin the decoding threads' columns as they are first allocated (at their cost;
  // the engine then takes them over without a copy, submit_to_engine) are installed first, on
  // that thread too: the device query initialises CUDA, ~0.5 s on a 4-GPU node, which held
  // back the trajectory's opening. No column is allocated before open() gives the species.
  std::promise<void> pinning;
  pinning_ready_ = pinning.get_future().share();
  gpus_ready_ = std::async(std::launch::async, [ncuda = o.ncuda, precision = o.precision,
                                                pinning = std::move(pinning)]() mutable {
    try {
      if (ncuda != 0) use_pinned_host_columns();
      pinning.set_value();
    } catch (...) {
      pinning.set_exception(std::current_exception());
    }
    prepare_engine_start(ncuda, precision);
    return process_seconds();
  });
  topology_ = std::async(std::launch::async, [o = options_]() mutable {
    const auto t0 = std::chrono::steady_clock::now();
    analysis::Topology t = load_job_topology(o);  // may fill in o.topology and o.species
    const double seconds = seconds_since(t0);
    return LoadedTopology{std::move(t), std::move(o), seconds, process_seconds()};
  });
  FramePlan plan{o.first, o.last, o.step, o.begin_time, o.end_time, -1};
  if (o.resume && o.resume->frames() > 0) plan.resume_after = o.resume->frame_indices.back();
  try {
    stream_ = o.open_frame_stream(plan, o);
  } catch (...) {
    topology_.wait();  // a topology error is the one to report: it comes first in the arguments
    topology_.get();
    throw;
  }
  out_.start_marks.trajectory_open = process_seconds();
  if (io::TrajectoryReader* reader = stream_->opened_reader()) {
    if (o.reading_timeline) reader->record_timings();
    // The pinning hooks come with CUDA's start (0.7-1.3 s into a 4-GPU node's run), and
    // the GPUs' contexts later: decoding threads decode meanwhile, into staging, and the
    // frames are promoted into pinned columns once the GPUs are ready.
    if (o.ncuda != 0 && reader->await_pinning()) awaiting_pinning_ = reader;
  }
}

void TrajectoryPipeline::assemble() {
  {
    LoadedTopology loaded = topology_.get();
    const auto t0 = std::chrono::steady_clock::now();
    run_ = define_run(std::move(loaded.resolved), loaded.topology);
    out_.topology_seconds = loaded.seconds;
    out_.define_seconds = seconds_since(t0);
    out_.start_marks.topology_loaded = loaded.loaded_at;
    out_.start_marks.run_defined = process_seconds();
    if (const auto& defined = run_->options.hooks.on_defined) defined(*run_, loaded.topology);
  }
  const JobOptions& o = run_->options;
  if (!awaiting_pinning_) pinning_ready_.get();
  stream_->open(*run_);
  const int natoms = stream_->source().natoms();
  if (natoms != run_->topology_atoms)
    throw InputError(o.trajectory + ": frame 0: " + std::to_string(natoms) +
                     " atoms, but topology " + o.topology + " has " +
                     std::to_string(run_->topology_atoms));
  for (const std::string& note : run_->notes)
    std::fprintf(stderr, "pairhist: warning: %s\n", note.c_str());
  out_.frames_resumed = run_->seed.frames();
  // The run's box kind is its first frame's, also for a resumed run's later frames.
  kind_known_ = run_->seed.box_kind >= 0;
  if (kind_known_) kind_ = static_cast<BoxKind>(run_->seed.box_kind);
  if (stream_->box_kind() >= 0)
    kind_ = static_cast<BoxKind>(stream_->box_kind()), kind_known_ = true;
  if (o.box_kind >= 0) kind_ = static_cast<BoxKind>(o.box_kind), kind_known_ = true;
  sink_ = stream_->make_sink(*run_, clock_, kind_);
}

void TrajectoryPipeline::count_frames() {
  const JobOptions& o = run_->options;
  clock_.start = std::chrono::steady_clock::now();
  out_.before_first_frame_seconds = process_seconds();
  out_.start_marks.counting = out_.before_first_frame_seconds;
  exclusions_.emplace(run_->exclusions, run_->atoms, run_->pairs.size(), o.nbins, run_->r_cut_nm,
                      run_->r_min_nm);
  // Whole frames in single precision go to the engine as columns, without a copy; a part of a
  // frame leaves the frame's columns in place (the next unit may be another part).
  hands_over_ = stream_->frame_parts() <= 1 && o.precision == Precision::single;
  watcher_.emplace(stream_->stop_flag());
  try {
    count_until_end();
    if (engine_) {
      if (stream_->stop_requested()) engine_->drop_unstarted_frames();  // the watcher may not have
      std::vector<std::vector<uint64_t>> counts = engine_->finish();    // after a stop: the begun
      sink_->taken(std::move(counts), engine_->frames_counted());
    }
  } catch (const BoxKindWidens&) {
    if (engine_) engine_->drop_unstarted_frames();  // counted again as triclinic
    throw;
  } catch (const InputError& e) {
    if (engine_) engine_->drop_unstarted_frames();  // no need to finish what will not be kept
    sink_->keep_completed(e.what());                // then the error is reported
    throw;
  } catch (const DeviceError& e) {
    // As for a bad frame: the completed intervals are kept, marked incomplete.
    const std::string message = device_error_message(e);
    stream_->fail(message);
    if (engine_) engine_->drop_unstarted_frames();
    sink_->keep_completed(message);
    throw DeviceError(message, e.problem(), e.frame());
  } catch (const std::exception& e) {
    stream_->fail(e.what());
    if (engine_) engine_->drop_unstarted_frames();
    throw;
  }
}

std::string TrajectoryPipeline::device_error_message(const DeviceError& e) const {
  const uint64_t f = e.frame();
  if (f >= engine_frames_.size()) return e.what();
  return run_->options.trajectory + ": frame " + std::to_string(engine_frames_[f]) + ": " +
         e.problem();
}

void TrajectoryPipeline::count_until_end() {
  for (;;) {
    if (stream_->stop_requested()) return;
    if (!stream_->next(frame_, unit_)) return;
    if (!count_unit()) return;
    if (!sink_->unit_done(*engine_)) return;
  }
}

bool TrajectoryPipeline::count_unit() {
  const JobOptions& o = run_->options;
  const int64_t index = unit_.file_index;
  const std::string where = o.trajectory + ": frame " + std::to_string(index) + ": ";
  // A dynamic species' atoms of this frame, from its whole coordinates as the file holds them:
  // -xy flattens the distances counted, not the selection (gmx rdf evaluates it in 3D).
  const bool dynamic = run_->has_dynamic();
  try {
    if (dynamic) select_frame_species(*run_, frame_, where, frame_species_);
    prepare_positions(*run_, frame_, where);
    const BoxMatrix box = to_matrix(frame_.box);
    if (!engine_) {
      if (const std::string problem = box_problem(box); !problem.empty())
        throw InputError(where + problem);
      start_engine_with_first_frame(box, dynamic);
    }
    sink_->unit_coming(unit_, *engine_);
    std::vector<int64_t> species_counts;  // --sphere: the frame's atoms per species
    if (run_->sphere.active()) {
      species_counts = submit_sphere(box, where);
    } else {
      try {
        // A distributed run cannot start again on one rank: its frames are refused instead.
        check_frame_box(box, kind_, o, run_->r_max_nm, run_->header.length_unit, where, images_,
                        !o.distributed.active());
      } catch (const BoxKindWidens& e) {
        // Every rank counts with the kind rank 0 planned, and one rank cannot start again alone.
        if (o.distributed.active())
          throw InputError(std::string(e.what()) +
                           ": a distributed run keeps its first frame's box kind (run it in one "
                           "process, which counts it as triclinic)");
        throw;  // run_trajectory_job starts again as a triclinic run
      }
      if (stream_->frame_parts() > 1) engine_->set_frame_part(unit_.part);
      submit_to_engine(*engine_, frame_, dynamic ? frame_species_.atoms : run_->atoms, box, where,
                       hands_over_);
    }
    engine_frames_.push_back(index);
    engine_->check_devices();
    // A frame, or the first part of one, is the unit that holds its record and its exclusions.
    const bool whole = unit_.part <= 0;
    SparseBins excluded;
    // Kept per frame until the engine has counted it: a stop may drop the frame.
    // A dynamic species' frame leaves out the excluded pairs of the atoms it selects.
    if (whole)
      excluded = exclusions_->bins_of(frame_, box, kind_, images_, run_->r_max_nm, o.precision,
                                      dynamic ? &frame_species_.atoms : nullptr,
                                      dynamic ? &frame_species_.pairs : nullptr);
    double volume = frame_volume(box, kind_, run_->length_factor, o.volume);
    if (o.xy && box[8] > 0) volume /= box[8] * run_->length_factor;  // the x-y area
    FrameRecord record{index, frame_.time, volume, whole, std::move(species_counts), {}, {}};
    if (run_->sphere.active()) record.centre_counts = sphere_frame_.centre_counts;
    if (dynamic) {
      record.species_counts = frame_species_.counts;
      record.pairs = frame_species_.pairs;
      record.shared = frame_species_.shared;
    }
    sink_->submitted(unit_, record, std::move(excluded));
  } catch (const InputError& e) {
    if (!stream_->ends_before(index, e.what())) throw;
    return false;
  }
  return true;
}

std::vector<int64_t> TrajectoryPipeline::submit_sphere(const BoxMatrix& box,
                                                       const std::string& where) {
  if (const std::string problem = box_problem(box); !problem.empty())
    throw InputError(where + problem);
  const std::string problem =
      run_->sphere.cut(frame_.xyz.data(), box, run_->atoms, run_->header.length_unit,
                       run_->length_factor, sphere_frame_);
  if (!problem.empty()) throw InputError(where + problem);
  engine_->submit_frame_atoms(sphere_frame_.xyz.data(), sphere_frame_.atoms, BoxMatrix{});
  return sphere_frame_.counts;
}

void TrajectoryPipeline::start_engine_with_first_frame(const BoxMatrix& box, bool dynamic) {
  // A first frame decoded whole (before the topology named the species) gets its columns while
  // the engine starts, on a thread of its own, and the engine takes them over: picked on the
  // feeding thread after the start, they cost a 4-GPU node's run 0.17-0.29 s at 11M atoms
  // (issue 24). The columns are what the decoding threads make of the later frames.
  const std::vector<std::vector<int>>& species = run_->preparation.species;
  const bool prepared_later = stream_->source().reader().reading_figures().threaded();
  if (!prepared_later || !hands_over_ || frame_.columns.filled || species.empty() || dynamic ||
      run_->sphere.active()) {
    start_engine(&frame_, &box);
    return;
  }
  io::SpeciesColumns columns;
  std::future<void> gathered = std::async(std::launch::async, [&, pinning = pinning_ready_] {
    pinning.wait();  // pinned as allocated (an error shows in start_engine)
    io::gather_species_columns(frame_.xyz.data(), species, columns, kFirstColumnsThreads);
  });
  try {
    start_engine(&frame_, &box);  // reads frame_, as the gathering does: writes neither
  } catch (...) {
    gathered.wait();
    throw;
  }
  gathered.get();
  frame_.columns = std::move(columns);
}

void TrajectoryPipeline::start_engine(const io::TrajectoryFrame* first, const BoxMatrix* box) {
  const JobOptions& o = run_->options;
  if (run_->sphere.active()) kind_ = BoxKind::none, kind_known_ = true;  // a cut-out has no box
  if (!kind_known_) kind_ = classify_box(*box);
  EngineConfig config = engine_config(o, run_->atoms, kind_, run_->r_max_nm);
  // r_max beyond the first box's minimum-image limit (or a later box's: counted again) counts
  // every periodic image (a distributed run as rank 0 decided on the run's first frame).
  images_ = kind_ != BoxKind::none &&
            (o.periodic_images == 1 ||
             (box && beyond_minimum_image(*box, counted_radius(run_->r_max_nm, config.r_cut))));
  if (stream_->periodic_images() >= 0) images_ = stream_->periodic_images() == 1;
  // A resumed run counts its frames as the checkpoint's were.
  if (run_->seed.periodic_images >= 0) images_ = run_->seed.periodic_images == 1;
  config.periodic_images = images_;
  sink_->set_box_kind(kind_, images_);
  config.frame_parts = stream_->frame_parts();
  config.pair_algorithms = stream_->pair_algorithms();
  io::TrajectoryReader& reader = stream_->source().reader();
  if (reader.reading_figures().threaded()) {
    if (first) plan_reading(reader, o, config, *first, run_->atoms, *box, hands_over_, out_);
    const int threads = reader.reading_figures().threads;
    config.reader_threads = threads;
    out_.decode_threads = threads;
  }
  stream_->limit_engine(config);
  const auto wait_from = std::chrono::steady_clock::now();
  out_.start_marks.gpus_ready = gpus_ready_.get();
  pinning_ready_.get();  // set before the GPUs were ready; throws what installing the hooks threw
  if (awaiting_pinning_) {
    awaiting_pinning_->pinning_settled();
    awaiting_pinning_ = nullptr;
  }
  out_.gpu_wait_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wait_from).count();
  clock_.engine_started = std::chrono::steady_clock::now();
  out_.first_frame_seconds =
      std::chrono::duration<double>(clock_.engine_started - clock_.start).count();
  engine_ = std::make_unique<HistogramEngine>(config);
  out_.engine_start_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - clock_.engine_started)
          .count();
  out_.start_marks.engine_started = process_seconds();
  watcher_->set_engine(engine_.get());
  for (const std::string& note : engine_->notes())
    std::fprintf(stderr, "pairhist: warning: %s\n", note.c_str());
}

}  // namespace pairhist
