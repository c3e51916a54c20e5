// The hybrid CPU share from measured rates (tasks/throughput_share): the bookkeeping, the rule,
// its behaviour in a simulated run, and the exactness of frames planned with changing shares.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include "codelets/cpu/pair_histogram_cpu.hpp"
#include "tasks/decomposition.hpp"
#include "tasks/row_tiles.hpp"
#include "tasks/throughput_share.hpp"
#include "tests/random_points.hpp"

using namespace pairhist;

namespace {

const std::vector<int64_t> kF1 = {150000, 60000, 30000, 20000, 10000, 6000, 3000, 900, 100};

/// Totals with `cpu_tasks` CPU tasks of `cpu_rate_per_core` and GPU-sized tasks at `gpu_rate`.
ThroughputTotals totals_at(double cpu_rate_per_core, double gpu_rate, uint64_t cpu_tasks,
                           uint64_t gpu_tasks) {
  ThroughputTotals t;
  t.cpu_tasks = cpu_tasks;
  t.cpu_busy_seconds = 0.03 * static_cast<double>(cpu_tasks);
  t.cpu_pairs = static_cast<uint64_t>(cpu_rate_per_core * t.cpu_busy_seconds);
  t.gpu_sized_tasks = t.cuda_tasks = gpu_tasks;
  t.gpu_sized_seconds = t.cuda_seconds = 0.002 * static_cast<double>(gpu_tasks);
  t.gpu_sized_pairs = t.cuda_pairs = static_cast<uint64_t>(gpu_rate * t.gpu_sized_seconds);
  return t;
}

}  // namespace

TEST_CASE("tracker: CPU busy time adds up, overlapping CUDA tasks count their union") {
  ThroughputTracker tr;
  tr.record(false, true, 0.0, 0.5, 100);
  tr.record(false, true, 0.1, 0.4, 50);  // another core at the same time: busy adds
  // Two CUDA workers on one GPU, overlapping, completing out of start order; then a gap.
  tr.record(true, false, 1.0, 2.0, 1000);
  tr.record(true, false, 1.5, 3.0, 2000);
  tr.record(true, false, 2.5, 2.8, 300);  // inside what is already covered: adds no time
  tr.record(true, true, 5.0, 5.5, 40);    // a CPU-sized task run by a GPU, after a gap
  tr.record(true, false, 4.8, 6.0, 600);  // started before the last one ended
  const ThroughputTotals& t = tr.totals();
  CHECK(t.cpu_tasks == 2);
  CHECK(t.cpu_pairs == 150);
  CHECK(t.cpu_busy_seconds == doctest::Approx(0.8));
  CHECK(t.cuda_tasks == 5);
  CHECK(t.cuda_pairs == 3940);
  // Union of [1,3] and [5,6]; the cursor misses [4.8,5.0] (its task completed after a later one).
  CHECK(t.cuda_seconds == doctest::Approx(3.0));
  CHECK(t.gpu_sized_tasks == 4);
  CHECK(t.gpu_sized_pairs == 3900);
  CHECK(t.gpu_sized_seconds == doctest::Approx(2.0 + 1.2));  // [1,3] and [4.8,6]
  CHECK(t.eaten_tasks == 1);
  CHECK(t.eaten_pairs == 40);
}

TEST_CASE("share rule: assumed until warmed up, then the measured share with the margin") {
  const MachineShape m{62, 8, 4};
  const uint64_t frame = 39'000'000'000ull;
  const uint64_t assumed = 2'700'000'000ull;
  // Not hybrid, or too few tasks of either class: the starting guess.
  for (const MachineShape other : {MachineShape{62, 0, 0}, MachineShape{0, 8, 4}}) {
    const CpuShare s = measured_cpu_share(totals_at(0.6e9, 4.8e12, 1000, 1000), other, frame, 7);
    CHECK_FALSE(s.measured);
    CHECK(s.cpu_share_pairs == 7);
  }
  CHECK_FALSE(measured_cpu_share(totals_at(0.6e9, 4.8e12, 61, 1000), m, frame, assumed).measured);
  CHECK_FALSE(measured_cpu_share(totals_at(0.6e9, 4.8e12, 62, 31), m, frame, assumed).measured);
  CHECK(measured_cpu_share({}, m, frame, assumed).cpu_share_pairs == assumed);

  const CpuShare s = measured_cpu_share(totals_at(0.6e9, 4.8e12, 62, 32), m, frame, assumed);
  REQUIRE(s.measured);
  CHECK(s.cpu_rate == doctest::Approx(62 * 0.6e9));
  CHECK(s.gpu_rate == doctest::Approx(4.8e12));
  const double share = 62 * 0.6e9 / (62 * 0.6e9 + 4.8e12);
  CHECK(s.fraction == doctest::Approx(share * kMeasuredShareMargin));
  CHECK(s.cpu_share_pairs == static_cast<uint64_t>(s.fraction * frame));
  CHECK(s.eaten_fraction == 0);
  CHECK(s.cpu_share_pairs < assumed / 2);  // the 64-core host: the assumed share was ~2x too big

  // Everything on the cores' side: at most the whole frame.
  const CpuShare all = measured_cpu_share(totals_at(1e12, 1e3, 100, 100), m, frame, assumed);
  CHECK(all.fraction == 1.0);
  CHECK(all.cpu_share_pairs == frame);
}

