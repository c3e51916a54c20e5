#include <starpu.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <stdexcept>
#include <thread>

#include "../codelets/starpu/frame_histogram_codelet.hpp"
#include "../codelets/starpu/pair_histogram_codelet.hpp"
#include "decomposition.hpp"
#include "lp_bound.hpp"
#include "measured_recorder.hpp"
#include "pairhist/engine.hpp"
#include "pairhist/errors.hpp"
#include "row_tiles.hpp"
#include "spatial_order.hpp"
#include "throughput_share.hpp"

namespace pairhist {

std::vector<std::pair<int, int>> species_pairs(int nspecies) {
  std::vector<std::pair<int, int>> pairs;
  for (int a = 0; a < nspecies; ++a)
    for (int b = a; b < nspecies; ++b) pairs.emplace_back(a, b);
  return pairs;
}

namespace {

constexpr const char* kDefaultGpuScheduler = "eager";
constexpr int kMaxCpuWorkersBesideGpus = 16;

/// One frame's coordinates, species by species, in pinned memory registered with StarPU. Slots
/// are reused round-robin; acquiring a slot for writing waits for the tasks still reading it.
struct FrameSlot {
  std::vector<void*> buffers;
  std::vector<starpu_data_handle_t> handles;  // nullptr for empty species
};

}  // namespace

/// Per-worker clocks filled by the task callbacks from StarPU's profiling information.
struct WorkerClock {
  uint64_t tasks = 0;
  uint64_t pairs = 0;
  double busy_us = 0;
  double last_end_us = 0;
};

struct HistogramEngine::Impl {
  EngineConfig config;
  std::mutex clock_mutex;
  std::vector<WorkerClock> clocks = std::vector<WorkerClock>(STARPU_NMAXWORKERS);
  double start_us = 0;
  double last_end_us = 0;
  size_t value_size = sizeof(float);
  std::vector<FrameSlot> slots;
  std::vector<starpu_data_handle_t> accumulators;  // one uint64 histogram per species pair
  std::vector<std::pair<int, int>> pairs;
  uint64_t frames = 0;
  uint64_t tasks = 0;
  uint64_t frame_bytes = 0;
  bool finished = false;
  bool spatial_order = false;  // species sorted along a Z curve as they are gathered
  DecompositionPolicy policy;
  std::vector<PlannedTask> plan;  // the tasks of the next frame (re-planned as the share moves)
  MachineShape machine;
  ThroughputTracker throughput;      // finished tasks by worker class (under clock_mutex)
  uint64_t assumed_share_pairs = 0;  // choose_policy's share, kept until rates are measured
  CpuShare share;                    // the last frame's (under clock_mutex)
  std::vector<TaskSpan> timeline;
  std::vector<FrameFeed> feed;  // under clock_mutex
  bool bound_recording = false;
  BoundRecorder bound_kinds;  // StarPU's task pools, mirrored to say why a bound is missing
  BoundOutcome bound;
  bool measuring = false;           // lp_bound: the measured-times bound (measured_bound.hpp)
  MeasuredRecorder measured_kinds;  // under clock_mutex
  MeasuredBound measured_bound;
  unsigned sched_ctx = 0;  // StarPU's global context, or our own (EngineConfig::own_context)

