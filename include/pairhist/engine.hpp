// The pairhist task library: turns frames into StarPU tasks and accumulates exact 64-bit pair
// histograms. Usable inside another StarPU application: it calls starpu_init itself (StarPU counts
// the calls, so a host that initialised StarPU first keeps its own configuration) and waits only
// on its own data, never on all tasks.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pairhist/algorithm.hpp"
#include "pairhist/box_setup.hpp"
#include "pairhist/cell_grid.hpp"
#include "pairhist/frame_counts.hpp"
#include "pairhist/host_columns.hpp"
#include "pairhist/precision.hpp"

namespace pairhist {

struct EngineConfig {
  /// Atoms per species: the most a frame may hold (the frame buffers' capacity). A frame
  /// submitted without counts holds exactly these; one submitted with counts (or atom lists, or
  /// columns, of other sizes) may hold fewer in any species, down to none: a dynamic selection
  /// (`within 0.5 of resname LIG`) or a cut-out around a solute. See HistogramEngine.
  std::vector<int64_t> species_sizes;
  double r_max = 0;  // same length unit as the coordinates
  int nbins = 0;     // equal parts of [r_min, r_max)
  // The first bin's lower edge: pairs at r < r_min are not counted (MDAnalysis's range[0],
  // freud's r_min). 0: bins from 0.
  double r_min = 0;
  // Pairs at r >= r_cut are not counted (0: r_max). Inside the last bin, r_cut leaves that bin
  // partial: gmx rdf's last bin where its -rmax is not a multiple of -bin.
  double r_cut = 0;
  Precision precision = Precision::single;
  BoxKind box_kind = BoxKind::none;
  int frames_in_flight = 0;  // frame buffers registered at once; 0: from memory_budget_bytes
  // Pinned frame buffers, all slots together. Pinning costs ~0.6 ms per MiB on the feeding
  // thread, at each buffer's first use: a ring beyond ~20 small frames only slowed the first
  // frames (docs/performance.md, multi-GPU scaling).
  uint64_t memory_budget_bytes = uint64_t(64) << 20;
  /// At most this many frames from the budget (0: no cap). A process of a distributed run holds
  /// few, so that the frames left at the end are spread over the processes, not queued in one.
  int max_frames_in_flight = 0;
  int reserve_cores = -1;  // cores kept from CPU workers for the caller's reading thread;
                           // -1: one when there are GPUs to feed (and ncpu is -1), else none,
                           // plus one per reader_threads
  int reader_threads = 0;  // threads besides the caller's that prepare frames (XTC decoding)
  uint64_t max_pairs_per_task = 0;  // row tile size; 0: from the machine (tasks/decomposition)
  std::string scheduler;            // StarPU scheduling policy; empty: STARPU_SCHED or default
  bool whole_frames = false;        // baseline: one task per frame from a shared queue (CADISHI)
  int ncpu = -1;                    // CPU workers; -1: StarPU's default (all cores)
  int ncpu_beside_gpus = -1;        // with ncpu -1: CPU workers when GPUs count (a feeding plan's
                                    // choice); without usable GPUs the cores count as with -1
  int ncuda = -1;                   // CUDA workers; -1: all GPUs
  /// false: where CUDA workers count, CPU workers never take a counting task (they only sum
  /// histograms): a distributed rank keeps a core for StarPU-MPI's sums, where a core's task of
  /// a large frame held the frame far longer than a GPU would (issue 24, W1 on 2 ranks: one
  /// CPU worker busy 4.4 s of a 4.9 s makespan with 33 tasks).
  bool cpu_workers_count = true;
  bool lp_bound = false;       // record tasks for StarPU's LP makespan bound (needs GLPK)
  bool lp_bound_text = false;  // with lp_bound: keep StarPU's LP as text (RunActivity::lp_text)
  /// Submit into an own StarPU scheduling context (policy `scheduler`, default eager) over
  /// context_workers (empty: every worker), e.g. next to a host application's tasks.
  bool own_context = false;
  /// Reduce with explicit sum tasks (each task fills a zeroed partial histogram, a sum task adds
  /// it to the pair's accumulator) instead of StarPU REDUX; for measurement (docs/performance.md).
  bool sum_tasks = false;
  std::vector<int> context_workers;
  /// How each species pair is counted: auto (cost model per pair, decided on the first frame),
  /// all pairs, or cell lists (r_max much smaller than the system). whole_frames counts all pairs.
  Algorithm algorithm = Algorithm::automatic;
  int cell_reach = 0;  // cells of r_cut / reach; 0: the measured default
  CellOrder cell_order = CellOrder::row_major;
  bool cell_order_set = false;  // false: the default
  bool cell_prune = false;      // CPU cell lists test each point against each cell's box
  /// The species pairs to count, in species_pairs() order; empty: every pair. A pair left out
  /// costs nothing and its histogram stays zero (e.g. only the cross pair of two groups).
  std::vector<bool> counted_pairs;
  /// A run over several processes that splits frames among them: with frame_parts P > 1 a
  /// frame submitted may count only part set_frame_part() of P (rows of each all-pairs pair,
  /// home cells of each cell-list pair; small pairs whole in one part), cut alike on any machine,
  /// so the P parts of a frame, wherever they are counted, count each pair exactly once. The
  /// cell grid is then each frame's own (no hysteresis across frames), and pair_algorithms should
  /// fix the algorithms (choose_algorithms) so that every process counts a pair alike.
  int frame_parts = 1;
  /// Per species pair (species_pairs() order), the algorithm; empty: `algorithm` for every pair.
  std::vector<Algorithm> pair_algorithms;
  /// Count every periodic image within r_max, not only the minimum image: what r_max beyond half
  /// a box's shortest lattice vector needs (any r_max, any lower-triangular box however skewed).
  /// Each frame is counted as a run without a box over the species moved into the cell and
  /// their images within reach (tasks/periodic_images.hpp), by the same exact kernels; the pairs
  /// are then (i, j + s) over all lattice translations s, a species with itself each unordered
  /// pair once (an atom with its own images included). Ignored without a periodic box_kind; not
  /// with whole_frames. Frames need more memory (the images), so frames_in_flight defaults to 4.
  bool periodic_images = false;
};

/// How one species pair was counted over the run.
struct PairWork {
  int species_a = 0, species_b = 0;
  Algorithm algorithm = Algorithm::all_pairs;
  bool counted = true;      // false: left out by EngineConfig::counted_pairs
  uint64_t candidates = 0;  // pairs whose distance was computed (all pairs, or cell neighbours)
  uint64_t within = 0;      // of those, counted in a bin (r < r_max)
};

struct WorkerActivity {
  int id = 0;
  std::string name;
  bool is_cuda = false;
  int device = -1;  // CUDA device number of a CUDA worker (-1 for CPU workers)
  uint64_t tasks = 0;
  uint64_t pairs = 0;
  double busy_seconds = 0;      // sum of task durations (StarPU profiling: start to end)
  double last_end_seconds = 0;  // end of this worker's last task, from the engine's start
};

/// One task's run on a worker, in seconds from the engine's start (the activity picture and
/// `run --task-trace`, which scripts/scaling_model.py replays on other GPU counts).
struct TaskSpan {
  int worker = 0;
  double start = 0;
  double end = 0;
  bool grouped = false;  // a group of whole pairs (or a whole frame), not a row tile
  uint64_t order = 0;    // the engine's task number: submission order from 0
  uint64_t frame = 0;    // the engine's frame number (0 for the first frame submitted)
  uint64_t pairs = 0;
};
constexpr size_t kMaxTimelineSpans = size_t(1) << 20;

/// How the engine took one frame, in seconds from its start: submit_frame() entered, the frame's
/// buffers existed (allocated and pinned on their first use), they were free (the frame that used
/// them before had finished), its coordinates were in them (copied, or the caller's columns taken
/// over and registered with StarPU), its tasks were planned and submitted. free - allocated is
/// back-pressure; the rest is the caller thread's own work: allocating, copying, ordering,
/// planning, submitting, and (from the previous frame's submitted to this begin) reading the
/// frame.
struct FrameFeed {
  double begin = 0;
  double allocated = 0;
  double buffers_free = 0;
  double submitted = 0;
  double filled = 0;  // after buffers_free, before submitted (last: added later)
};

/// HistogramEngine::submit_frame_atoms: a picked coordinate is NaN or infinite (it would land in
/// no bin and silently vanish from the counts). Nothing of the frame was submitted.
class NonFiniteCoordinate : public std::runtime_error {
 public:
  NonFiniteCoordinate(int species_index, int64_t atom_in_species)
      : std::runtime_error("non-finite coordinate"),
        species(species_index),
        position(atom_in_species) {}
  int species;       // which species
  int64_t position;  // which of its atoms (index into species_atoms[species])
};

/// How the run used the machine, from StarPU's per-task profiling.
struct RunActivity {
  double makespan_seconds = 0;   // engine start to the end of its last task
  double tail_idle_seconds = 0;  // from the first worker (that ran tasks) running out of work for
                                 // good to the end of the last task
  uint64_t tasks_cpu = 0, tasks_cuda_shared = 0, tasks_cuda_global = 0;
  uint64_t pairs_cpu = 0, pairs_cuda_shared = 0, pairs_cuda_global = 0;
  std::vector<WorkerActivity> workers;
  /// The build of the CPU kernels the CPU workers ran: "avx512" or "avx2" (AVX-512 where the CPU
  /// has it, unless PAIRHIST_CPU_KERNELS=avx2); empty without CPU workers.
  std::string cpu_kernels;
  /// StarPU's linear-programming lower bound of the makespan (area bound over task kinds and
  /// workers, from the calibrated perfmodels); 0 when not requested or not computable.
  double lp_bound_seconds = 0;
  /// With EngineConfig::lp_bound: why lp_bound_seconds is 0 (one line; empty when computed), the
  /// task kinds (codelet, perfmodel footprint) StarPU pooled, those with too few measurements on
  /// every worker (the LP is then unsolvable) and those lacking them on some worker kind that
  /// can run them (the LP then treats that worker as 1e9 ms per task: the bound may be too high).
  std::string lp_bound_reason;
  uint64_t lp_task_kinds = 0, lp_kinds_uncalibrated = 0, lp_kinds_partly_calibrated = 0;
  unsigned lp_minimum_measurements = 0;  // StarPU's STARPU_CALIBRATE_MINIMUM in this run
  std::string lp_text;  // EngineConfig::lp_bound_text: per-kind table + LP in lp_solve format
  /// With EngineConfig::lp_bound: the same area LP over this run's measured task durations
  /// (mean per kind and worker arch; 0 and a reason when not computable), the kinds, those with
  /// a time estimated from their codelet's throughput on an arch where they did not run, and the
  /// (kind, arch) entries left out because that arch ran no task at all (tasks/measured_bound.hpp).
  double lp_bound_measured_seconds = 0;
  std::string lp_bound_measured_reason;
  uint64_t lp_measured_kinds = 0, lp_measured_estimated_kinds = 0, lp_measured_unknown_entries = 0;
  /// Hybrid runs: the cores' share of the last frame planned (pairs cut into CPU-sized tasks /
  /// frame pairs), whether it came from measured rates (else the assumed ones), those rates
  /// (pairs/s, all CPU workers and all GPUs together) and the part of the CPU-sized pairs the
  /// CUDA workers ran. 0 outside hybrid runs.
  double cpu_share = 0;
  bool cpu_share_measured = false;
  double measured_cpu_rate = 0, measured_gpu_rate = 0;
  double gpu_ran_cpu_sized = 0;
  uint64_t tasks_cell_cpu = 0, tasks_cell_cuda = 0;  // cell-list tasks and their estimated
  uint64_t pairs_cell_cpu = 0, pairs_cell_cuda = 0;  // candidates, per implementation
  std::vector<PairWork> pair_work;                   // species_pairs() order
  /// Cell-list runs: the last frame's grid (cells per axis, reach, order, r_cut).
  int cell_grid[3] = {0, 0, 0};
  int cell_reach = 0;
  std::string cell_order;
  double cell_cut = 0;
  /// EngineConfig::periodic_images: lattice translations whose images the last frame counted
  /// (0 included), the most in any frame, and the last frame's image points (all halos).
  bool periodic_images = false;
  int image_translations = 0, most_image_translations = 0;
  int64_t image_points = 0;
  std::vector<TaskSpan> timeline;   // at most kMaxTimelineSpans, in completion order
  std::vector<FrameFeed> feed;      // per frame in submission order, at most kMaxTimelineSpans
  uint64_t frames_handed_over = 0;  // frames whose columns the engine took without a copy
};

/// Axis-aligned bounds of a frame's points, as submit_frame_columns() takes them.
struct CoordinateBounds {
  float lo[3];
  float hi[3];
};

/// CUDA devices present (0 without CUDA support), before any engine starts StarPU.
int cuda_devices();

/// What an engine's start can do before its configuration is known, for a caller to overlap with
/// reading its inputs (thread-safe, idempotent): creates the CUDA contexts an engine with this
/// ncuda (-1: all GPUs) will use (0.2-0.3 s on the H100 host), starts loading the cell-list
/// kernels of `precision` into them in the background (at their first launch they held the first
/// frame ~20 ms), and discovers the machine for StarPU on a thread of its own (60-70 ms there),
/// which the engine's start then reads in ~3 ms. PAIRHIST_LAZY_KERNELS=1 leaves the kernels to
/// their first launch (to measure).
void prepare_engine_start(int ncuda, Precision precision);

/// Sets the environment variables every engine sets for StarPU (where the user has not), as an
/// engine's start would, and gives the ones an engine's start sets for StarPU alone a value that
/// means what their absence does: a program calls it first, before any thread exists, since
/// adding a variable while other threads read the environment can crash them
/// (pairhist/environment.hpp); an engine's start then only replaces values.
void set_starpu_environment_defaults();

/// Makes HostColumns allocated from now on pinned when CUDA devices are present (their pinning
/// hooks, set_host_pinning), so that GPUs read columns the engine takes over
/// (submit_frame_columns_swap) by DMA. Call it before the buffers are first allocated, e.g.
/// before a reader starts: pinning then costs the allocating thread once per buffer (~0.6 ms
/// per MiB on the H100 host). Idempotent, thread-safe; an engine that feeds GPUs calls it
/// itself. Returns whether pinning hooks are installed (these, or the application's).
bool use_pinned_host_columns();

/// Seconds `gpus` GPUs need for a frame with this box and these bounds (and the capacities'
/// atoms), by the cost model the engine chooses algorithms with (a planning figure for sizing the
/// threads that prepare frames).
double estimated_gpu_seconds_per_frame(const EngineConfig& config, const BoxMatrix& box,
                                       const CoordinateBounds& bounds, int gpus);
/// The same for `cores` CPU cores without GPUs.
double estimated_cpu_seconds_per_frame(const EngineConfig& config, const BoxMatrix& box,
                                       const CoordinateBounds& bounds, int cores);

/// What a frame costs by the cost model, as a feeding plan weighs GPUs against cores: the `gpus`
/// GPUs together, one core for the whole frame (the algorithms chosen as the engine chooses them
/// with GPUs), and the longest a core's first task of the frame lasts in a hybrid run (the tail
/// budget of its tiles, plus for cell lists sorting the pair's species into cells, which a worker
/// does once per frame before its first task of it).
struct FrameCost {
  double gpu_seconds = 0;
  double core_seconds = 0;
  double core_task_seconds = 0;
};
FrameCost estimated_frame_cost(const EngineConfig& config, const BoxMatrix& box,
                               const CoordinateBounds& bounds, int gpus);

/// The algorithm `auto` picks for each species pair (species_pairs() order) on a frame with this
/// box and these bounds, as for GPUs (the choice depends on nothing else, so processes with
/// different devices agree): what EngineConfig::pair_algorithms takes.
std::vector<Algorithm> choose_algorithms(const EngineConfig& config, const BoxMatrix& box,
                                         const CoordinateBounds& bounds);

/// Species pairs in the order histograms are returned: (a, b) with a <= b, a-major.
std::vector<std::pair<int, int>> species_pairs(int nspecies);

/// A run whose frames hold fewer atoms than the capacities (EngineConfig::species_sizes) in some
/// species submits each frame with its counts n_s (0 <= n_s <= capacity): submit_frame and
/// submit_frame_columns take them as `species_counts`, submit_frame_atoms reads them from its
/// atom lists, submit_frame_columns_swap from its columns' sizes (3 n_s values). Every algorithm,
/// box kind and frame part counts exactly the frame's pairs (n_s (n_s - 1) / 2 of a species with
/// itself, n_a n_b across); a species without atoms gets no task. Frames of the capacities are
/// planned once, as before; a frame of other sizes re-registers the buffers whose count changed
/// and is planned for its sizes (kept while the next frame has the same). Frames without counts
/// and frames with counts equal to the capacities are the same thing.
///
/// g(r) of such a run normalises by sums over its frames (FrameCountSums, frame_counts.hpp). The
/// caller keeps them beside the histograms, as it keeps each frame's volume: it alone knows which
/// frames an interval, an interrupted run (frames_counted) or the processes of a run split into
/// frame parts counted.
class HistogramEngine {
 public:
  explicit HistogramEngine(const EngineConfig& config);
  ~HistogramEngine();
  HistogramEngine(const HistogramEngine&) = delete;
  HistogramEngine& operator=(const HistogramEngine&) = delete;

