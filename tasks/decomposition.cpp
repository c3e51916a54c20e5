#include "tasks/decomposition.hpp"

#include <algorithm>
#include <numeric>

#include "tasks/row_tiles.hpp"

namespace pairhist {
namespace {

constexpr uint64_t kMinTile = uint64_t(1) << 22;
constexpr uint64_t kGpuTile = uint64_t(1) << 31;   // ~2 ms at kAssumedGpuRate
constexpr uint64_t kCpuTile = uint64_t(1) << 26;   // ~80 ms on one core
constexpr uint64_t kCpuGroup = uint64_t(1) << 24;  // ~20 ms on one core
// A CUDA block covers 1024 rows; a tile of fewer rows leaves threads idle (a 4M-atom frame in
// 2^30-pair tiles, 268 rows each, ran at 288 instead of ~1400 bapps on an H200).
constexpr int64_t kMinGpuTileRows = 4096;
// CPU-eligible work per frame before any rate is measured, relative to the cores' share from the
// assumed rates. Those rates overstate the cores (measured: they managed 0.85% of F1's pairs on
// the H100 host where 1.2% was assumed, 3.4% where 4.7% was assumed on 64 cores), so no margin
// is added; from the first measurements on the engine re-plans with measured rates
// (throughput_share.hpp).
constexpr double kCpuShareMargin = 1.0;

uint64_t pairs_of(const std::vector<int64_t>& sizes, int a, int b) {
  const int64_t na = sizes[static_cast<size_t>(a)];
  return pairs_in_rows(na, sizes[static_cast<size_t>(b)], a == b, 0, na);
}

int gpus_of(const MachineShape& m) {
  return m.gpus > 0 ? m.gpus : m.cuda_workers;
}

}  // namespace

uint64_t frame_pairs(const std::vector<int64_t>& sizes, const PairSelection& selected) {
  uint64_t total = 0;
  size_t index = 0;
  for (size_t a = 0; a < sizes.size(); ++a)
    for (size_t b = a; b < sizes.size(); ++b, ++index)
      if (selected.empty() || selected[index])
        total += pairs_of(sizes, static_cast<int>(a), static_cast<int>(b));
  return total;
}

DecompositionPolicy choose_policy(const std::vector<int64_t>& species_sizes,
                                  const MachineShape& machine, uint64_t tile_override,
                                  const PairSelection& selected) {
  DecompositionPolicy p;
  const uint64_t total = frame_pairs(species_sizes, selected);
  if (machine.cuda_workers > 0) {
    // Four tiles per GPU at least, so one frame alone keeps every GPU busy.
    const uint64_t spread = total / (4 * static_cast<uint64_t>(gpus_of(machine)));
    p.tile_pairs = std::clamp(spread, kMinTile, kGpuTile);
    p.min_tile_rows = kMinGpuTileRows;
  } else {
    const uint64_t spread = total / (4 * static_cast<uint64_t>(std::max(1, machine.cpu_workers)));
    p.tile_pairs = std::clamp(spread, kMinTile, kCpuTile);
  }
  if (tile_override > 0) {
    p.tile_pairs = tile_override;
    p.min_tile_rows = 0;
  }
  p.group_pairs = std::min(kCpuGroup, std::max<uint64_t>(1, p.tile_pairs / 2));
  if (machine.cuda_workers > 0 && machine.cpu_workers > 0) {
    p.cpu_task_limit = static_cast<uint64_t>(kAssumedCpuCoreRate * kTailBudgetSeconds);
    const double cpu_rate = machine.cpu_workers * kAssumedCpuCoreRate;
    const double share = cpu_rate / (cpu_rate + gpus_of(machine) * kAssumedGpuRate);
    p.cpu_share_pairs = static_cast<uint64_t>(std::min(1.0, share * kCpuShareMargin) * total);
  }
  return p;
}

std::vector<RowWindow> part_rows(const std::vector<int64_t>& sizes, int part, int parts) {
  std::vector<RowWindow> windows;
  const int n = static_cast<int>(sizes.size());
  for (int a = 0, index = 0; a < n; ++a)
    for (int b = a; b < n; ++b, ++index) {
      const int64_t na = sizes[static_cast<size_t>(a)], nb = sizes[static_cast<size_t>(b)];
      const uint64_t total = pairs_of(sizes, a, b);
      RowWindow w;
      if (parts <= 1) {
        w.end = na;
      } else if (total < kWholePairInPart) {
        if (index % parts == part) w.end = na;
      } else {
        // Part k ends where the rows' pairs first exceed k/parts of the pair's (128-bit: a 1e7
        // atom pair times a thousand parts overflows 64 bits).
        auto boundary = [&](int k) -> int64_t {
          if (k >= parts) return na;
          const auto budget =
              static_cast<uint64_t>(static_cast<unsigned __int128>(total) *
                                    static_cast<unsigned>(k) / static_cast<unsigned>(parts));
          return last_row_within(na, nb, a == b, 0, budget);
        };
        w.begin = boundary(part);
        w.end = boundary(part + 1);
      }
      windows.push_back(w);
    }
  return windows;
}

std::vector<PlannedTask> plan_frame(const std::vector<int64_t>& sizes,
                                    const DecompositionPolicy& policy, const MachineShape& machine,
                                    const PairSelection& selected,
                                    const std::vector<RowWindow>* windows) {
  struct Pair {
    int index, a, b;
    uint64_t pairs;
    int64_t row_begin, row_end;  // the rows counted (a part of a frame: fewer than all)
    bool whole;
  };
  std::vector<Pair> all;
  const int n = static_cast<int>(sizes.size());
  for (int a = 0, index = 0; a < n; ++a)
    for (int b = a; b < n; ++b, ++index) {
      if (!selected.empty() && !selected[static_cast<size_t>(index)]) continue;
      const int64_t na = sizes[static_cast<size_t>(a)];
      RowWindow w{0, na};
      if (windows) w = (*windows)[static_cast<size_t>(index)];
      const uint64_t p = pairs_in_rows(na, sizes[static_cast<size_t>(b)], a == b, w.begin, w.end);
      if (p > 0) all.push_back({index, a, b, p, w.begin, w.end, w.begin == 0 && w.end == na});
    }
  // Smallest first: the small pairs are the CPUs' share before any large pair is cut for them.
  std::stable_sort(all.begin(), all.end(),
                   [](const Pair& x, const Pair& y) { return x.pairs < y.pairs; });

  const bool hybrid = machine.cuda_workers > 0 && machine.cpu_workers > 0;
  std::vector<PlannedTask> tasks;
  std::vector<std::pair<uint64_t, Pair>> small;
  uint64_t cpu_budget = policy.cpu_share_pairs;
  // Rows [r0, r1) of pair p in tiles of at most `tile` pairs (GPU tiles: at least min_tile_rows).
  auto add_tiles = [&](const Pair& p, uint64_t tile, bool cpu_sized, int64_t r0, int64_t r1) {
    const int64_t na = sizes[static_cast<size_t>(p.a)];
    const int64_t columns = sizes[static_cast<size_t>(p.b)];
    const uint64_t row_floor =
        cpu_sized ? 0
                  : static_cast<uint64_t>(policy.min_tile_rows) * static_cast<uint64_t>(columns);
    const auto tiles =
        split_rows(na, columns, p.a == p.b, std::max<uint64_t>({1, tile, row_floor}), r0, r1);
    for (const RowTile& t : tiles) {
      PlannedTask task;
      task.pair_indices = {p.index};
      task.whole_pairs = t.row_begin == 0 && t.row_end == na;
      task.row_begin = t.row_begin;
      task.row_end = t.row_end;
      task.pairs = t.pairs;
      tasks.push_back(std::move(task));
    }
  };
  for (const Pair& p : all) {
    if (p.pairs < policy.group_pairs && p.whole) {
      small.emplace_back(p.pairs, p);
      cpu_budget -= std::min(cpu_budget, p.pairs);
    } else if (hybrid && cpu_budget > 0) {
      // The cores' share, cut into tiles a core finishes within the tail budget. The pair where
      // the budget runs out is split by rows: its first rows for the cores, the rest for the
      // GPUs, so the share is met to within a row rather than to within a whole pair (F1's pairs
      // near a 1% share are 0.5-1% of the frame each).
      const int64_t na = sizes[static_cast<size_t>(p.a)];
      const int64_t cut = p.pairs <= cpu_budget
                              ? p.row_end
                              : last_row_within(na, sizes[static_cast<size_t>(p.b)], p.a == p.b,
                                                p.row_begin, cpu_budget);
      add_tiles(p, policy.cpu_task_limit, true, p.row_begin, cut);
      add_tiles(p, policy.tile_pairs, false, cut, p.row_end);
      cpu_budget -= std::min(cpu_budget, p.pairs);
    } else {
      add_tiles(p, policy.tile_pairs, false, p.row_begin, p.row_end);
    }
  }
  // Small pairs packed first-fit decreasing: few groups, each close to group_pairs.
  std::stable_sort(small.begin(), small.end(),
                   [](const auto& x, const auto& y) { return x.first > y.first; });
  std::vector<PlannedTask> groups;
  for (const auto& [pairs, pair] : small) {
    auto fits = std::find_if(groups.begin(), groups.end(), [&](const PlannedTask& g) {
      return g.pairs + pairs <= policy.group_pairs;
    });
    if (fits == groups.end()) {
      groups.emplace_back();
      fits = groups.end() - 1;
      fits->whole_pairs = true;
    }
    fits->pair_indices.push_back(pair.index);
    fits->pairs += pairs;
    if (fits->pair_indices.size() == 1) {  // a lone small pair is one task over all its rows
      fits->row_begin = 0;
      fits->row_end = sizes[static_cast<size_t>(pair.a)];
    }
  }
  for (auto& g : groups) std::sort(g.pair_indices.begin(), g.pair_indices.end());
  tasks.insert(tasks.end(), groups.begin(), groups.end());
  for (auto& t : tasks)
    t.gpu_only = hybrid && policy.cpu_task_limit > 0 && t.pairs > policy.cpu_task_limit;
  return tasks;
}

}  // namespace pairhist
