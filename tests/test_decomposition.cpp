// The decomposition policy: every pair of every species pair examined exactly once, tiles and
// groups within their budgets, GPU-only restriction only in hybrid runs, frames spread over GPUs.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <random>

#include "tasks/decomposition.hpp"
#include "tasks/row_tiles.hpp"

using namespace pairhist;

namespace {

const std::vector<int64_t> kF1 = {150000, 60000, 30000, 20000, 10000, 6000, 3000, 900, 100};

uint64_t pair_total(int64_t na, int64_t nb, bool same) {
  return pairs_in_rows(na, nb, same, 0, na);
}

/// Checks the plan covers each species pair's rows exactly once; returns the total pairs.
uint64_t check_coverage(const std::vector<int64_t>& sizes, const std::vector<PlannedTask>& plan) {
  const int n = static_cast<int>(sizes.size());
  std::vector<std::pair<int, int>> pairs;
  for (int a = 0; a < n; ++a)
    for (int b = a; b < n; ++b) pairs.emplace_back(a, b);
  std::map<int, std::vector<std::pair<int64_t, int64_t>>> rows;  // pair -> row ranges
  uint64_t total = 0;
  for (const auto& t : plan) {
    REQUIRE(!t.pair_indices.empty());
    CHECK(t.pairs > 0);
    uint64_t task_pairs = 0;
    for (int p : t.pair_indices) {
      REQUIRE(p >= 0);
      REQUIRE(p < static_cast<int>(pairs.size()));
      const auto [a, b] = pairs[static_cast<size_t>(p)];
      const int64_t na = sizes[static_cast<size_t>(a)], nb = sizes[static_cast<size_t>(b)];
      if (t.pair_indices.size() > 1) {
        rows[p].push_back({0, na});
        task_pairs += pair_total(na, nb, a == b);
      } else {
        rows[p].push_back({t.row_begin, t.row_end});
        task_pairs += pairs_in_rows(na, nb, a == b, t.row_begin, t.row_end);
      }
    }
    CHECK(task_pairs == t.pairs);
    total += t.pairs;
  }
  for (size_t p = 0; p < pairs.size(); ++p) {
    const auto [a, b] = pairs[p];
    const int64_t na = sizes[static_cast<size_t>(a)], nb = sizes[static_cast<size_t>(b)];
    auto ranges = rows[static_cast<int>(p)];
    std::sort(ranges.begin(), ranges.end());
    if (pair_total(na, nb, a == b) == 0) {
      CHECK(ranges.empty());
      continue;
    }
    int64_t next = 0;
    uint64_t covered = 0;
    for (const auto& [r0, r1] : ranges) {
      CHECK(r0 == next);
      next = r1;
      covered += pairs_in_rows(na, nb, a == b, r0, r1);
    }
    CHECK(covered == pair_total(na, nb, a == b));
  }
  return total;
}

uint64_t frame_total(const std::vector<int64_t>& sizes) {
  uint64_t total = 0;
  for (size_t a = 0; a < sizes.size(); ++a)
    for (size_t b = a; b < sizes.size(); ++b) total += pair_total(sizes[a], sizes[b], a == b);
  return total;
}

}  // namespace

TEST_CASE("F1-like frame on one GPU and 15 cores: GPU tiles, CPU-sized groups, no long CPU task") {
  const MachineShape m{15, 1};
  const auto policy = choose_policy(kF1, m);
  CHECK(policy.tile_pairs == uint64_t(1) << 31);
  CHECK(policy.group_pairs <= policy.tile_pairs / 2);
  CHECK(policy.cpu_task_limit > 0);
  const auto plan = plan_frame(kF1, policy, m);
  CHECK(check_coverage(kF1, plan) == frame_total(kF1));
  // The cores' share (~1.8% of the frame with the margin) in tasks a core finishes in 30 ms,
  // at least one per core; the rest in GPU tiles.
  uint64_t cpu_pairs = 0;
  size_t cpu_tasks = 0;
  for (const auto& t : plan)
    if (!t.gpu_only) {
      cpu_pairs += t.pairs;
      ++cpu_tasks;
      CHECK(t.pairs <= policy.cpu_task_limit);
    }
  CHECK(policy.cpu_share_pairs > frame_total(kF1) / 100);
  CHECK(cpu_pairs >= policy.cpu_share_pairs / 2);
  CHECK(cpu_pairs <= 2 * policy.cpu_share_pairs);
  CHECK(cpu_tasks >= 15);
  CHECK(plan.size() < 120);
  for (const auto& t : plan) {
    CHECK(t.gpu_only == (t.pairs > policy.cpu_task_limit));
    if (t.pair_indices.size() > 1) CHECK(t.pairs <= policy.group_pairs);
    if (t.pair_indices.size() == 1 && t.row_end - t.row_begin > 1)
      CHECK(t.pairs <= policy.tile_pairs);
  }
  // The 45 species pairs: the tiny ones share tasks.
  size_t grouped = 0;
  for (const auto& t : plan)
    if (t.pair_indices.size() > 1) grouped += t.pair_indices.size();
  CHECK(grouped >= 10);
}

TEST_CASE("CPU-only and GPU-only runs restrict nothing") {
  for (const MachineShape m : {MachineShape{16, 0}, MachineShape{0, 2}, MachineShape{2, 0}}) {
    CAPTURE(m.cpu_workers);
    CAPTURE(m.cuda_workers);
    const auto policy = choose_policy(kF1, m);
    CHECK(policy.cpu_task_limit == 0);
    const auto plan = plan_frame(kF1, policy, m);
    for (const auto& t : plan) CHECK_FALSE(t.gpu_only);
    CHECK(check_coverage(kF1, plan) == frame_total(kF1));
    if (m.cuda_workers == 0) CHECK(policy.tile_pairs <= uint64_t(1) << 26);
  }
}

