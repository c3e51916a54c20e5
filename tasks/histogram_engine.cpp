// The engine: owns the StarPU session, the frame buffers, the exact reduction and the report;
// planners (pair_histogram_planner, cell_histogram_planner) turn each frame into tasks, which
// frame_intake.cpp submits as frames arrive.
#include <starpu.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "codelets/cpu/kernel_isa.hpp"
#include "pairhist/errors.hpp"
#include "pairhist/settings.hpp"
#include "tasks/engine_impl.hpp"

namespace pairhist {

std::vector<std::pair<int, int>> species_pairs(int nspecies) {
  std::vector<std::pair<int, int>> pairs;
  for (int a = 0; a < nspecies; ++a)
    for (int b = a; b < nspecies; ++b) pairs.emplace_back(a, b);
  return pairs;
}

HistogramEngine::Impl::Impl(const EngineConfig& c) : config(c), capacities(c.species_sizes) {
  if (config.nbins <= 0) throw UsageError("the number of bins must be positive");
  // The kernels' build is process-wide, like the settings that pick it.
  cpu::force_avx2_kernels(settings().force_avx2_kernels);
  if (!(config.r_max > 0)) throw UsageError("r_max must be positive");
  if (!(config.r_min >= 0) || !(config.r_min < config.r_max))
    throw UsageError("r_min must be at least 0 and below r_max (" + std::to_string(config.r_max) +
                     "), got " + std::to_string(config.r_min));
  for (int64_t n : config.species_sizes)
    if (n < 0) throw UsageError("a species size (atoms it may hold) must not be negative");
  const size_t value_size = config.precision == Precision::single ? sizeof(float) : sizeof(double);
  for (int64_t n : config.species_sizes)
    frame_bytes += static_cast<uint64_t>(std::max<int64_t>(n, 0)) * 3 * value_size;
  if (config.frames_in_flight < 1) config.frames_in_flight = frames_for_budget();
  if (config.whole_frames && config.species_sizes.size() > codelets::kMaxFrameSpecies)
    throw UsageError("whole-frame tasks take at most " +
                     std::to_string(codelets::kMaxFrameSpecies) + " species");
  // A shared queue is the baseline's point: workers take whole frames in order.
  if (config.whole_frames && config.scheduler.empty()) config.scheduler = "eager";
  if (config.whole_frames) config.algorithm = Algorithm::all_pairs;
  pairs = species_pairs(static_cast<int>(config.species_sizes.size()));
  if (!config.counted_pairs.empty() && config.counted_pairs.size() != pairs.size())
    throw UsageError("counted_pairs needs one entry per species pair (" +
                     std::to_string(pairs.size()) + "), got " +
                     std::to_string(config.counted_pairs.size()));
  if (!config.pair_algorithms.empty() && config.pair_algorithms.size() != pairs.size())
    throw UsageError("pair_algorithms needs one entry per species pair (" +
                     std::to_string(pairs.size()) + "), got " +
                     std::to_string(config.pair_algorithms.size()));
  if (config.frame_parts < 1) throw UsageError("frame_parts must be at least 1");
  if (config.frame_parts > 1 && config.whole_frames)
    throw UsageError("whole-frame tasks cannot count parts of frames");
  if (config.periodic_images && config.box_kind != BoxKind::none) {
    // From here on the engine is a run without a box over the species and their images.
    images = std::make_unique<PeriodicImages>(config);
    const int flight =
        c.frames_in_flight > 0 ? config.frames_in_flight : std::min(config.frames_in_flight, 4);
    config = images->internal();
    config.frames_in_flight = flight;
    pairs = species_pairs(static_cast<int>(config.species_sizes.size()));
  }

  // Before any frame buffer exists: an engine that feeds GPUs pins the columns it holds or
  // takes over (a driver calls it earlier, before its readers allocate theirs).
  if (config.ncuda != 0 && StarpuSession::gpus_present()) use_pinned_host_columns();
  session = std::make_unique<StarpuSession>(config, frame_bytes);
  try {
    codelets::implementation_counters().reset();
    // Per-task start and end times feed the activity report (busy time, tail idle).
    starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
    if (config.lp_bound) starpu_bound_start(0, 0);  // no dependencies: the area bound
    recorder = std::make_unique<ActivityRecorder>();
    // Single precision keeps its frames in HostColumns, which callers' columns can replace;
    // GPUs read them pinned, so without pinning hooks they keep starpu_malloc's buffers.
    const bool feeds_gpus = session->count_workers(STARPU_CUDA_WORKER) > 0;
    const bool columns =
        config.precision == Precision::single && (!feeds_gpus || host_pinning_installed());
    ring = std::make_unique<FrameRing>(config.species_sizes, value_size, config.frames_in_flight,
                                       columns);
    spatial_order = wide_windows_without_box();
    if (config.own_context) session->create_context(config);
    submitter = std::make_unique<TaskSubmitter>(pairs.size(), config.nbins, config.sum_tasks,
                                                session->context(), ActivityRecorder::task_done,
                                                recorder.get());
    if (config.lp_bound) {
      submitter->start_bound();
      recorder->start_measuring(session->context());
    }
    machine = session->machine();
    if (!config.cpu_workers_count && machine.cuda_workers > 0) {
      submitter->count_on_gpus_only();
      machine.cpu_workers = 0;  // planned as GPUs alone: no tasks cut to a core's size
    }
    for (size_t p = 0; p < pairs.size(); ++p) {
      PairWork w;
      w.species_a = pairs[p].first, w.species_b = pairs[p].second;
      w.counted = counted(p);
      work.push_back(w);
    }
    // Cell lists need each frame's bounds: gathered until the first frame has decided.
    gather_bounds = config.algorithm != Algorithm::all_pairs;
  } catch (...) {
    release_data();
    throw;
  }
}

HistogramEngine::Impl::~Impl() {
  if (!finished) release_data();
  // Every task's callback touches the recorder: it must have run before the recorder goes.
  if (recorder && submitter) recorder->wait_for_callbacks(submitter->tasks());
}

int HistogramEngine::Impl::frames_for_budget() const {
  if (frame_bytes == 0) return 2;
  const uint64_t k = config.memory_budget_bytes / frame_bytes;
  const int frames = static_cast<int>(std::clamp<uint64_t>(k, 2, 64));
  return config.max_frames_in_flight > 0
             ? std::min(frames, std::max(2, config.max_frames_in_flight))
             : frames;
}

bool HistogramEngine::Impl::wide_windows_without_box() const {
#if defined(PAIRHIST_CUDA_CODELETS)
  return config.box_kind == BoxKind::none && config.ncuda != 0 && StarpuSession::gpus_present() &&
         codelets::cuda_counts_in_windows(config.nbins) && config.algorithm != Algorithm::cell_list;
#else
  return false;
#endif
}

void HistogramEngine::Impl::release_data() {
  if (cell_planner) {
    if (recorder && submitter) recorder->wait_for_callbacks(submitter->tasks());
    cell_planner->release_caches();
  }
  if (ring) ring->release();
  if (submitter) submitter->release();
  finished = true;
}

void HistogramEngine::Impl::make_planners(const BoxMatrix& box, const FrameBounds& bounds) {
  const CellGrid grid = engine_cell_grid(config, box, bounds, nullptr);
  const bool gpu = machine.cuda_workers > 0;
  PairSelection tiles(pairs.size(), false), cells(pairs.size(), false);
  bool any_cells = false, any_tiles = false;
  for (size_t p = 0; p < pairs.size(); ++p) {
    const auto [a, b] = pairs[p];
    const Algorithm requested =
        config.pair_algorithms.empty() ? config.algorithm : config.pair_algorithms[p];
    const Algorithm alg = requested == Algorithm::all_pairs
                              ? Algorithm::all_pairs
                              : choose_pair_algorithm(requested, grid, config.species_sizes[a],
                                                      config.species_sizes[b], a == b, gpu);
    algorithm_of_pair.push_back(alg);
    work[p].algorithm = alg;
    if (!counted(p)) continue;
    (alg == Algorithm::cell_list ? cells : tiles)[p] = true;
    (alg == Algorithm::cell_list ? any_cells : any_tiles) = true;
  }
  if (any_tiles || !any_cells)
    pair_planner =
        std::make_unique<PairHistogramPlanner>(config, machine, tiles, *submitter, *recorder);
  if (any_cells)
    cell_planner =
        std::make_unique<CellHistogramPlanner>(config, machine, cells, *submitter, *recorder);
  gather_bounds = any_cells;
  recorder->set_cpu_task_limits(pair_planner ? pair_planner->cpu_task_limit() : 0,
                                cell_planner ? cell_planner->cpu_task_limit() : 0);
}

std::vector<std::vector<uint64_t>> HistogramEngine::Impl::take(bool reset) {
  if (finished) throw std::logic_error("HistogramEngine: used after finish");
  auto result = submitter->take(reset);
  for (size_t p = 0; p < result.size(); ++p) {
    auto& h = result[p];
    if (p < algorithm_of_pair.size() && algorithm_of_pair[p] == Algorithm::cell_list)
      work[p].candidates += h.back();
    h.pop_back();
    for (uint64_t v : h) work[p].within += v;
  }
  return images ? images->fold(std::move(result)) : result;
}

std::vector<std::vector<uint64_t>> HistogramEngine::Impl::collect() {
  // Every task of ours is submitted: stop recording before the final acquire, whose reduction
  // copies (StarPU's own data_cpy tasks) have no calibrated model in most runs.
  const bool bound_recording = submitter->bound_recording();
  if (bound_recording) starpu_bound_stop();
  auto result = take(false);
  if (bound_recording) bound = submitter->finish_bound(config.lp_bound_text);
  // StarPU runs a task's callback after releasing its data, so the take above can return
  // before the last callbacks have recorded their tasks.
  recorder->wait_for_callbacks(submitter->tasks());
  if (recorder->measuring()) measured_bound = recorder->finish_measuring();
  release_data();
  return result;
}

HistogramEngine::HistogramEngine(const EngineConfig& config) : impl_(new Impl(config)) {}
HistogramEngine::~HistogramEngine() = default;

void HistogramEngine::submit_frame(const std::vector<const float*>& species_xyz,
                                   const BoxMatrix& box) {
  impl_->submit(species_xyz, impl_->capacities, box);
}

void HistogramEngine::submit_frame(const std::vector<const float*>& species_xyz,
                                   const std::vector<int64_t>& species_counts,
                                   const BoxMatrix& box) {
  impl_->submit(species_xyz, species_counts, box);
}

void HistogramEngine::submit_frame_atoms(const float* frame_xyz,
                                         const std::vector<std::vector<int>>& species_atoms,
                                         const BoxMatrix& box) {
  impl_->submit_atoms(frame_xyz, species_atoms, box);
}

void HistogramEngine::submit_frame_columns(const std::vector<const float*>& species_soa,
                                           const BoxMatrix& box, const CoordinateBounds* bounds) {
  impl_->submit_columns(species_soa, impl_->capacities, box, bounds);
}

void HistogramEngine::submit_frame_columns(const std::vector<const float*>& species_soa,
                                           const std::vector<int64_t>& species_counts,
                                           const BoxMatrix& box, const CoordinateBounds* bounds) {
  impl_->submit_columns(species_soa, species_counts, box, bounds);
}

bool HistogramEngine::submit_frame_columns_swap(std::vector<HostColumn>& species_soa,
                                                const BoxMatrix& box,
                                                const CoordinateBounds& bounds) {
  return impl_->swap_in(species_soa, box, bounds);
}

std::vector<std::vector<uint64_t>> HistogramEngine::finish() {
  auto counts = impl_->collect();
  check_devices();
  return counts;
}

void HistogramEngine::check_devices() const {
  const codelets::DeviceFaults& faults = impl_->faults;
  if (faults.any())
    throw DeviceError(faults.message() +
                          " (the histograms are incomplete from the engine's frame " +
                          std::to_string(faults.frame()) + ")",
                      faults.message(), faults.frame());
}

void HistogramEngine::set_frame_part(int part) {
  if (part < -1 || part >= impl_->config.frame_parts)
    throw std::invalid_argument("HistogramEngine: no part " + std::to_string(part) + " of " +
                                std::to_string(impl_->config.frame_parts));
  impl_->part = part;
}

std::vector<std::vector<uint64_t>> HistogramEngine::take_histograms() {
  auto counts = impl_->take(true);
  check_devices();
  return counts;
}

uint64_t HistogramEngine::drop_unstarted_frames() {
  return impl_->gate.close();
}

uint64_t HistogramEngine::frames_counted() const {
  return impl_->gate.counted(impl_->frames);
}

int HistogramEngine::cpu_workers() const {
  return impl_->session->count_workers(STARPU_CPU_WORKER);
}
const std::vector<std::string>& HistogramEngine::notes() const {
  return impl_->session->notes();
}
int HistogramEngine::cuda_workers() const {
  return impl_->session->count_workers(STARPU_CUDA_WORKER);
}
std::string HistogramEngine::scheduler() const {
  return impl_->session->scheduler();
}
uint64_t HistogramEngine::frames_submitted() const {
  return impl_->frames;
}
uint64_t HistogramEngine::tasks_submitted() const {
  return impl_->submitter->tasks();
}
int HistogramEngine::frames_in_flight() const {
  return impl_->config.frames_in_flight;  // the slots themselves are gone after finish()
}
uint64_t HistogramEngine::frame_bytes() const {
  return impl_->frame_bytes;
}

double HistogramEngine::activity_seconds() const {
  return impl_->recorder ? impl_->recorder->seconds_since_start() : 0;
}

RunActivity HistogramEngine::activity() const {
  RunActivity run;
  const auto& counters = codelets::implementation_counters();
  run.tasks_cpu = counters.tasks[0];
  run.tasks_cuda_shared = counters.tasks[1];
  run.tasks_cuda_global = counters.tasks[2];
  run.tasks_cell_cpu = counters.tasks[3];
  run.tasks_cell_cuda = counters.tasks[4];
  run.pairs_cpu = counters.pairs[0];
  run.pairs_cuda_shared = counters.pairs[1];
  run.pairs_cuda_global = counters.pairs[2];
  run.pairs_cell_cpu = counters.pairs[3];
  run.pairs_cell_cuda = counters.pairs[4];
  impl_->recorder->fill(run);
  if (cpu_workers() > 0) run.cpu_kernels = cpu::kernel_isa_name(cpu::kernel_isa());
  const BoundOutcome& b = impl_->bound;
  run.lp_bound_seconds = b.seconds;
  run.lp_bound_reason = b.reason;
  run.lp_task_kinds = b.kinds;
  run.lp_kinds_uncalibrated = b.uncalibrated;
  run.lp_kinds_partly_calibrated = b.partly;
  run.lp_minimum_measurements = b.minimum;
  run.lp_text = b.lp_text;
  const MeasuredBound& m = impl_->measured_bound;
  run.lp_bound_measured_seconds = m.seconds;
  run.lp_bound_measured_reason = m.reason;
  run.lp_measured_kinds = m.kinds;
  run.lp_measured_estimated_kinds = m.estimated_kinds;
  run.lp_measured_unknown_entries = m.unknown_entries;
  if (impl_->pair_planner) impl_->pair_planner->describe(run);
  if (impl_->cell_planner) impl_->cell_planner->describe(run);
  run.pair_work = impl_->images ? impl_->images->fold(impl_->work) : impl_->work;
  if (const PeriodicImages* images = impl_->images.get()) {
    run.periodic_images = true;
    run.image_translations = images->translations();
    run.most_image_translations = images->most_translations();
    run.image_points = images->image_points();
  }
  run.frames_handed_over = impl_->frames_handed_over;
  return run;
}

}  // namespace pairhist