  explicit Impl(const EngineConfig& c) : config(c) {
    if (config.nbins <= 0) throw UsageError("the number of bins must be positive");
    if (!(config.r_max > 0)) throw UsageError("r_max must be positive");
    for (int64_t n : config.species_sizes)
      frame_bytes += static_cast<uint64_t>(std::max<int64_t>(n, 0)) * 3 *
                     (config.precision == Precision::single ? sizeof(float) : sizeof(double));
    if (config.frames_in_flight < 1) config.frames_in_flight = frames_for_budget();
    value_size = config.precision == Precision::single ? sizeof(float) : sizeof(double);
    if (config.whole_frames && config.species_sizes.size() > codelets::kMaxFrameSpecies)
      throw UsageError("whole-frame tasks take at most " +
                       std::to_string(codelets::kMaxFrameSpecies) + " species");
    // A shared queue is the baseline's point: workers take whole frames in order.
    if (config.whole_frames && config.scheduler.empty()) config.scheduler = "eager";

    starpu_conf conf;
    starpu_conf_init(&conf);
    // With GPUs, one central queue by default: lws (StarPU's default) let CPU workers and GPU-only
    // tasks stall each other, and dmda without calibrated models placed a whole 4M-atom frame on
    // one GPU; eager needs no model and was as fast as calibrated dmda (docs/performance.md).
    // StarPU reads STARPU_SCHED before the conf, and an empty value silently selects lws: an
    // empty one is dropped, and an explicit choice (run --sched) wins over the environment.
    const char* env_sched = std::getenv("STARPU_SCHED");
    if (env_sched && (!*env_sched || !config.scheduler.empty())) {
      unsetenv("STARPU_SCHED");
      env_sched = nullptr;
    }
    if (config.scheduler.empty() && !env_sched && config.ncuda != 0 && gpus_present())
      config.scheduler = kDefaultGpuScheduler;
    if (!config.scheduler.empty()) conf.sched_policy_name = config.scheduler.c_str();
    if (config.ncpu >= 0) conf.ncpus = config.ncpu;
    if (config.ncuda >= 0) conf.ncuda = config.ncuda;
    // Two workers per GPU, each with its own stream: one task's launch and completion overlap
    // the other's kernel (F1-like on the H100: 1235 instead of 997 bapps). The user's setting wins.
    setenv("STARPU_NWORKER_PER_CUDA", "2", 0);
    // StarPU drops a measurement 50% off its entry's mean and empties the entry once drops
    // outnumber samples: on loaded cores a task kind then never reached 10 measurements, and the
    // LP bound had no time for it (docs/performance.md). Only 5x outliers are dropped here.
    setenv("STARPU_HISTORY_MAX_ERROR", kHistoryMaxError, 0);
    // CPU workers on every core would starve the threads that read frames and feed the GPUs
    // (4x H200, 59 CPU workers, 4 decoding threads sharing one core: GPUs 80% busy).
    const int reserve = config.reserve_cores >= 0 ? config.reserve_cores
                        : (config.ncpu < 0 && config.ncuda != 0 && gpus_present())
                            ? 1 + std::max(0, config.reader_threads)
                            : 0;
    conf.reserve_ncpus = reserve;
    if (config.ncpu < 0 && config.ncuda != 0 && gpus_present() && !std::getenv("STARPU_NCPU"))
      conf.ncpus = cpu_workers_beside_gpus(reserve);
    conf.nopencl = 0;
    const int ret = starpu_init(&conf);
    if (ret == -ENODEV) throw std::runtime_error("StarPU found no worker to run on");
    if (ret != 0)
      throw std::runtime_error("starpu_init failed: " + std::string(std::strerror(-ret)));
    codelets::implementation_counters().reset();
    // Per-task start and end times feed the activity report (busy time, tail idle). The callback
    // argument is this engine, which StarPU must not free (the _NFREE variant below).
    starpu_profiling_status_set(STARPU_PROFILING_ENABLE);
    if (config.lp_bound) {
      starpu_bound_start(0, 0);  // no dependencies: the area bound over task kinds and workers
      bound_recording = true;
    }
    start_us = starpu_timing_now();

    try {
      allocate_data();  // validates the sizes before anything is planned for them
      spatial_order = wide_windows_without_box();
      if (config.own_context) create_context();
      if (config.lp_bound) {
        measured_kinds.start(sched_ctx);
        measuring = true;
      }
      machine = MachineShape{count_workers(STARPU_CPU_WORKER), count_workers(STARPU_CUDA_WORKER),
                             distinct_cuda_devices()};
      policy = choose_policy(config.species_sizes, machine, config.max_pairs_per_task);
      assumed_share_pairs = policy.cpu_share_pairs;
      // Groups are frame-codelet tasks, which name at most kMaxFrameSpecies species.
      if (config.species_sizes.size() > codelets::kMaxFrameSpecies) policy.group_pairs = 0;
      if (!config.whole_frames) {
        plan = plan_frame(config.species_sizes, policy, machine);
        share =
            measured_cpu_share({}, machine, frame_pairs(config.species_sizes), assumed_share_pairs);
      }
    } catch (...) {
      // The destructor does not run for a half-built object: give back what was taken.
      release_data();
      delete_context();
      starpu_shutdown();
      throw;
    }
  }

  void allocate_data() {
    pairs = species_pairs(static_cast<int>(config.species_sizes.size()));
    for (size_t p = 0; p < pairs.size(); ++p) {
      starpu_data_handle_t h;
      starpu_vector_data_register(&h, -1, 0, static_cast<uint32_t>(config.nbins), sizeof(uint64_t));
      starpu_data_set_reduction_methods(h, codelets::histogram_redux_codelet(),
                                        codelets::histogram_init_codelet());
      accumulators.push_back(h);
    }
    for (int64_t n : config.species_sizes)
      if (n > 0 && static_cast<uint64_t>(n) * 3 > UINT32_MAX)
        throw UsageError("a species has too many atoms for StarPU 1.3 vectors");
    // Slots get their buffers when first used (allocate_slot): pinning the whole ring up front
    // delays the first task (two 48 MB slots for a 4M-atom frame; 21 with the 1 GiB budget of
    // before), although a one-frame job uses one slot. Pinning on a helper thread instead stalled
    // the GPUs while it ran (docs/performance.md).
    slots.resize(static_cast<size_t>(config.frames_in_flight));
  }

