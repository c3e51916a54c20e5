// The task library with cell lists on CPU workers: histograms equal the all-pairs reference bit
// for bit under every scheduler, worker count, cell reach and order, box kind and precision; auto
// picks cell lists where r_max is small against the system and all pairs where it is not.
#include <doctest/doctest.h>

#include <numeric>

#include "pairhist/environment.hpp"
#include "pairhist/errors.hpp"
#include "tasks/algorithm_choice.hpp"
#include "tasks/frame_ring.hpp"
#include "tests/engine_reference.hpp"

using namespace pairhist;

namespace {

test::RandomFrames roomy_frames(const std::vector<int64_t>& sizes, int frames, BoxKind kind) {
  return test::roomy_frames(sizes, frames, kind, 4.0, 4.6);
}

double r_max_for(BoxKind kind, const test::RandomFrames& f) {
  if (kind != BoxKind::triclinic) return 0.9;
  double r = 0.9;
  for (const auto& b : f.boxes) r = std::min(r, max_minimum_image_rmax(b));
  return r;
}

}  // namespace

TEST_CASE("cell-list engine equals the all-pairs reference under every scheduler and setting") {
  for (BoxKind kind : {BoxKind::none, BoxKind::orthorhombic, BoxKind::triclinic}) {
    CAPTURE(box_kind_name(kind));
    const auto frames = roomy_frames({1500, 400, 1, 0, 60}, 3, kind);
    EngineConfig config =
        test::engine_config(frames, kind, 90, r_max_for(kind, frames), Precision::single);
    config.algorithm = Algorithm::cell_list;
    config.ncuda = 0;
    const auto expected = test::reference_histograms<float>(frames, config);
    for (const char* sched : {"lws", "eager", "dmda", "random"})
      for (int ncpu : {1, 2}) {
        CAPTURE(sched);
        CAPTURE(ncpu);
        config.scheduler = sched;
        config.ncpu = ncpu;
        config.frames_in_flight = ncpu;
        REQUIRE(test::run_engine(frames, config) == expected);
      }
    config.scheduler = "eager";
    config.ncpu = 2;
    for (int reach = 1; reach <= kMaxCellReach; ++reach)
      for (CellOrder order : {CellOrder::row_major, CellOrder::morton, CellOrder::hilbert}) {
        CAPTURE(reach);
        CAPTURE(static_cast<int>(order));
        config.cell_reach = reach;
        config.cell_order = order;
        config.cell_order_set = true;
        for (bool prune : {false, true}) {  // per-point pruning (CPU): the same counts
          CAPTURE(prune);
          config.cell_prune = prune;
          REQUIRE(test::run_engine(frames, config) == expected);
        }
      }
    config.cell_prune = true;  // and pruned in double precision below
    // Without CUDA workers, CPU workers count even when told they only sum.
    config.cpu_workers_count = false;
    REQUIRE(test::run_engine(frames, config) == expected);
    config.cpu_workers_count = true;
    config.precision = Precision::double_;
    REQUIRE(test::run_engine(frames, config) == test::reference_histograms<double>(frames, config));
  }
}

TEST_CASE("cell-list tasks of several pairs (a small frame's pairs fused) count the same") {
  // Five species: 15 pairs, fused at most 8 pairs of 4 species to a task.
  const auto frames = roomy_frames({1500, 400, 1, 0, 60}, 3, BoxKind::orthorhombic);
  EngineConfig config =
      test::engine_config(frames, BoxKind::orthorhombic, 90, 0.9, Precision::single);
  config.algorithm = Algorithm::cell_list;
  config.ncuda = 0;
  config.ncpu = 2;
  config.frames_in_flight = 2;
  const auto expected = test::reference_histograms<float>(frames, config);
  const auto cell_tasks = [&] {
    RunActivity activity;
    CHECK(test::run_engine(frames, config, &activity) == expected);
    return activity.tasks_cell_cpu;
  };
  const uint64_t separate = cell_tasks();  // CPU workers only: one task per pair
  uint64_t fused = 0;
  for (const char* sched : {"lws", "dmda"}) {
    CAPTURE(sched);
    config.scheduler = sched;
    ScopedEnv on("PAIRHIST_TEST_FUSE_PAIRS", "1");
    fused = cell_tasks();
    config.precision = Precision::double_;
    REQUIRE(test::run_engine(frames, config) == test::reference_histograms<double>(frames, config));
    config.precision = Precision::single;
  }
  // The 9 or 10 pairs with work (none of the empty species) of 4 species: 2 tasks per frame.
  CHECK(fused < separate);
  CHECK(fused == 2 * 3);
}