TEST_CASE("share rule: GPUs running CPU-sized tiles cap the share at what the cores achieved") {
  const MachineShape m{62, 8, 4};
  const uint64_t frame = 39'000'000'000ull;
  ThroughputTotals t = totals_at(0.6e9, 4.8e12, 1000, 1000);
  // The rates alone say ~0.77%; the cores did only 0.5% of all pairs done.
  t.cuda_pairs = static_cast<uint64_t>(t.cpu_pairs / 0.005) - t.cpu_pairs;
  const double achieved = static_cast<double>(t.cpu_pairs) / (t.cpu_pairs + t.cuda_pairs);
  const double rate_share = 62 * 0.6e9 / (62 * 0.6e9 + 4.8e12);
  REQUIRE(achieved < rate_share);

  // A little eating (under the tolerance): the rates rule.
  t.eaten_pairs = static_cast<uint64_t>(0.04 * t.cpu_pairs);
  CpuShare s = measured_cpu_share(t, m, frame, 0);
  CHECK(s.fraction == doctest::Approx(rate_share * kMeasuredShareMargin));
  CHECK(s.eaten_fraction < kEatenTolerance);
  // GPUs ran a third of the CPU-sized pairs: the achieved share, with the margin.
  t.eaten_pairs = t.cpu_pairs / 2;
  s = measured_cpu_share(t, m, frame, 0);
  CHECK(s.eaten_fraction == doctest::Approx(1.0 / 3));
  CHECK(s.fraction == doctest::Approx(achieved * kMeasuredShareMargin));
  // Cores that did more than the rates say (their share grew on its own): the rates rule.
  t.cuda_pairs = t.cpu_pairs * 10;
  s = measured_cpu_share(t, m, frame, 0);
  CHECK(s.fraction == doctest::Approx(rate_share * kMeasuredShareMargin));
}

TEST_CASE("plan: the share is met to within a tile, the last pair split by rows") {
  const MachineShape m{62, 8, 4};
  DecompositionPolicy policy = choose_policy(kF1, m);
  const uint64_t total = frame_pairs(kF1);
  for (double fraction : {0.0, 0.001, 0.0077, 0.01, 0.03, 0.07, 0.3, 1.0}) {
    CAPTURE(fraction);
    policy.cpu_share_pairs = static_cast<uint64_t>(fraction * total);
    const auto plan = plan_frame(kF1, policy, m);
    uint64_t eligible = 0, sum = 0;
    std::map<int, std::vector<std::pair<int64_t, int64_t>>> rows;
    for (const auto& t : plan) {
      sum += t.pairs;
      if (!t.gpu_only) eligible += t.pairs;
      if (t.pair_indices.size() == 1) rows[t.pair_indices[0]].push_back({t.row_begin, t.row_end});
    }
    CHECK(sum == total);
    // Small pairs are always CPU-eligible (groups); beyond them the budget within a CPU tile
    // (the split row) plus a GPU remainder below the CPU task limit.
    CHECK(eligible + 2 * policy.cpu_task_limit >= policy.cpu_share_pairs);
    CHECK(eligible <=
          std::max<uint64_t>(policy.cpu_share_pairs, total / 400) + 2 * policy.cpu_task_limit);
    for (auto& [p, r] : rows) {  // row ranges of each pair are contiguous and disjoint
      std::sort(r.begin(), r.end());
      for (size_t i = 1; i < r.size(); ++i) CHECK(r[i].first == r[i - 1].second);
    }
  }
}

