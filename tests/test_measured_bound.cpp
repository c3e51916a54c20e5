// The area LP over measured task times (tasks/measured_bound): optima worked out by hand, the
// estimates for kinds that did not run on an arch, and the cases without a bound.
#include <doctest/doctest.h>

#include "tasks/measured_bound.hpp"

using namespace pairhist;

namespace {

constexpr double kNo = -1;  // the kind may not run on that arch

AreaKind kind(uint64_t tasks, std::vector<double> seconds) {
  AreaKind k;
  k.tasks = tasks;
  k.seconds = std::move(seconds);
  return k;
}

/// A kind of `codelet` with `tasks` tasks of `pairs_each` pairs, allowed on the archs in `may`.
MeasuredKind measured(int codelet, uint64_t tasks, uint64_t pairs_each, std::vector<bool> may) {
  MeasuredKind k;
  k.codelet = codelet;
  k.tasks = tasks;
  k.pairs = tasks * pairs_each;
  k.runs.assign(may.size(), 0);
  k.run_seconds.assign(may.size(), 0.0);
  k.run_pairs.assign(may.size(), 0);
  k.may_run = std::move(may);
  return k;
}

void ran(MeasuredKind& k, size_t arch, uint64_t runs, double seconds, uint64_t pairs) {
  k.runs[arch] = runs;
  k.run_seconds[arch] = seconds;
  k.run_pairs[arch] = pairs;
}

}  // namespace

TEST_CASE("area LP: optima worked out by hand") {
  if (!area_lp_available()) {
    CHECK(solve_area_lp({kind(1, {1.0})}, {1}).reason == "built without GLPK");
    return;
  }
  SUBCASE("one kind on one arch: T = N t / W") {
    const AreaSolution s = solve_area_lp({kind(10, {0.3})}, {2});
    CHECK(s.reason.empty());
    CHECK(s.seconds == doctest::Approx(1.5).epsilon(1e-9));
  }
  SUBCASE("one kind on two archs: T = N / (W1 / t1 + W2 / t2)") {
    // 2 workers at 1 s per task and 1 at 0.5 s: 4 tasks per second together.
    const AreaSolution s = solve_area_lp({kind(30, {1.0, 0.5})}, {2, 1});
    CHECK(s.seconds == doctest::Approx(7.5).epsilon(1e-9));
  }
  SUBCASE("a GPU-only kind keeps the GPU busy; allowed on the cores it would not") {
    // Archs: cpu (2 workers), gpu (1). A: 10 tasks, 1 s on the GPU. B: 20 tasks, 1 s on a core,
    // 0.5 s on the GPU. A on the GPU alone needs 10 s, and B on the cores 20 / 2 = 10 s: T = 10.
    const AreaSolution gpu_only =
        solve_area_lp({kind(10, {kNo, 1.0}), kind(20, {1.0, 0.5})}, {2, 1});
    CHECK(gpu_only.seconds == doctest::Approx(10.0).epsilon(1e-9));
    // A allowed on the cores at 1 s: the GPU takes 2T tasks of B (its better ratio), the cores
    // the other 30 - 2T tasks at 2 per second: 2T = 30 - 2T, T = 7.5.
    const AreaSolution anywhere =
        solve_area_lp({kind(10, {1.0, 1.0}), kind(20, {1.0, 0.5})}, {2, 1});
    CHECK(anywhere.seconds == doctest::Approx(7.5).epsilon(1e-9));
  }
  SUBCASE("kinds without tasks and archs without workers play no part") {
    const AreaSolution s = solve_area_lp({kind(0, {5.0, 5.0}), kind(4, {1.0, 0.1})}, {3, 0});
    CHECK(s.seconds == doctest::Approx(4.0 / 3.0).epsilon(1e-9));
  }
}

TEST_CASE("area LP: no bound, and why") {
  CHECK(solve_area_lp({}, {1}).reason == "no task was measured");
  CHECK(solve_area_lp({kind(0, {1.0})}, {1}).seconds == 0);
  const AreaSolution nowhere = solve_area_lp({kind(1, {1.0}), kind(2, {kNo, 1.0})}, {1, 0});
  CHECK(nowhere.seconds == 0);
  CHECK(nowhere.reason == "task kind 1 has no time on any worker kind");
}