  /// Copies one frame and submits its tasks. species_xyz[s] points to species_sizes[s] atoms as
  /// x,y,z triples. Blocks only while all frame buffers are still in use by earlier frames.
  void submit_frame(const std::vector<const float*>& species_xyz, const BoxMatrix& box);
  /// Like submit_frame, for a frame of species_counts[s] atoms of species s (0 to its capacity,
  /// species_sizes[s]): species_xyz[s] points to that many atoms. Throws std::invalid_argument,
  /// submitting nothing, unless there is one count per species within its capacity.
  void submit_frame(const std::vector<const float*>& species_xyz,
                    const std::vector<int64_t>& species_counts, const BoxMatrix& box);

  /// Like submit_frame, with species s made of the atoms species_atoms[s] (indices into the
  /// frame) of one whole frame of x,y,z triples: the engine picks them as it copies the frame
  /// into its buffers, so the caller needs no copy of its own (the caller thread's time per frame
  /// is what feeds many GPUs). Throws NonFiniteCoordinate if a picked coordinate is not finite.
  /// A list may hold fewer atoms than its species' capacity (the frame's count, down to none),
  /// never more (std::invalid_argument).
  void submit_frame_atoms(const float* frame_xyz,
                          const std::vector<std::vector<int>>& species_atoms, const BoxMatrix& box);