TEST_CASE("simulated 64-core run: the share settles near what the cores can do") {
  // A toy host: the cores do 0.5e9 pairs/s each while busy (not the assumed 0.8e9), but are
  // available only 70% of the time (gaps between tasks, the reading thread), which the busy-time
  // rate does not see; the GPUs do 4.8e12 in all. Per frame, the cores do what they can of the
  // CPU-eligible pairs; the GPUs run the rest.
  const MachineShape m{62, 8, 4};
  DecompositionPolicy policy = choose_policy(kF1, m);
  const uint64_t total = frame_pairs(kF1);
  const double core_rate = 0.5e9, gpu_rate = 4.8e12, available = 0.7;
  ThroughputTotals t;
  double last_eaten = 1;
  for (int frame = 0; frame < 60; ++frame) {
    const CpuShare s = measured_cpu_share(t, m, total, choose_policy(kF1, m).cpu_share_pairs);
    policy.cpu_share_pairs = s.cpu_share_pairs;
    uint64_t eligible = 0;
    for (const auto& task : plan_frame(kF1, policy, m))
      if (!task.gpu_only) eligible += task.pairs;
    // The frame takes about total / (all rates); the cores manage that long at full speed.
    const double cpu_rate = m.cpu_workers * core_rate * available;
    const double seconds = total / (cpu_rate + gpu_rate);
    const auto cpu_can = static_cast<uint64_t>(cpu_rate * seconds);
    const uint64_t cpu_did = std::min(eligible, cpu_can);
    t.cpu_tasks += 62;
    t.cpu_pairs += cpu_did;
    t.cpu_busy_seconds += cpu_did / core_rate;
    t.eaten_pairs += eligible - cpu_did;
    t.cuda_tasks += 100;
    t.gpu_sized_tasks += 100;
    t.cuda_pairs += total - cpu_did;
    t.gpu_sized_pairs += total - eligible;
    t.cuda_seconds += seconds;
    t.gpu_sized_seconds += static_cast<double>(total - eligible) / gpu_rate;
    if (frame == 0) CHECK(eligible > 2 * cpu_can);  // the assumed rates offer too much
    last_eaten = static_cast<double>(eligible - cpu_did) / eligible;
  }
  const double can_share = 62 * core_rate * available / (62 * core_rate * available + gpu_rate);
  const CpuShare s = measured_cpu_share(t, m, total, 0);
  CHECK(s.measured);
  CHECK(s.fraction <= can_share * kMeasuredShareMargin * 1.01);
  CHECK(s.fraction >= can_share);
  CHECK(last_eaten < 0.2);
}

TEST_CASE("frames planned with changing shares give the exact histograms") {
  // Small sizes with small budgets, so every kind of task appears: groups, CPU tiles, the split
  // pair and GPU tiles. Each frame is planned with another share, its tasks run by the CPU kernel.
  const std::vector<int64_t> sizes{700, 300, 45, 1, 0, 160};
  const MachineShape m{4, 2, 1};
  DecompositionPolicy policy = choose_policy(sizes, m, 20000);
  policy.group_pairs = 3000;
  policy.cpu_task_limit = 4000;
  const uint64_t total = frame_pairs(sizes);
  const int nspecies = static_cast<int>(sizes.size());
  std::vector<std::pair<int, int>> pairs;
  for (int a = 0; a < nspecies; ++a)
    for (int b = a; b < nspecies; ++b) pairs.emplace_back(a, b);
  const int nbins = 97;
  std::vector<std::vector<uint64_t>> planned(pairs.size(), std::vector<uint64_t>(nbins, 0));
  auto reference = planned;
  std::vector<std::vector<uint64_t>> plans_seen;
  for (double fraction : {0.0, 0.013, 0.2, 0.55, 0.81, 1.0}) {
    CAPTURE(fraction);
    const BoxMatrix box = test::random_orthorhombic(2.0, 2.5);
    const HistogramParams<float> params =
        make_params<float>(box, BoxKind::orthorhombic, 1.0, nbins);
    std::vector<std::vector<float>> soa;
    for (int64_t n : sizes) soa.push_back(test::to_soa<float>(test::random_points(n, -1.0, 3.0)));
    auto coords = [&](int s) {
      return cpu::Coords<float>{soa[static_cast<size_t>(s)].data(), sizes[static_cast<size_t>(s)]};
    };
    policy.cpu_share_pairs = static_cast<uint64_t>(fraction * total);
    const auto plan = plan_frame(sizes, policy, m);
    std::vector<uint64_t> shape;
    for (const auto& t : plan) {
      shape.push_back(t.pairs);
      for (int p : t.pair_indices) {
        const auto [a, b] = pairs[static_cast<size_t>(p)];
        const bool whole = t.pair_indices.size() > 1;
        cpu::pair_histogram(coords(a), coords(b), a == b, whole ? 0 : t.row_begin,
                            whole ? sizes[static_cast<size_t>(a)] : t.row_end, params,
                            planned[static_cast<size_t>(p)].data());
      }
    }
    plans_seen.push_back(shape);
    for (size_t p = 0; p < pairs.size(); ++p) {
      const auto [a, b] = pairs[p];
      cpu::pair_histogram_reference(coords(a), coords(b), a == b, params, reference[p].data());
    }
  }
  CHECK(planned == reference);
  // The shares really gave different decompositions.
  std::sort(plans_seen.begin(), plans_seen.end());
  CHECK(std::unique(plans_seen.begin(), plans_seen.end()) - plans_seen.begin() >= 4);
}