  void allocate_slot(FrameSlot& slot) {
    if (!slot.handles.empty()) return;
    for (int64_t n : config.species_sizes) {
      slot.buffers.push_back(nullptr);
      slot.handles.push_back(nullptr);
      if (n <= 0) continue;
      const size_t values = static_cast<size_t>(n) * 3;
      if (starpu_malloc(&slot.buffers.back(), values * value_size) != 0) {
        slot.buffers.back() = nullptr;
        throw std::runtime_error("out of memory for frame buffers");
      }
      starpu_vector_data_register(&slot.handles.back(), STARPU_MAIN_RAM,
                                  reinterpret_cast<uintptr_t>(slot.buffers.back()),
                                  static_cast<uint32_t>(values), value_size);
    }
  }

  /// Frames whose buffers fit the memory budget: at least 2 (reading overlaps computing), at
  /// most 64 (beyond that the ring only delays the reader's errors).
  int frames_for_budget() const {
    if (frame_bytes == 0) return 2;
    const uint64_t k = config.memory_budget_bytes / frame_bytes;
    return static_cast<int>(std::clamp<uint64_t>(k, 2, 64));
  }

  static int distinct_cuda_devices() {
    std::vector<int> devices;
    for (unsigned w = 0; w < starpu_worker_get_count(); ++w)
      if (starpu_worker_get_type(static_cast<int>(w)) == STARPU_CUDA_WORKER)
        devices.push_back(starpu_worker_get_devid(static_cast<int>(w)));
    std::sort(devices.begin(), devices.end());
    return static_cast<int>(std::unique(devices.begin(), devices.end()) - devices.begin());
  }

  /// CPU workers by default when GPUs are fed: all free cores, at most kMaxCpuWorkersBesideGpus.
  /// Every worker pops from the scheduler's shared queue; on the 4x H200 host 55 CPU workers
  /// made the GPU workers wait for it (makespan 1.59-1.87 s against 1.48 s with GPUs alone),
  /// 16 did not (1.47 s), while the cores add only a few percent of the pairs there.
  int cpu_workers_beside_gpus(int reserve) const {
#if defined(PAIRHIST_CUDA_CODELETS)
    const int devices = codelets::cuda_device_count();
    const int gpus = config.ncuda > 0 ? std::min(config.ncuda, devices) : devices;
    const int free_cores =
        static_cast<int>(std::thread::hardware_concurrency()) - reserve - gpus;  // a driver each
    return free_cores > kMaxCpuWorkersBesideGpus ? kMaxCpuWorkersBesideGpus : -1;
#else
    (void)reserve;
    return -1;
#endif
  }

  /// Whether the GPU kernels will count this histogram in several windows without a box: they
  /// then skip the blocks of pairs that miss a window's bins, which needs the points of a species
  /// in spatial order (spatial_order.hpp; the counts do not depend on the order).
  bool wide_windows_without_box() const {
#if defined(PAIRHIST_CUDA_CODELETS)
    return config.box_kind == BoxKind::none && config.ncuda != 0 && gpus_present() &&
           codelets::cuda_counts_in_windows(config.nbins);
#else
    return false;
#endif
  }

  static bool gpus_present() {
#if defined(PAIRHIST_CUDA_CODELETS)
    return codelets::cuda_device_count() > 0;
#else
    return false;
#endif
  }

  ~Impl() {
    if (!finished) release_data();
    delete_context();
    starpu_shutdown();
  }

  /// Our own scheduling context over the requested workers (all by default), with our policy, so
  /// a host application's context and scheduler are left alone.
  void create_context() {
    std::vector<int> workers = config.context_workers;
    if (workers.empty())
      for (unsigned w = 0; w < starpu_worker_get_count(); ++w)
        workers.push_back(static_cast<int>(w));
    for (int w : workers)
      if (w < 0 || w >= static_cast<int>(starpu_worker_get_count()))
        throw UsageError("no StarPU worker " + std::to_string(w) + " for the engine's context");
    const std::string policy = config.scheduler.empty() ? "eager" : config.scheduler;
    sched_ctx =
        starpu_sched_ctx_create(workers.data(), static_cast<int>(workers.size()), "pairhist",
                                STARPU_SCHED_CTX_POLICY_NAME, policy.c_str(), 0);
  }