  /// Like submit_frame, from structure-of-arrays columns: species_soa[s] holds x[0..n), y[0..n),
  /// z[0..n) of species s, e.g. gathered on the threads that decoded the frame, so this thread
  /// only copies contiguous memory. `bounds`, if given, are those of every species' points and
  /// spare the engine a pass over them. Throws NonFiniteCoordinate as submit_frame_atoms.
  void submit_frame_columns(const std::vector<const float*>& species_soa, const BoxMatrix& box,
                            const CoordinateBounds* bounds = nullptr);
  /// Like submit_frame_columns, for a frame of species_counts[s] atoms of species s:
  /// species_soa[s] holds x[0..n), y[0..n), z[0..n) with n = species_counts[s] (0 to its
  /// capacity). Throws std::invalid_argument as submit_frame with counts.
  void submit_frame_columns(const std::vector<const float*>& species_soa,
                            const std::vector<int64_t>& species_counts, const BoxMatrix& box,
                            const CoordinateBounds* bounds = nullptr);

  /// Like submit_frame_columns, without copying: the engine takes the caller's columns for the
  /// frame (species_soa[s] holds 3 * species_sizes[s] floats, x[0..n), y, z) and puts in their
  /// place columns of the same sizes that no task reads any more, their content unspecified,
  /// for the caller to fill with a later frame; while its frame slots are first used (its first
  /// frames_in_flight() frames) it puts empty ones instead, so that the caller allocates (and
  /// pins) them on its own thread, not the engine. Each coordinate must be finite (the caller
  /// checks, e.g. as it decodes: there is no pass over the points here), and `bounds` are those
  /// of every species' points. Returns true. In double precision, or feeding GPUs without
  /// pinning hooks (use_pinned_host_columns), it copies the columns as submit_frame_columns
  /// does, leaves species_soa as it was and returns false. Columns allocated before pinning
  /// hooks were installed work too, with slower transfers to GPUs. A column may hold fewer atoms
  /// than its species' capacity (3 n values: the frame's count n, down to none); the columns
  /// given back are then those of earlier frames, of their sizes (all of the capacities when
  /// every frame is). Throws std::invalid_argument, taking nothing, unless there is one column
  /// of 3 n values per species, n at most its capacity.
  bool submit_frame_columns_swap(std::vector<HostColumn>& species_soa, const BoxMatrix& box,
                                 const CoordinateBounds& bounds);