TEST_CASE("auto takes cell lists for a small r_max, all pairs for one spanning the system") {
  const auto frames = roomy_frames({3000, 3000}, 2, BoxKind::orthorhombic);
  EngineConfig config =
      test::engine_config(frames, BoxKind::orthorhombic, 60, 0.5, Precision::single);
  config.ncpu = 2;
  config.ncuda = 0;
  {
    HistogramEngine engine(config);
    for (size_t t = 0; t < frames.xyz.size(); ++t)
      engine.submit_frame({frames.xyz[t][0].data(), frames.xyz[t][1].data()}, frames.boxes[t]);
    const auto counts = engine.finish();
    CHECK(counts == test::reference_histograms<float>(frames, config));
    const RunActivity act = engine.activity();
    REQUIRE(act.pair_work.size() == 3);
    for (size_t p = 0; p < 3; ++p) {
      const PairWork& w = act.pair_work[p];
      CAPTURE(p);
      CHECK(w.algorithm == Algorithm::cell_list);
      const uint64_t all = 2 * all_pair_count(3000, 3000, w.species_a == w.species_b);
      CHECK(w.candidates < all / 2);  // cells of r_cut / 2 in a box of ~9 r_max
      CHECK(w.within == std::accumulate(counts[p].begin(), counts[p].end(), uint64_t(0)));
      CHECK(w.within <= w.candidates);
    }
    CHECK(act.tasks_cell_cpu > 0);
    CHECK(act.tasks_cpu == 0);
    CHECK(act.cell_reach > 0);
  }
  config.r_max = 2.0;  // half the box: every cell neighbours every other
  HistogramEngine engine(config);
  engine.submit_frame({frames.xyz[0][0].data(), frames.xyz[0][1].data()}, frames.boxes[0]);
  engine.finish();
  for (const PairWork& w : engine.activity().pair_work) CHECK(w.algorithm == Algorithm::all_pairs);
}

TEST_CASE("cell-list intervals: each take holds its own frames, candidates add up") {
  const auto frames = roomy_frames({800, 200}, 4, BoxKind::orthorhombic);
  EngineConfig config =
      test::engine_config(frames, BoxKind::orthorhombic, 40, 0.8, Precision::single);
  config.algorithm = Algorithm::cell_list;
  config.ncpu = 2;
  config.ncuda = 0;
  HistogramEngine engine(config);
  std::vector<std::vector<uint64_t>> sum(3, std::vector<uint64_t>(40, 0));
  for (size_t t = 0; t < frames.xyz.size(); ++t) {
    engine.submit_frame({frames.xyz[t][0].data(), frames.xyz[t][1].data()}, frames.boxes[t]);
    if (t % 2 == 1) {
      const auto block = engine.take_histograms();
      REQUIRE(block.size() == 3);
      for (size_t p = 0; p < 3; ++p) {
        REQUIRE(block[p].size() == 40);
        for (size_t k = 0; k < 40; ++k) sum[p][k] += block[p][k];
      }
    }
  }
  engine.finish();
  CHECK(sum == test::reference_histograms<float>(frames, config));
  uint64_t candidates = 0;
  for (const PairWork& w : engine.activity().pair_work) candidates += w.candidates;
  CHECK(candidates > 0);
}