  void delete_context() {
    if (sched_ctx == 0) return;
    starpu_sched_ctx_delete(sched_ctx);
    sched_ctx = 0;
  }

  /// Workers of a kind in the engine's context.
  int count_workers(starpu_worker_archtype kind) const {
    if (sched_ctx == 0) return static_cast<int>(starpu_worker_get_count_by_type(kind));
    int n = 0;
    for (unsigned w = 0; w < starpu_worker_get_count(); ++w)
      if (starpu_sched_ctx_contains_worker(static_cast<int>(w), sched_ctx) &&
          starpu_worker_get_type(static_cast<int>(w)) == kind)
        ++n;
    return n;
  }

  static void on_task_done(void* arg) {
    auto* self = static_cast<Impl*>(arg);
    starpu_task* task = starpu_task_get_current();
    if (!task || !task->profiling_info) return;
    const starpu_profiling_task_info& info = *task->profiling_info;
    const int w = info.workerid;
    if (w < 0 || w >= STARPU_NMAXWORKERS) return;
    const double start = starpu_timing_timespec_to_us(const_cast<timespec*>(&info.start_time));
    const double end = starpu_timing_timespec_to_us(const_cast<timespec*>(&info.end_time));
    const bool grouped = task->cl == codelets::frame_histogram_codelet();
    const auto* group_args = static_cast<const codelets::FrameHistogramArgs*>(task->cl_arg);
    const auto* tile_args = static_cast<const codelets::PairHistogramArgs*>(task->cl_arg);
    const uint64_t pairs = grouped ? group_args->pairs : tile_args->pairs;
    const uint64_t frame = grouped ? group_args->frame : tile_args->frame;
    const uint64_t order = grouped ? group_args->sequence : tile_args->sequence;
    std::lock_guard<std::mutex> lock(self->clock_mutex);
    if (self->timeline.size() < kMaxTimelineSpans)
      self->timeline.push_back({w, (start - self->start_us) * 1e-6, (end - self->start_us) * 1e-6,
                                grouped, order, frame, pairs});
    WorkerClock& c = self->clocks[static_cast<size_t>(w)];
    c.tasks += 1;
    c.pairs += pairs;
    c.busy_us += end - start;
    c.last_end_us = std::max(c.last_end_us, end);
    self->last_end_us = std::max(self->last_end_us, end);
    self->throughput.record(starpu_worker_get_type(w) == STARPU_CUDA_WORKER,
                            pairs <= self->policy.cpu_task_limit, start * 1e-6, end * 1e-6, pairs);
    if (self->measuring)  // the kind as StarPU pools it: the codelet's own footprint function
      self->measured_kinds.record(
          task->cl,
          grouped ? codelets::work_footprint(*group_args) : codelets::work_footprint(*tile_args),
          static_cast<uint32_t>(task->where), w, (end - start) * 1e-6, pairs);
  }

  void release_data() {
    for (auto& slot : slots) {
      for (size_t s = 0; s < slot.handles.size(); ++s) {
        if (slot.handles[s]) starpu_data_unregister(slot.handles[s]);
        if (slot.buffers[s]) starpu_free(slot.buffers[s]);
      }
    }
    slots.clear();
    for (auto h : accumulators) starpu_data_unregister(h);
    accumulators.clear();
    finished = true;
  }

