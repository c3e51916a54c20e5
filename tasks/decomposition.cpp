#include "decomposition.hpp"

#include <algorithm>
#include <numeric>

#include "row_tiles.hpp"

namespace pairhist {
namespace {

constexpr uint64_t kMinTile = uint64_t(1) << 22;
constexpr uint64_t kGpuTile = uint64_t(1) << 30;   // ~1 ms at kAssumedGpuRate
constexpr uint64_t kCpuTile = uint64_t(1) << 26;   // ~80 ms on one core
constexpr uint64_t kCpuGroup = uint64_t(1) << 24;  // ~20 ms on one core
// A CUDA block covers 1024 rows; a tile of fewer rows leaves threads idle (a 4M-atom frame in
// 2^30-pair tiles, 268 rows each, ran at 288 instead of ~1400 bapps on an H200).
constexpr int64_t kMinGpuTileRows = 4096;
constexpr double kTailBudgetSeconds = 0.03;  // longest task a CPU core may take in a hybrid run

uint64_t pairs_of(const std::vector<int64_t>& sizes, int a, int b) {
  const int64_t na = sizes[static_cast<size_t>(a)];
  return pairs_in_rows(na, sizes[static_cast<size_t>(b)], a == b, 0, na);
}

uint64_t frame_pairs(const std::vector<int64_t>& sizes) {
  uint64_t total = 0;
  for (size_t a = 0; a < sizes.size(); ++a)
    for (size_t b = a; b < sizes.size(); ++b)
      total += pairs_of(sizes, static_cast<int>(a), static_cast<int>(b));
  return total;
}

}  // namespace

DecompositionPolicy choose_policy(const std::vector<int64_t>& species_sizes,
                                  const MachineShape& machine, uint64_t tile_override) {
  DecompositionPolicy p;
  const uint64_t total = frame_pairs(species_sizes);
  if (machine.cuda_workers > 0) {
    // Four tiles per GPU at least, so one frame alone keeps every GPU busy.
    const uint64_t spread = total / (4 * static_cast<uint64_t>(machine.cuda_workers));
    p.tile_pairs = std::clamp(spread, kMinTile, kGpuTile);
  } else {
    const uint64_t spread = total / (4 * static_cast<uint64_t>(std::max(1, machine.cpu_workers)));
    p.tile_pairs = std::clamp(spread, kMinTile, kCpuTile);
  }
  if (machine.cuda_workers > 0) p.min_tile_rows = kMinGpuTileRows;
  if (tile_override > 0) {
    p.tile_pairs = tile_override;
    p.min_tile_rows = 0;
  }
  p.group_pairs = std::min(kCpuGroup, std::max<uint64_t>(1, p.tile_pairs / 2));
  if (machine.cuda_workers > 0 && machine.cpu_workers > 0)
    p.cpu_task_limit = static_cast<uint64_t>(kAssumedCpuCoreRate * kTailBudgetSeconds);
  return p;
}

std::vector<PlannedTask> plan_frame(const std::vector<int64_t>& sizes,
                                    const DecompositionPolicy& policy,
                                    const MachineShape& machine) {
  std::vector<PlannedTask> tasks;
  std::vector<std::pair<uint64_t, int>> small;  // (pairs, pair index)
  std::vector<int64_t> rows_of;                 // rows (atoms of the first species) of each pair
  int index = 0;
  const int n = static_cast<int>(sizes.size());
  for (int a = 0; a < n; ++a) {
    for (int b = a; b < n; ++b, ++index) {
      rows_of.push_back(sizes[static_cast<size_t>(a)]);
      const uint64_t pairs = pairs_of(sizes, a, b);
      if (pairs == 0) continue;
      if (pairs < policy.group_pairs) {
        small.emplace_back(pairs, index);
        continue;
      }
      const int64_t na = sizes[static_cast<size_t>(a)];
      const int64_t columns = sizes[static_cast<size_t>(b)];
      const uint64_t row_floor =
          static_cast<uint64_t>(policy.min_tile_rows) * static_cast<uint64_t>(columns);
      const auto tiles =
          split_rows(na, columns, a == b, std::max<uint64_t>({1, policy.tile_pairs, row_floor}));
      for (const RowTile& t : tiles) {
        PlannedTask task;
        task.pair_indices = {index};
        task.whole_pairs = tiles.size() == 1;
        task.row_begin = t.row_begin;
        task.row_end = t.row_end;
        task.pairs = t.pairs;
        tasks.push_back(std::move(task));
      }
    }
  }
  // First-fit decreasing: few groups, each close to group_pairs.
  std::stable_sort(small.begin(), small.end(),
                   [](const auto& x, const auto& y) { return x.first > y.first; });
  std::vector<PlannedTask> groups;
  for (const auto& [pairs, pair_index] : small) {
    auto fits = std::find_if(groups.begin(), groups.end(), [&](const PlannedTask& g) {
      return g.pairs + pairs <= policy.group_pairs;
    });
    if (fits == groups.end()) {
      groups.emplace_back();
      fits = groups.end() - 1;
      fits->whole_pairs = true;
    }
    fits->pair_indices.push_back(pair_index);
    fits->pairs += pairs;
  }
  for (auto& g : groups) {
    std::sort(g.pair_indices.begin(), g.pair_indices.end());
    if (g.pair_indices.size() == 1) {  // a lone small pair: one task over all its rows
      g.row_begin = 0;
      g.row_end = rows_of[static_cast<size_t>(g.pair_indices[0])];
    }
  }
  tasks.insert(tasks.end(), groups.begin(), groups.end());
  const bool hybrid = machine.cuda_workers > 0 && machine.cpu_workers > 0;
  for (auto& t : tasks)
    t.gpu_only = hybrid && policy.cpu_task_limit > 0 && t.pairs > policy.cpu_task_limit;
  return tasks;
}

}  // namespace pairhist