TEST_CASE("one large frame keeps every GPU busy") {
  const std::vector<int64_t> one{4000000};
  for (int gpus : {1, 2, 4, 8}) {
    const MachineShape m{0, gpus};
    const auto plan = plan_frame(one, choose_policy(one, m), m);
    CHECK(plan.size() >= static_cast<size_t>(4 * gpus));
    CHECK(check_coverage(one, plan) == frame_total(one));
    for (const auto& t : plan) CHECK(t.row_end - t.row_begin >= 4096);  // full CUDA blocks
  }
  // A small frame still spreads: four tiles per GPU, down to the minimum tile.
  const std::vector<int64_t> k6{100000};
  const MachineShape two{0, 2};
  const auto policy = choose_policy(k6, two);
  CHECK(policy.tile_pairs == frame_total(k6) / 8);
  CHECK(plan_frame(k6, policy, two).size() >= 8);
}

TEST_CASE("edge sizes: empty species, single atoms, override") {
  const std::vector<int64_t> sizes{0, 1, 1, 2, 0, 7};
  for (uint64_t override_pairs : {uint64_t(0), uint64_t(1), uint64_t(3), uint64_t(1000)}) {
    CAPTURE(override_pairs);
    for (const MachineShape m : {MachineShape{2, 0}, MachineShape{4, 1}}) {
      const auto policy = choose_policy(sizes, m, override_pairs);
      if (override_pairs > 0) CHECK(policy.tile_pairs == override_pairs);
      CHECK(check_coverage(sizes, plan_frame(sizes, policy, m)) == frame_total(sizes));
    }
  }
  CHECK(plan_frame({0, 1}, choose_policy({0, 1}, {2, 0}), {2, 0}).empty());
  // No grouping (more species than a group task can name): one task set per pair.
  DecompositionPolicy no_groups = choose_policy(sizes, {2, 0});
  no_groups.group_pairs = 0;
  for (const auto& t : plan_frame(sizes, no_groups, {2, 0})) CHECK(t.pair_indices.size() == 1);
}

TEST_CASE("random species sizes and machines") {
  std::mt19937_64 rng(std::random_device{}());
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<int64_t> sizes(1 + rng() % 12);
    for (auto& n : sizes) n = static_cast<int64_t>(rng() % 4 == 0 ? rng() % 3 : rng() % 300000);
    const MachineShape m{static_cast<int>(rng() % 65), static_cast<int>(rng() % 9)};
    if (m.cpu_workers + m.cuda_workers == 0) continue;
    const uint64_t override_pairs = rng() % 3 == 0 ? 1 + rng() % 100000000 : 0;
    const auto policy = choose_policy(sizes, m, override_pairs);
    const auto plan = plan_frame(sizes, policy, m);
    CHECK(check_coverage(sizes, plan) == frame_total(sizes));
  }
}

TEST_CASE("the parts of a frame cover every row of every pair once, whatever the machine") {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int64_t> size(0, 30000);
  const MachineShape gpus{15, 2, 1}, cpus{4, 0, 0};
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<int64_t> sizes;
    for (int s = 0, n = 1 + trial % 6; s < n; ++s)
      sizes.push_back(trial < 4 ? 5000 * s : size(rng));
    for (int parts : {1, 2, 3, 7, 64}) {
      CAPTURE(parts);
      // Rows each pair gets over all parts, and the parts' windows alone.
      const size_t npairs = sizes.size() * (sizes.size() + 1) / 2;
      std::vector<std::vector<int>> rows(npairs);
      for (size_t p = 0, a = 0; a < sizes.size(); ++a)
        for (size_t b = a; b < sizes.size(); ++b, ++p) rows[p].assign(size_t(sizes[a]), 0);
      uint64_t planned = 0;
      for (int part = 0; part < parts; ++part) {
        const auto windows = part_rows(sizes, part, parts);
        REQUIRE(windows.size() == npairs);
        for (size_t p = 0; p < npairs; ++p)
          for (int64_t r = windows[p].begin; r < windows[p].end; ++r) ++rows[p][size_t(r)];
        // Plans of the part on two machines examine its pairs, and only those, once.
        uint64_t in_plans[2] = {0, 0}, outside = 0;
        for (int machine = 0; machine < 2; ++machine) {
          const MachineShape& m = machine == 0 ? gpus : cpus;
          const DecompositionPolicy policy = choose_policy(sizes, m);
          for (const PlannedTask& t : plan_frame(sizes, policy, m, {}, &windows)) {
            in_plans[machine] += t.pairs;
            if (t.pair_indices.size() == 1 && !t.whole_pairs) {
              const RowWindow& w = windows[size_t(t.pair_indices[0])];
              outside += t.row_begin < w.begin || t.row_end > w.end;
            }
          }
        }
        CHECK(outside == 0);
        CHECK(in_plans[0] == in_plans[1]);
        planned += in_plans[0];
      }
      size_t wrong = 0;
      for (const auto& pair_rows : rows)
        wrong += !std::all_of(pair_rows.begin(), pair_rows.end(), [](int n) { return n == 1; });
      CHECK(wrong == 0);
      CHECK(planned == frame_pairs(sizes));
    }
  }
}