  /// Copies n atoms (atom(i) points to the i-th one's x,y,z) into a frame buffer as structure of
  /// arrays: the kernels read x, y and z as unit-stride columns. Returns the first atom with a
  /// non-finite coordinate, or -1; the check rides on the copy, which memory bandwidth bounds.
  template <class Atom, class T>
  static int64_t gather(Atom atom, int64_t n, T* out) {
    T* x = out;
    T* y = x + n;
    T* z = y + n;
    bool finite = true;
    for (int64_t i = 0; i < n; ++i) {
      const float* p = atom(i);
      finite &= std::isfinite(p[0]) & std::isfinite(p[1]) & std::isfinite(p[2]);
      x[i] = static_cast<T>(p[0]);
      y[i] = static_cast<T>(p[1]);
      z[i] = static_cast<T>(p[2]);
    }
    if (finite) return -1;
    for (int64_t i = 0; i < n; ++i) {
      const float* p = atom(i);
      if (!(std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2]))) return i;
    }
    return -1;
  }

  codelets::PairHistogramArgs base_args(const BoxMatrix& box) const {
    codelets::PairHistogramArgs args;
    args.precision = config.precision == Precision::single ? codelets::Precision::single
                                                           : codelets::Precision::double_;
    args.single_params = make_params<float>(box, config.box_kind, config.r_max, config.nbins);
    args.double_params = make_params<double>(box, config.box_kind, config.r_max, config.nbins);
    args.frame = frames;
    return args;
  }

  void submit(const std::vector<const float*>& xyz, const BoxMatrix& box) {
    if (xyz.size() != config.species_sizes.size())
      throw std::invalid_argument("HistogramEngine: one coordinate array per species expected");
    take_frame(box, [&](size_t s, auto* out) {
      const float* species = xyz[s];
      gather([species](int64_t i) { return species + 3 * i; }, config.species_sizes[s], out);
      return int64_t(-1);  // the caller's arrays are taken as they are
    });
  }

  void submit_atoms(const float* frame_xyz, const std::vector<std::vector<int>>& atoms,
                    const BoxMatrix& box) {
    bool sizes_match = atoms.size() == config.species_sizes.size();
    for (size_t s = 0; sizes_match && s < atoms.size(); ++s)
      sizes_match = static_cast<int64_t>(atoms[s].size()) == config.species_sizes[s];
    if (!sizes_match)
      throw std::invalid_argument("HistogramEngine: one atom list per species, of its size");
    take_frame(box, [&](size_t s, auto* out) {
      const int* picked = atoms[s].data();
      return gather([frame_xyz, picked](int64_t i) { return frame_xyz + 3 * int64_t(picked[i]); },
                    config.species_sizes[s], out);
    });
  }

  /// One frame: copy(s, buffer) fills species s's buffer (float* or double*) and returns the
  /// position of a non-finite coordinate or -1; then the frame's tasks are submitted.
  template <class Copy>
  void take_frame(const BoxMatrix& box, Copy copy) {
    if (finished) throw std::logic_error("HistogramEngine: submit_frame after finish");
    FrameFeed times;
    times.begin = seconds_since_start();
    FrameSlot& slot = slots[frames % slots.size()];
    allocate_slot(slot);
    times.allocated = seconds_since_start();
    for (starpu_data_handle_t h : slot.handles)  // waits for the previous frame's readers
      if (h) starpu_data_acquire(h, STARPU_W);
    times.buffers_free = seconds_since_start();
    int bad_species = -1;
    int64_t bad_position = -1;
    for (size_t s = 0; s < slot.handles.size() && bad_species < 0; ++s) {
      if (!slot.handles[s]) continue;
      const int64_t n = config.species_sizes[s];
      if (config.precision == Precision::single) {
        bad_position = copy(s, static_cast<float*>(slot.buffers[s]));
        if (spatial_order) sort_spatially(static_cast<float*>(slot.buffers[s]), n);
      } else {
        bad_position = copy(s, static_cast<double*>(slot.buffers[s]));
        if (spatial_order) sort_spatially(static_cast<double*>(slot.buffers[s]), n);
      }
      if (bad_position >= 0) bad_species = static_cast<int>(s);
    }
    for (starpu_data_handle_t h : slot.handles)
      if (h) starpu_data_release(h);
    // Nothing submitted: the next frame takes the same buffers.
    if (bad_species >= 0) throw NonFiniteCoordinate(bad_species, bad_position);
    if (config.whole_frames) {
      submit_whole_frame(slot, box);
    } else {
      const codelets::PairHistogramArgs base = base_args(box);
      replan_share();
      for (const PlannedTask& t : plan) {
        if (t.pair_indices.size() == 1)
          submit_tile(slot, base, t);
        else
          submit_frame_task(slot, box, t.pair_indices, t.gpu_only);
      }
    }
    ++frames;
    times.submitted = seconds_since_start();
    std::lock_guard<std::mutex> lock(clock_mutex);
    if (feed.size() < kMaxTimelineSpans) feed.push_back(times);
  }

  double seconds_since_start() const {
    return (starpu_timing_now() - start_us) * 1e-6;
  }

  /// Hybrid runs: this frame's CPU share from the rates the workers achieved so far
  /// (throughput_share.hpp); the plan is rebuilt (O(species pairs)) when the share moved.
  void replan_share() {
    if (policy.cpu_task_limit == 0) return;  // CPU-only or GPU-only: nothing to share
    ThroughputTotals totals;
    {
      std::lock_guard<std::mutex> lock(clock_mutex);
      totals = throughput.totals();
    }
    const CpuShare next =
        measured_cpu_share(totals, machine, frame_pairs(config.species_sizes), assumed_share_pairs);
    if (next.cpu_share_pairs != policy.cpu_share_pairs) {
      policy.cpu_share_pairs = next.cpu_share_pairs;
      plan = plan_frame(config.species_sizes, policy, machine);
    }
    std::lock_guard<std::mutex> lock(clock_mutex);
    share = next;
  }

  /// Where a task may run: everywhere its codelet can, or on the GPUs alone (decomposition.hpp).
  static unsigned long long where(const starpu_codelet* cl, bool gpu_only) {
    return gpu_only ? static_cast<unsigned long long>(STARPU_CUDA)
                    : static_cast<unsigned long long>(cl->where);
  }

  struct Target {
    starpu_data_handle_t handle;
    starpu_data_access_mode mode;
  };
  struct Partial {
    starpu_data_handle_t handle;
    size_t pair;
  };

  /// Where a task adds its counts for pair p: the accumulator in REDUX mode (StarPU keeps a
  /// copy per worker and folds them), or, with sum tasks, a fresh zeroed partial histogram that
  /// an explicit sum task adds into the accumulator after the task (sum_partials).
  Target histogram_target(size_t p, std::vector<Partial>& partials) {
    if (!config.sum_tasks) return {accumulators[p], STARPU_REDUX};
    starpu_data_handle_t partial;
    starpu_vector_data_register(&partial, -1, 0, static_cast<uint32_t>(config.nbins),
                                sizeof(uint64_t));
    if (starpu_task_insert(codelets::histogram_init_codelet(), STARPU_W, partial, STARPU_SCHED_CTX,
                           sched_ctx, 0) != 0)
      throw std::runtime_error("starpu_task_insert failed (histogram init)");
    partials.push_back({partial, p});
    return {partial, STARPU_RW};
  }

  void sum_partials(const std::vector<Partial>& partials) {
    for (const Partial& part : partials) {
      if (starpu_task_insert(codelets::histogram_redux_codelet(), STARPU_RW,
                             accumulators[part.pair], STARPU_R, part.handle, STARPU_SCHED_CTX,
                             sched_ctx, 0) != 0)
        throw std::runtime_error("starpu_task_insert failed (histogram sum)");
      starpu_data_unregister_submit(part.handle);
    }
  }

  /// Rows [row_begin, row_end) of one species pair.
  void submit_tile(FrameSlot& slot, const codelets::PairHistogramArgs& base, const PlannedTask& t) {
    const size_t p = static_cast<size_t>(t.pair_indices[0]);
    const auto [a, b] = pairs[p];
    const bool same = a == b;
    auto* args = static_cast<codelets::PairHistogramArgs*>(malloc(sizeof(base)));
    if (!args) throw std::bad_alloc();
    *args = base;
    args->same_species = same;
    args->row_begin = t.row_begin;
    args->row_end = t.row_end;
    args->pairs = t.pairs;
    args->sequence = tasks;
    starpu_codelet* cl = codelets::pair_histogram_codelet();
    const unsigned long long on = where(cl, t.gpu_only);
    std::vector<Partial> partials;
    const Target hist = histogram_target(p, partials);
    if (bound_recording) bound_kinds.note(cl, codelets::work_footprint(*args), args->pairs, on);
    int ret;
    if (same) {
      ret = starpu_task_insert(cl, STARPU_R, slot.handles[a], hist.mode, hist.handle,
                               STARPU_CL_ARGS, args, sizeof(*args), STARPU_EXECUTE_WHERE, on,
                               STARPU_SCHED_CTX, sched_ctx, STARPU_CALLBACK_WITH_ARG_NFREE,
                               on_task_done, this, STARPU_NAME, "pair_histogram", 0);
    } else {
      ret =
          starpu_task_insert(cl, STARPU_R, slot.handles[a], STARPU_R, slot.handles[b], hist.mode,
                             hist.handle, STARPU_CL_ARGS, args, sizeof(*args), STARPU_EXECUTE_WHERE,
                             on, STARPU_SCHED_CTX, sched_ctx, STARPU_CALLBACK_WITH_ARG_NFREE,
                             on_task_done, this, STARPU_NAME, "pair_histogram", 0);
    }
    if (ret != 0)
      throw std::runtime_error("starpu_task_insert failed (no worker can run the task)");
    sum_partials(partials);
    ++tasks;
  }

  /// The baseline's single task: every species (R) and every pair's accumulator (REDUX).
  void submit_whole_frame(FrameSlot& slot, const BoxMatrix& box) {
    std::vector<int> all(pairs.size());
    for (size_t p = 0; p < pairs.size(); ++p) all[p] = static_cast<int>(p);
    submit_frame_task(slot, box, all, false);
  }

  /// One task over whole pairs: the species they use (R) and their accumulators (REDUX).
  void submit_frame_task(FrameSlot& slot, const BoxMatrix& box, const std::vector<int>& pair_list,
                         bool gpu_only) {
    auto* args =
        static_cast<codelets::FrameHistogramArgs*>(malloc(sizeof(codelets::FrameHistogramArgs)));
    if (!args) throw std::bad_alloc();
    new (args) codelets::FrameHistogramArgs();
    const codelets::PairHistogramArgs base = base_args(box);
    args->precision = base.precision;
    args->single_params = base.single_params;
    args->double_params = base.double_params;
    args->frame = base.frame;
    args->sequence = tasks;
    std::vector<starpu_data_descr> descrs;
    std::vector<Partial> partials;
    args->nspecies = static_cast<int>(config.species_sizes.size());
    std::vector<bool> used(config.species_sizes.size(), false);
    for (int p : pair_list) {
      used[static_cast<size_t>(pairs[static_cast<size_t>(p)].first)] = true;
      used[static_cast<size_t>(pairs[static_cast<size_t>(p)].second)] = true;
    }
    for (int s = 0; s < args->nspecies; ++s) {
      args->species_size[s] = config.species_sizes[static_cast<size_t>(s)];
      args->coord_buffer[s] = -1;
      if (!slot.handles[static_cast<size_t>(s)] || !used[static_cast<size_t>(s)]) continue;
      args->coord_buffer[s] = static_cast<int>(descrs.size());
      descrs.push_back({slot.handles[static_cast<size_t>(s)], STARPU_R});
    }
    args->npairs = static_cast<int>(pair_list.size());
    for (int i = 0; i < args->npairs; ++i) {
      const size_t p = static_cast<size_t>(pair_list[static_cast<size_t>(i)]);
      const auto [a, b] = pairs[p];
      args->pair_a[i] = a;
      args->pair_b[i] = b;
      args->hist_buffer[i] = static_cast<int>(descrs.size());
      const Target hist = histogram_target(p, partials);
      descrs.push_back({hist.handle, hist.mode});
      args->pairs += pairs_in_rows(config.species_sizes[a], config.species_sizes[b], a == b, 0,
                                   config.species_sizes[a]);
    }
    starpu_codelet* cl = codelets::frame_histogram_codelet();
    if (bound_recording)
      bound_kinds.note(cl, codelets::work_footprint(*args), args->pairs, where(cl, gpu_only));
    const int ret = starpu_task_insert(
        cl, STARPU_DATA_MODE_ARRAY, descrs.data(), static_cast<int>(descrs.size()), STARPU_CL_ARGS,
        args, sizeof(*args), STARPU_EXECUTE_WHERE, where(cl, gpu_only), STARPU_SCHED_CTX, sched_ctx,
        STARPU_CALLBACK_WITH_ARG_NFREE, on_task_done, this, STARPU_NAME, "frame_histogram", 0);
    if (ret != 0)
      throw std::runtime_error("starpu_task_insert failed (no worker can run the task)");
    sum_partials(partials);
    ++tasks;
  }

  /// Counts accumulated since the last take (or the start). With `reset` the accumulators start
  /// again from zero: acquiring read-write waits for this pair's tasks and folds the per-worker
  /// copies; zeroing the folded copy before releasing it is what later tasks then add to.
  std::vector<std::vector<uint64_t>> take(bool reset) {
    if (finished) throw std::logic_error("HistogramEngine: used after finish");
    std::vector<std::vector<uint64_t>> result;
    for (auto h : accumulators) {
      starpu_data_acquire(h, reset ? STARPU_RW : STARPU_R);
      auto* data = reinterpret_cast<uint64_t*>(starpu_vector_get_local_ptr(h));
      result.emplace_back(data, data + config.nbins);
      if (reset) std::fill(data, data + config.nbins, uint64_t(0));
      starpu_data_release(h);
    }
    return result;
  }

  std::vector<std::vector<uint64_t>> collect() {
    // Every task of ours is submitted: stop recording before the final acquire, whose reduction
    // copies (StarPU's own data_cpy tasks) have no calibrated model in most runs.
    if (bound_recording) starpu_bound_stop();
    auto result = take(false);
    if (bound_recording) {
      bound = bound_kinds.finish(config.lp_bound_text);  // our tasks and their models are done
      bound_recording = false;
    }
    if (measuring) {
      // StarPU runs a task's callback after releasing its data, so the take above can return
      // before the last callbacks have recorded their tasks.
      if (sched_ctx == 0)
        starpu_task_wait_for_all();
      else
        starpu_task_wait_for_all_in_ctx(sched_ctx);
      std::lock_guard<std::mutex> lock(clock_mutex);
      measured_bound = measured_kinds.finish();
      measuring = false;
    }
    release_data();
    return result;
  }
};