TEST_CASE("frames copied by several threads: the same buffer, the first non-finite atom") {
  const int64_t n = 100003;
  std::vector<float> xyz(size_t(3 * n));
  for (size_t i = 0; i < xyz.size(); ++i) xyz[i] = float(i % 977) * 0.25f;
  const float* src = xyz.data();
  auto atom = [src](int64_t i) { return src + 3 * i; };
  std::vector<double> serial(size_t(3 * n)), parallel(size_t(3 * n));
  CHECK(gather_atoms(atom, n, serial.data(), 0, n) == -1);
  for (int threads : {1, 2, 3, 7}) {
    CAPTURE(threads);
    std::fill(parallel.begin(), parallel.end(), -1.0);
    CHECK(gather_atoms_parallel(atom, n, parallel.data(), threads) == -1);
    CHECK(parallel == serial);
  }
  xyz[size_t(3 * 90000 + 1)] = NAN;  // in the last piece
  xyz[size_t(3 * 60000 + 2)] = INFINITY;
  for (int threads : {1, 2, 5})
    CHECK(gather_atoms_parallel(atom, n, parallel.data(), threads) == 60000);
}

TEST_CASE("frames copied from columns by several threads: the same buffer, the first bad atom") {
  const int64_t n = 70001;
  std::vector<float> soa(size_t(3 * n));
  for (size_t i = 0; i < soa.size(); ++i) soa[i] = float(i % 1013) * 0.5f - 100.0f;
  for (int threads : {1, 2, 3, 7}) {
    CAPTURE(threads);
    std::vector<double> wide(size_t(3 * n), -1.0);
    std::vector<float> narrow(size_t(3 * n), -1.0f);
    const auto copy_all = [&](auto& out) {
      return run_in_pieces(n, threads, [&](int64_t b, int64_t e) {
        return copy_columns(soa.data(), n, out.data(), b, e);
      });
    };
    CHECK(copy_all(wide) == -1);
    CHECK(copy_all(narrow) == -1);
    CHECK(narrow == soa);
    for (size_t i = 0; i < soa.size(); ++i) REQUIRE(wide[i] == double(soa[i]));
  }
  soa[size_t(2 * n + 50000)] = -INFINITY;  // z of atom 50000
  soa[size_t(n + 60000)] = NAN;            // y of atom 60000
  std::vector<float> out(size_t(3 * n));
  for (int threads : {1, 2, 5})
    CHECK(run_in_pieces(n, threads, [&](int64_t b, int64_t e) {
            return copy_columns(soa.data(), n, out.data(), b, e);
          }) == 50000);
}

TEST_CASE("counted_pairs: the pairs left out cost nothing and stay zero, the others are exact") {
  const auto frames = roomy_frames({300, 120, 0, 90}, 3, BoxKind::orthorhombic);
  for (const Algorithm algorithm : {Algorithm::all_pairs, Algorithm::cell_list}) {
    CAPTURE(int(algorithm));
    EngineConfig config =
        test::engine_config(frames, BoxKind::orthorhombic, 50, 0.9, Precision::single);
    config.ncpu = 2;
    config.ncuda = 0;
    config.algorithm = algorithm;
    const auto all = test::reference_histograms<float>(frames, config);
    // Pairs (a,b) in species_pairs order: (0,0) (0,1) (0,2) (0,3) (1,1) (1,2) (1,3) (2,2) ...
    config.counted_pairs.assign(all.size(), false);
    config.counted_pairs[1] = config.counted_pairs[6] = config.counted_pairs[9] = true;
    HistogramEngine engine(config);
    std::vector<const float*> ptr;
    for (size_t t = 0; t < frames.xyz.size(); ++t) {
      ptr.clear();
      for (const auto& s : frames.xyz[t]) ptr.push_back(s.data());
      engine.submit_frame(ptr, frames.boxes[t]);
    }
    const auto got = engine.finish();
    REQUIRE(got.size() == all.size());
    for (size_t p = 0; p < all.size(); ++p) {
      CAPTURE(p);
      if (config.counted_pairs[p])
        CHECK(got[p] == all[p]);
      else
        CHECK(got[p] == std::vector<uint64_t>(all[p].size(), 0));
    }
    const RunActivity activity = engine.activity();
    for (size_t p = 0; p < activity.pair_work.size(); ++p) {
      CHECK(activity.pair_work[p].counted == bool(config.counted_pairs[p]));
      CHECK((activity.pair_work[p].candidates > 0) == bool(config.counted_pairs[p]));
    }
    config.counted_pairs.pop_back();
    CHECK_THROWS_AS(HistogramEngine{config}, UsageError);
  }
}