  /// The part of each frame submitted from now on that is counted (EngineConfig::frame_parts);
  /// -1 (the default): the whole frame.
  void set_frame_part(int part);

  /// Waits for the tasks of the frames submitted so far, returns their histograms (species_pairs()
  /// order) and restarts counting from zero: the counts of one output interval. The pipeline
  /// drains while it waits, so call it every many frames, not every frame. Throws DeviceError
  /// when a GPU task failed (check_devices).
  std::vector<std::vector<uint64_t>> take_histograms();

  /// Waits for this engine's tasks and returns the histograms in species_pairs() order.
  /// Callable once; the engine cannot take frames afterwards. Throws DeviceError as
  /// take_histograms.
  std::vector<std::vector<uint64_t>> finish();

  /// Throws DeviceError if a GPU task of this engine could not count its share: the
  /// histograms are then incomplete from that frame on. Cheap; any thread.
  void check_devices() const;

  /// Stops counting between frames (an interrupted run): the tasks of every frame that has a
  /// task running or done still run, all other tasks return without counting, so the
  /// histograms (take_histograms, finish) hold whole frames 0 .. frames_counted()-1 and no part
  /// of a later one. Returns that bound. Safe from any thread, also while another waits in
  /// submit_frame or take_histograms; later calls return the same bound. Frames submitted
  /// afterwards are not counted.
  uint64_t drop_unstarted_frames();
  /// Frames (from the first submitted) the histograms hold or will hold once taken: all
  /// submitted frames, or after drop_unstarted_frames() its bound. Called by the thread that
  /// submits.
  uint64_t frames_counted() const;

  int cpu_workers() const;
  int cuda_workers() const;
  /// What the engine changed from its configuration and why, one line each (e.g. a GPU left out
  /// because it cannot hold the tasks' data); for the caller to show as warnings.
  const std::vector<std::string>& notes() const;
  std::string scheduler() const;
  uint64_t frames_submitted() const;
  uint64_t tasks_submitted() const;
  /// Frame buffers held at once (the memory bound) and the bytes one frame's buffers take. Frame
  /// f + frames_in_flight() reuses frame f's buffers and waits for its tasks first: once frame g
  /// is submitted, every frame before g + 1 - frames_in_flight() has been counted.
  int frames_in_flight() const;
  uint64_t frame_bytes() const;
  /// Per-worker and per-implementation activity since the engine started (complete after
  /// finish()).
  RunActivity activity() const;
  /// Seconds on the clock of activity()'s times and the task trace (StarPU's, from the engine's
  /// start): for placing other events, e.g. the reading's, on the same time line.
  double activity_seconds() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pairhist