HistogramEngine::HistogramEngine(const EngineConfig& config) : impl_(new Impl(config)) {}
HistogramEngine::~HistogramEngine() = default;

void HistogramEngine::submit_frame(const std::vector<const float*>& species_xyz,
                                   const BoxMatrix& box) {
  impl_->submit(species_xyz, box);
}

void HistogramEngine::submit_frame_atoms(const float* frame_xyz,
                                         const std::vector<std::vector<int>>& species_atoms,
                                         const BoxMatrix& box) {
  impl_->submit_atoms(frame_xyz, species_atoms, box);
}

std::vector<std::vector<uint64_t>> HistogramEngine::finish() {
  return impl_->collect();
}

std::vector<std::vector<uint64_t>> HistogramEngine::take_histograms() {
  return impl_->take(true);
}

int HistogramEngine::cpu_workers() const {
  return impl_->count_workers(STARPU_CPU_WORKER);
}
int HistogramEngine::cuda_workers() const {
  return impl_->count_workers(STARPU_CUDA_WORKER);
}
std::string HistogramEngine::scheduler() const {
  starpu_sched_policy* policy = starpu_sched_ctx_get_sched_policy(impl_->sched_ctx);
  return policy && policy->policy_name ? policy->policy_name : "";
}
uint64_t HistogramEngine::frames_submitted() const {
  return impl_->frames;
}
uint64_t HistogramEngine::tasks_submitted() const {
  return impl_->tasks;
}
int HistogramEngine::frames_in_flight() const {
  return impl_->config.frames_in_flight;  // the slots themselves are gone after finish()
}
uint64_t HistogramEngine::frame_bytes() const {
  return impl_->frame_bytes;
}

