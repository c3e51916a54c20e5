#include "tasks/cell_histogram_planner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "pairhist/cell_grid_setup.hpp"
#include "pairhist/environment.hpp"

namespace pairhist {
namespace {

// Candidates per task. GPU-sized: ~2 ms at the assumed rate, fewer when a frame would give less
// than four tasks per GPU (so one frame keeps every GPU busy). CPU-only: ~0.1 s on a core, fewer
// down to four per worker. Hybrid: the cores' tasks end within the tail budget.
constexpr double kGpuTaskSeconds = 2e-3;
constexpr double kCpuTaskSeconds = 0.1;
constexpr double kMinCpuTaskCandidates = double(1 << 20);
// A GPU task below ~0.1 ms of candidates costs more in launches, StarPU and the per-worker sort
// than it gains in spread (W1 at 71,604 atoms: 0.74 ms of GPU time per frame in 5 tasks).
constexpr double kMinGpuTaskCandidates = double(1 << 27);

int gpus_of(const MachineShape& m) {
  return m.gpus > 0 ? m.gpus : m.cuda_workers;
}

// A frame that one GPU counts within this (at the assumed rate) goes whole to one GPU, the GPUs
// in turn: its coordinates then travel to one device, not to all (W1 x16 on 4 GPUs: 130 MB a
// frame instead of 520 MB), only that GPU's workers sort its species, and the GPUs begin on
// different frames. A larger frame is spread over every GPU, so that no GPU holds a long tail.
constexpr double kWholeFrameGpuSeconds = 0.05;

}  // namespace

CellOptions engine_cell_options(const EngineConfig& config) {
  CellOptions o;
  if (config.cell_reach > 0) o.reach = std::min(config.cell_reach, kMaxCellReach);
  if (config.cell_order_set) o.order = config.cell_order;
  return o;
}

CellGrid engine_cell_grid(const EngineConfig& config, const BoxMatrix& box,
                          const FrameBounds& bounds, const CellGrid* previous) {
  CellGridRequest r;
  r.box = box;
  r.kind = config.box_kind;
  for (int c = 0; c < 3; ++c) {
    r.lo[c] = bounds.empty() ? 0 : bounds.lo[c];
    r.hi[c] = bounds.empty() ? 0 : bounds.hi[c];
  }
  r.max_abs = bounds.max_abs();
  r.r_max = config.r_max;
  r.single_precision = config.precision == Precision::single;
  const CellOptions o = engine_cell_options(config);
  r.reach = o.reach;
  r.order = o.order;
  r.prune = config.cell_prune;
  int64_t atoms = 0;
  for (int64_t n : config.species_sizes) atoms += std::max<int64_t>(n, 0);
  r.max_cells = std::max<int64_t>(64, 4 * atoms);
  r.previous = previous;
  return make_cell_grid(r);
}

CellHistogramPlanner::CellHistogramPlanner(const EngineConfig& config, const MachineShape& machine,
                                           const PairSelection& selected, TaskSubmitter& submitter,
                                           ActivityRecorder& recorder)
    : FramePlanner(config, machine, selected, submitter, recorder),
      run_(codelets::next_cell_run()) {
  const AlgorithmRates cpu = assumed_rates(false);
  if (machine_.cuda_workers > 0 && machine_.cpu_workers > 0)
    cpu_task_limit_ = static_cast<uint64_t>(cpu.cell_candidates * kTailBudgetSeconds);
  // Pairs fused where GPUs count. The test hook PAIRHIST_TEST_FUSE_PAIRS=1 fuses them on CPU
  // workers too, so that the fused tasks are tested without a GPU.
  fuse_pairs_ = machine_.cuda_workers > 0 || env_flag("PAIRHIST_TEST_FUSE_PAIRS", false);
}

int64_t CellHistogramPlanner::key_of_cell_rank(int64_t rank) const {
  if (grid_.order == CellOrder::row_major) return rank;
  return rank < static_cast<int64_t>(curve_keys_.size()) ? curve_keys_[static_cast<size_t>(rank)]
                                                         : grid_.keys;
}

std::vector<std::pair<int64_t, int64_t>> CellHistogramPlanner::key_ranges(int64_t first_cell,
                                                                          int64_t end_cell,
                                                                          int64_t count) const {
  std::vector<std::pair<int64_t, int64_t>> ranges;
  const int64_t cells = end_cell - first_cell;
  count = std::clamp<int64_t>(count, 1, std::max<int64_t>(cells, 1));
  for (int64_t t = 0; t < count; ++t) {
    const int64_t r0 = first_cell + cells * t / count, r1 = first_cell + cells * (t + 1) / count;
    if (r1 > r0) ranges.emplace_back(key_of_cell_rank(r0), key_of_cell_rank(r1));
  }
  return ranges;
}

std::vector<int> CellHistogramPlanner::species_of(const std::vector<PairRange>& ranges) const {
  std::vector<int> species;
  for (const PairRange& r : ranges) {
    const auto [a, b] = pairs_[static_cast<size_t>(r.pair)];
    for (int s : {a, b})
      if (std::find(species.begin(), species.end(), s) == species.end()) species.push_back(s);
  }
  return species;
}

void CellHistogramPlanner::submit_ranges(const PlannedFrame& frame,
                                         const codelets::CellHistogramArgs& base,
                                         const std::vector<PairRange>& ranges, bool gpu_only) {
  STARPU_ASSERT(ranges.size() <= size_t(codelets::kMaxCellTaskPairs));
  codelets::CellRange task[codelets::kMaxCellTaskPairs];
  double candidates = 0;
  for (size_t k = 0; k < ranges.size(); ++k) {
    const auto [a, b] = pairs_[static_cast<size_t>(ranges[k].pair)];
    task[k] = {ranges[k].pair, a, b, ranges[k].key_begin, ranges[k].key_end};
    candidates += ranges[k].candidates;
  }
  codelets::CodeletTask packed = codelets::cell_histogram_task(
      base, task, static_cast<int>(ranges.size()), frame.slot.handles,
      static_cast<uint64_t>(std::max(1.0, candidates)), submitter_.tasks(), gpu_only);
  packed.gpu_choice = frame_gpu_;
  submitter_.submit(packed);
}

double CellHistogramPlanner::candidates_per_task(const PlannedFrame& frame, double total,
                                                 bool hybrid) {
  frame_gpu_ = -1;
  if (machine_.cuda_workers == 0) {
    const double rate = assumed_rates(false).cell_candidates;
    return std::clamp(total / (4.0 * std::max(1, machine_.cpu_workers)), kMinCpuTaskCandidates,
                      rate * kCpuTaskSeconds);
  }
  const double rate = assumed_rates(true).cell_candidates;
  if (!hybrid && frame.parts <= 1 && submitter_.gpus() >= 2 &&
      total / rate <= kWholeFrameGpuSeconds)
    frame_gpu_ = static_cast<int>(frame.number % static_cast<uint64_t>(submitter_.gpus()));
  const int gpus = frame_gpu_ >= 0 ? 1 : gpus_of(machine_);
  return std::clamp(total / (4.0 * gpus), kMinGpuTaskCandidates, rate * kGpuTaskSeconds);
}

void CellHistogramPlanner::submit_frame(const PlannedFrame& frame) {
  // A frame counted in parts by several processes needs the same grid in each: its own, without
  // the previous frame's (which differs between processes).
  const bool keep_cells = have_grid_ && frame.parts <= 1;
  const CellGrid grid =
      engine_cell_grid(config_, frame.box, frame.bounds, keep_cells ? &grid_ : nullptr);
  const bool new_cells =
      !have_grid_ || grid.order != grid_.order || std::memcmp(grid.n, grid_.n, sizeof(grid.n)) != 0;
  grid_ = grid;
  have_grid_ = true;
  if (new_cells && grid_.order != CellOrder::row_major) {
    curve_keys_.clear();
    for (int z = 0; z < grid_.n[2]; ++z)
      for (int y = 0; y < grid_.n[1]; ++y)
        for (int x = 0; x < grid_.n[0]; ++x) curve_keys_.push_back(cells::key_of(grid_, {x, y, z}));
    std::sort(curve_keys_.begin(), curve_keys_.end());
  }
  const int64_t all_cells = static_cast<int64_t>(grid_.n[0]) * grid_.n[1] * grid_.n[2];
  // A part of a frame: the home cells of ranks [first_cell, end_cell) of every pair.
  const int64_t first_cell = all_cells * frame.part / std::max(frame.parts, 1);
  const int64_t end_cell = all_cells * (frame.part + 1) / std::max(frame.parts, 1);
  const int64_t cells = end_cell - first_cell;

  codelets::CellHistogramArgs base;
  set_frame_params(base, frame);
  base.grid = grid_;
  base.run = run_;
  base.frame = frame.number;
  base.gate = frame.gate;
  base.faults = frame.faults;

  // Estimated candidates per pair, and the frame's total.
  std::vector<std::pair<double, int>> work;  // (candidates, pair), smallest first
  double total = 0;
  for (size_t p = 0; p < pairs_.size(); ++p) {
    if (!selected(p)) continue;
    const auto [a, b] = pairs_[p];
    const int64_t na = frame.sizes[static_cast<size_t>(a)];
    const int64_t nb = frame.sizes[static_cast<size_t>(b)];
    // A species without atoms in this frame has no handle: its pairs get no task.
    const double c = na > 0 && nb > 0 ? estimated_cell_candidates(grid_, na, nb, a == b) : 0;
    if (c <= 0) continue;
    work.emplace_back(c, static_cast<int>(p));
    total += c;
  }
  if (cells <= 0) return;
  const double part_fraction = static_cast<double>(cells) / static_cast<double>(all_cells);
  for (auto& w : work) w.first *= part_fraction;
  total *= part_fraction;
  std::sort(work.begin(), work.end());
  const bool hybrid = cpu_task_limit_ > 0;
  const double task_candidates = candidates_per_task(frame, total, hybrid);
  double cpu_budget = 0;
  if (hybrid) {
    const double assumed_cpu = machine_.cpu_workers * assumed_rates(false).cell_candidates;
    const double assumed_gpu = gpus_of(machine_) * assumed_rates(true).cell_candidates;
    const auto fallback = static_cast<uint64_t>(total * assumed_cpu / (assumed_cpu + assumed_gpu));
    share_ = measured_cpu_share(recorder_.cell_totals(), machine_, static_cast<uint64_t>(total),
                                fallback);
    cpu_budget = static_cast<double>(share_.cpu_share_pairs);
  }
  // Pairs whose GPU share is one task each: counted together by one task where GPUs count, so a
  // small frame's pairs share one launch (one ramp-up and one tail on the GPU, one task for
  // StarPU). A task holds at most kMaxCellTaskPairs pairs of kMaxCellTaskSpecies species.
  std::vector<PairRange> whole;
  for (const auto& [candidates, pair] : work) {
    const double per_cell = candidates / static_cast<double>(cells);
    // The cores' share first (the first cells of the smallest pairs), in tasks a core finishes
    // within the tail budget; the rest in GPU-sized tasks.
    int64_t cpu_cells = 0;
    if (hybrid && cpu_budget > 0) {
      cpu_cells = std::min<int64_t>(cells, static_cast<int64_t>(std::ceil(cpu_budget / per_cell)));
      cpu_budget -= static_cast<double>(cpu_cells) * per_cell;
      const auto n = static_cast<int64_t>(std::ceil(static_cast<double>(cpu_cells) * per_cell /
                                                    static_cast<double>(cpu_task_limit_)));
      for (const auto& [k0, k1] : key_ranges(first_cell, first_cell + cpu_cells, n))
        submit_range(frame, base, {pair, k0, k1, per_cell * double(cpu_cells) / double(n)}, false);
    }
    const int64_t rest = cells - cpu_cells;
    if (rest <= 0) continue;
    const auto n =
        static_cast<int64_t>(std::ceil(static_cast<double>(rest) * per_cell / task_candidates));
    const double each =
        static_cast<double>(rest) * per_cell / static_cast<double>(std::max<int64_t>(n, 1));
    const auto ranges = key_ranges(first_cell + cpu_cells, end_cell, n);
    if (fuse_pairs_ && ranges.size() == 1) {
      whole.push_back({pair, ranges[0].first, ranges[0].second, each});
      continue;
    }
    for (const auto& [k0, k1] : ranges)
      submit_range(frame, base, {pair, k0, k1, each}, hybrid && each > double(cpu_task_limit_));
  }
  // In pair order, so that consecutive pairs share species.
  std::sort(whole.begin(), whole.end(),
            [](const PairRange& x, const PairRange& y) { return x.pair < y.pair; });
  std::vector<PairRange> task;
  double candidates = 0;
  const auto flush = [&] {
    if (task.empty()) return;
    submit_ranges(frame, base, task, hybrid && candidates > double(cpu_task_limit_));
    task.clear(), candidates = 0;
  };
  for (const PairRange& r : whole) {
    task.push_back(r);
    if (task.size() > size_t(codelets::kMaxCellTaskPairs) ||
        species_of(task).size() > size_t(codelets::kMaxCellTaskSpecies)) {
      task.pop_back();
      flush();
      task.push_back(r);
    }
    candidates += r.candidates;
  }
  flush();
}

void CellHistogramPlanner::describe(RunActivity& run) const {
  if (!have_grid_) return;
  for (int a = 0; a < 3; ++a) run.cell_grid[a] = grid_.n[a];
  run.cell_reach = grid_.reach;
  run.cell_order = cell_order_name(grid_.order);
  run.cell_cut = grid_.r_cut;
  if (cpu_task_limit_ > 0) report_share(share_, run);
}

}  // namespace pairhist