TEST_CASE("measured times: means where a kind ran, its codelet's throughput where it did not") {
  // Archs: cpu (1 worker), gpu (1). Codelet 0: kind D ran on both (cpu 1 s, gpu 0.25 s per task
  // of 1000 pairs: the GPU runs 4000 pairs/s of codelet 0); kind C (500 pairs) ran only on the
  // cores, 1 s per task: its GPU time is estimated as 500 / 4000 = 0.125 s. Kind E may not run
  // on the GPU: no estimate there.
  MeasuredKind d = measured(0, 4, 1000, {true, true});
  ran(d, 0, 2, 2.0, 2000);
  ran(d, 1, 2, 0.5, 2000);
  MeasuredKind c = measured(0, 6, 500, {true, true});
  ran(c, 0, 6, 6.0, 3000);
  MeasuredKind e = measured(1, 2, 100, {true, false});
  ran(e, 0, 2, 0.2, 200);
  MeasuredBound counts;
  const auto times = measured_times({d, c, e}, 2, counts);
  REQUIRE(times.size() == 3);
  CHECK(times[0].tasks == 4);
  CHECK(times[0].seconds[0] == doctest::Approx(1.0));
  CHECK(times[0].seconds[1] == doctest::Approx(0.25));
  CHECK(times[1].seconds[0] == doctest::Approx(1.0));
  CHECK(times[1].seconds[1] == doctest::Approx(0.125));
  CHECK(times[2].seconds[0] == doctest::Approx(0.1));
  CHECK(times[2].seconds[1] < 0);
  CHECK(counts.estimated_kinds == 1);
  CHECK(counts.estimated_entries == 1);
  CHECK(counts.unknown_entries == 0);

  if (!area_lp_available()) return;
  // D and C alone: prices p (cpu) + q (gpu) = 1 with D split (p = 0.25 q) give p = 0.2, q = 0.8;
  // C costs 0.1 on the GPU against 0.2 on a core, so all of C goes there (0.75 s) and the GPU
  // takes 2.6 of D: 0.75 + 0.25 * 2.6 = 4 - 2.6 = 1.4 s.
  const MeasuredBound b = measured_area_bound({d, c}, {{"cpu", 1}, {"cuda0", 1}});
  CHECK(b.reason.empty());
  CHECK(b.kinds == 2);
  CHECK(b.estimated_kinds == 1);
  CHECK(b.seconds == doctest::Approx(1.4).epsilon(1e-9));
}

TEST_CASE("measured times: fallbacks when the codelet or the whole arch never ran there") {
  // Codelet 1 never ran on the GPU: its kind takes the GPU's rate over every task (codelet 0,
  // 1000 pairs in 0.5 s = 2000/s): 300 pairs -> 0.15 s.
  MeasuredKind g = measured(0, 1, 1000, {false, true});
  ran(g, 1, 1, 0.5, 1000);
  MeasuredKind f = measured(1, 3, 300, {true, true});
  ran(f, 0, 3, 3.0, 900);
  MeasuredBound counts;
  auto times = measured_times({g, f}, 2, counts);
  CHECK(times[1].seconds[1] == doctest::Approx(0.15));
  CHECK(counts.estimated_kinds == 1);
  CHECK(times[0].seconds[0] < 0);  // g may not run on the cores

  // An arch that ran nothing has no rate: the kind is left out there and this is counted.
  MeasuredKind only_cpu = measured(0, 5, 10, {true, true});
  ran(only_cpu, 0, 5, 2.5, 50);
  MeasuredBound left;
  times = measured_times({only_cpu}, 2, left);
  CHECK(times[0].seconds[1] < 0);
  CHECK(left.unknown_entries == 1);
  CHECK(left.estimated_kinds == 0);
  if (!area_lp_available()) return;
  const MeasuredBound b = measured_area_bound({only_cpu}, {{"cpu", 2}, {"cuda0", 2}});
  CHECK(b.seconds == doctest::Approx(1.25).epsilon(1e-9));
  CHECK(b.unknown_entries == 1);
}