RunActivity HistogramEngine::activity() const {
  RunActivity run;
  const auto& counters = codelets::implementation_counters();
  run.tasks_cpu = counters.tasks[0];
  run.tasks_cuda_shared = counters.tasks[1];
  run.tasks_cuda_global = counters.tasks[2];
  run.pairs_cpu = counters.pairs[0];
  run.pairs_cuda_shared = counters.pairs[1];
  run.pairs_cuda_global = counters.pairs[2];
  std::lock_guard<std::mutex> lock(impl_->clock_mutex);
  const double origin = impl_->start_us;
  run.makespan_seconds = std::max(0.0, impl_->last_end_us - origin) * 1e-6;
  double first_done = INFINITY;  // earliest "last task ended" among workers that ran tasks
  const unsigned n = starpu_worker_get_count();
  for (unsigned w = 0; w < n; ++w) {
    const WorkerClock& c = impl_->clocks[w];
    WorkerActivity a;
    a.id = static_cast<int>(w);
    char name[128];
    starpu_worker_get_name(static_cast<int>(w), name, sizeof(name));
    a.name = name;
    a.is_cuda = starpu_worker_get_type(static_cast<int>(w)) == STARPU_CUDA_WORKER;
    if (a.is_cuda) a.device = starpu_worker_get_devid(static_cast<int>(w));
    a.tasks = c.tasks;
    a.pairs = c.pairs;
    a.busy_seconds = c.busy_us * 1e-6;
    a.last_end_seconds = c.tasks ? (c.last_end_us - origin) * 1e-6 : 0;
    if (c.tasks) first_done = std::min(first_done, a.last_end_seconds);
    run.workers.push_back(a);
  }
  run.tail_idle_seconds = std::isfinite(first_done) ? run.makespan_seconds - first_done : 0;
  run.lp_bound_seconds = impl_->bound.seconds;
  run.lp_bound_reason = impl_->bound.reason;
  run.lp_task_kinds = impl_->bound.kinds;
  run.lp_kinds_uncalibrated = impl_->bound.uncalibrated;
  run.lp_kinds_partly_calibrated = impl_->bound.partly;
  run.lp_minimum_measurements = impl_->bound.minimum;
  run.lp_text = impl_->bound.lp_text;
  run.lp_bound_measured_seconds = impl_->measured_bound.seconds;
  run.lp_bound_measured_reason = impl_->measured_bound.reason;
  run.lp_measured_kinds = impl_->measured_bound.kinds;
  run.lp_measured_estimated_kinds = impl_->measured_bound.estimated_kinds;
  run.lp_measured_unknown_entries = impl_->measured_bound.unknown_entries;
  run.cpu_share = impl_->share.fraction;
  run.cpu_share_measured = impl_->share.measured;
  run.measured_cpu_rate = impl_->share.cpu_rate;
  run.measured_gpu_rate = impl_->share.gpu_rate;
  run.gpu_ran_cpu_sized = impl_->share.eaten_fraction;
  run.timeline = impl_->timeline;
  run.feed = impl_->feed;
  return run;
}

}  // namespace pairhist
