// The task library end to end on CPU workers: histograms are exact and do not depend on the
// scheduler, the number of workers or how pairs are cut into tasks.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "drivers/job/trajectory_job.hpp"
#include "io/topology/gro_reader.hpp"
#include "io/xtc/xtc_reader.hpp"
#include "pairhist/errors.hpp"
#include "tasks/algorithm_choice.hpp"
#include "tests/engine_reference.hpp"
#include "tests/test_paths.hpp"

using namespace pairhist;

namespace {

/// A job over the bundled water sample: these species, r_max and bins.
JobOptions water_job(std::vector<std::string> species, double r_max, int nbins) {
  JobOptions o;
  o.trajectory = test::data_dir() + "/spce_water.xtc";
  o.topology = test::data_dir() + "/spce_water.gro";
  for (const auto& s : species) o.species.push_back(parse_species(s));
  o.r_max = r_max;
  o.nbins = nbins;
  return o;
}

}  // namespace

TEST_CASE("engine equals the reference and is identical under every scheduler") {
  for (BoxKind kind : {BoxKind::none, BoxKind::orthorhombic, BoxKind::triclinic}) {
    CAPTURE(box_kind_name(kind));
    // Species of very different sizes, including a single atom and an empty one.
    const auto frames = test::make_frames({700, 333, 1, 0, 50}, 3, kind);
    EngineConfig config = test::engine_config(frames, kind, 250, 1.0, Precision::single);
    const auto expected = test::reference_histograms<float>(frames, config);
    for (const char* sched : {"lws", "eager", "dmda", "random", "dmdas", "ws"}) {
      for (int ncpu : {1, 2}) {
        for (uint64_t max_pairs : {uint64_t(1) << 28, uint64_t(5000)}) {
          CAPTURE(sched);
          CAPTURE(ncpu);
          CAPTURE(max_pairs);
          config.scheduler = sched;
          config.ncpu = ncpu;
          config.ncuda = 0;
          config.max_pairs_per_task = max_pairs;
          config.frames_in_flight = ncpu;  // 1 forces every frame to wait for a free buffer
          REQUIRE(test::run_engine(frames, config) == expected);
        }
      }
    }
    config.precision = Precision::double_;
    config.scheduler = "dmda";
    REQUIRE(test::run_engine(frames, config) == test::reference_histograms<double>(frames, config));
  }
}

TEST_CASE("a trajectory job on the sample equals the reference, frame selection respected") {
  JobOptions o = water_job({"O=OW", "H=HW1,HW2"}, 1.2, 120);
  o.first = 3;
  o.last = 12;
  o.step = 4;  // frames 3, 7, 11
  o.ncpu = 2;
  o.ncuda = 0;
  const JobOutcome out = run_trajectory_job(o);
  const auto& r = out.result;
  REQUIRE(r.frame_indices == std::vector<int64_t>{3, 7, 11});
  REQUIRE(r.species.size() == 2);
  CHECK(r.species[0].count == 884);
  CHECK(r.species[1].count == 1768);
  CHECK(r.box_kind == "orthorhombic");
  CHECK(r.volumes.size() == 3);
  CHECK(out.pairs_examined == 3 * (884ull * 883 / 2 + 884ull * 1768 + 1768ull * 1767 / 2));

  // Reference: re-read the same frames and count with the plain loop.
  io::XtcReader reader(o.trajectory);
  analysis::Topology top = io::read_gro(o.topology);
  test::RandomFrames f;
  f.sizes = {884, 1768};
  io::TrajectoryFrame frame;
  for (int64_t index = 0; reader.next(frame); ++index) {
    if (index != 3 && index != 7 && index != 11) continue;
    BoxMatrix box;
    for (int i = 0; i < 9; ++i) box[i] = frame.box[i];
    f.boxes.push_back(box);
    std::vector<float> o_xyz, h_xyz;
    for (int a = 0; a < top.natoms(); ++a) {
      auto& dst = top.atom_names[a] == "OW" ? o_xyz : h_xyz;
      dst.insert(dst.end(), &frame.xyz[3 * a], &frame.xyz[3 * a + 3]);
    }
    f.xyz.push_back({o_xyz, h_xyz});
  }
  EngineConfig c =
      test::engine_config(f, BoxKind::orthorhombic, o.nbins, o.r_max, Precision::single);
  const auto expected = test::reference_histograms<float>(f, c);
  REQUIRE(r.pairs.size() == 3);
  for (size_t p = 0; p < 3; ++p) CHECK(r.pairs[p].counts == expected[p]);

  // The activity report accounts for every task and pair exactly once.
  const RunActivity& act = out.activity;
  uint64_t tasks = 0, pairs = 0;
  for (const auto& w : act.workers) {
    tasks += w.tasks;
    pairs += w.pairs;
    CHECK(w.busy_seconds >= 0);
    CHECK(w.last_end_seconds <= act.makespan_seconds + 1e-9);
  }
  CHECK(tasks == out.tasks);
  CHECK(pairs == out.pairs_examined);
  CHECK(act.tasks_cpu == out.tasks);
  CHECK(act.pairs_cpu == out.pairs_examined);
  CHECK(act.makespan_seconds > 0);
  CHECK(act.tail_idle_seconds >= 0);
  CHECK(act.tail_idle_seconds <= act.makespan_seconds);
}

TEST_CASE("job errors are one line and name the problem") {
  // Beyond half the ~3 nm box every periodic image is counted (no error).
  JobOptions o = water_job({"O=OW"}, 2.0, 10);
  CHECK(run_trajectory_job(o).activity.periodic_images);
  o.r_max = 1.0;
  o.species = {parse_species("X=NOPE")};
  try {
    run_trajectory_job(o);
    FAIL("expected an error");
  } catch (const InputError& e) {
    const std::string msg = e.what();
    CHECK(msg.find("NOPE") != std::string::npos);
    CHECK(msg.find('\n') == std::string::npos);
  }
  o.species = {parse_species("O=OW"), parse_species("O=O*")};
  CHECK_THROWS_AS(run_trajectory_job(o), UsageError);  // a species defined twice
  o.species = {parse_species("O=OW")};
  o.exclude = "bonds";
  CHECK_THROWS_AS(run_trajectory_job(o), UsageError);
  o.exclude = "none";
  o.norm = "gofr";
  CHECK_THROWS_AS(run_trajectory_job(o), UsageError);
  CHECK_THROWS_AS(parse_species("novalue"), UsageError);
}

TEST_CASE("an engine that cannot be built releases StarPU, and the next one works") {
  EngineConfig bad;
  bad.species_sizes = {10, 2000000000};  // 6e9 values: more than a StarPU 1.3 vector holds
  bad.r_max = 1.0;
  bad.nbins = 10;
  bad.ncpu = 1;
  CHECK_THROWS_AS(HistogramEngine{bad}, UsageError);
  const auto frames = test::make_frames({50, 20}, 1, BoxKind::none);
  EngineConfig good = test::engine_config(frames, BoxKind::none, 10, 1.0, Precision::single);
  good.ncpu = 1;
  CHECK(test::run_engine(frames, good) == test::reference_histograms<float>(frames, good));
}

TEST_CASE("output intervals: blocks of N frames, the last one partial, summing to the run") {
  JobOptions o = water_job({"O=OW", "H=HW1,HW2"}, 1.0, 50);
  o.last = 9;  // 10 frames
  o.ncpu = 2;
  const JobOutcome whole = run_trajectory_job(o);
  CHECK(whole.result.intervals.empty());

  o.interval = 4;
  std::vector<size_t> seen;  // frames covered at each callback
  o.hooks.on_interval = [&](const HistogramResult& r) {
    // Written while the run goes on: a run killed now must not leave files that look finished.
    CHECK_FALSE(r.complete);
    CHECK(r.stopped_by == "in progress");
    seen.push_back(r.frame_indices.size());
    CHECK(r.intervals.back().frame_end == r.frame_indices.size());
  };
  const JobOutcome blocks = run_trajectory_job(o);
  const auto& iv = blocks.result.intervals;
  REQUIRE(iv.size() == 3);  // 4 + 4 + 2
  CHECK(seen == std::vector<size_t>{4, 8});
  CHECK(iv[2].frame_begin == 8);
  CHECK(iv[2].frame_end == 10);
  for (size_t p = 0; p < 3; ++p) {
    std::vector<uint64_t> sum(50, 0);
    for (const auto& b : iv)
      for (size_t k = 0; k < 50; ++k) sum[k] += b.counts[p][k];
    CHECK(sum == whole.result.pairs[p].counts);
    CHECK(blocks.result.pairs[p].counts == whole.result.pairs[p].counts);
  }
}

TEST_CASE("streaming 1000 frames stays within the memory budget") {
  const auto frames = test::make_frames({120, 40}, 1000, BoxKind::orthorhombic);
  EngineConfig config =
      test::engine_config(frames, BoxKind::orthorhombic, 64, 1.0, Precision::single);
  config.ncpu = 2;
  config.ncuda = 0;
  const uint64_t frame_bytes = (120 + 40) * 3 * sizeof(float);
  config.memory_budget_bytes = 3 * frame_bytes + frame_bytes / 2;  // room for three frames
  HistogramEngine engine(config);
  CHECK(engine.frame_bytes() == frame_bytes);
  CHECK(engine.frames_in_flight() == 3);
  CHECK(engine.frames_in_flight() * engine.frame_bytes() <= config.memory_budget_bytes);
  for (size_t t = 0; t < frames.xyz.size(); ++t) {
    std::vector<const float*> ptr;
    for (const auto& s : frames.xyz[t]) ptr.push_back(s.data());
    engine.submit_frame(ptr, frames.boxes[t]);
  }
  CHECK(engine.frames_submitted() == 1000);
  CHECK(engine.finish() == test::reference_histograms<float>(frames, config));
  // Budgets below two frames still double-buffer; huge ones stop at 64 frames.
  config.memory_budget_bytes = 1;
  CHECK(HistogramEngine(config).frames_in_flight() == 2);
  config.memory_budget_bytes = uint64_t(1) << 40;
  CHECK(HistogramEngine(config).frames_in_flight() == 64);
}

TEST_CASE("frames given as atoms of a whole frame equal per-species arrays; bad ones are refused") {
  const auto frames = test::make_frames({150, 60, 25}, 6, BoxKind::orthorhombic);
  EngineConfig config =
      test::engine_config(frames, BoxKind::orthorhombic, 80, 1.0, Precision::single);
  config.ncpu = 2;
  config.ncuda = 0;
  config.frames_in_flight = 2;  // the refused frame must not take a ring slot
  // Each frame as one array, species interleaved in reverse order, picked back by index.
  HistogramEngine engine(config);
  std::vector<std::vector<int>> atoms(3);
  for (size_t t = 0; t < frames.xyz.size(); ++t) {
    std::vector<float> whole;
    for (auto& a : atoms) a.clear();
    for (int s = 2; s >= 0; --s)
      for (size_t i = 0; i < frames.xyz[t][s].size() / 3; ++i) {
        atoms[s].push_back(static_cast<int>(whole.size() / 3));
        whole.insert(whole.end(), &frames.xyz[t][s][3 * i], &frames.xyz[t][s][3 * i + 3]);
      }
    if (t == 3) {  // a bad copy of frame 3 first: refused, and nothing of it counted
      std::vector<float> bad = whole;
      bad[3 * static_cast<size_t>(atoms[1][17]) + 2] = std::nanf("");
      try {
        engine.submit_frame_atoms(bad.data(), atoms, frames.boxes[t]);
        FAIL("a NaN coordinate was accepted");
      } catch (const NonFiniteCoordinate& e) {
        CHECK(e.species == 1);
        CHECK(e.position == 17);
      }
    }
    engine.submit_frame_atoms(whole.data(), atoms, frames.boxes[t]);
  }
  CHECK(engine.frames_submitted() == 6);
  CHECK(engine.finish() == test::reference_histograms<float>(frames, config));
  const RunActivity a = engine.activity();
  REQUIRE(a.feed.size() == 6);
  for (const FrameFeed& f : a.feed) {
    CHECK(f.begin <= f.allocated);
    CHECK(f.allocated <= f.buffers_free);
    CHECK(f.buffers_free <= f.filled);
    CHECK(f.filled <= f.submitted);
  }
  atoms.pop_back();
  CHECK_THROWS_AS(HistogramEngine(config).submit_frame_atoms(nullptr, atoms, frames.boxes[0]),
                  std::invalid_argument);
}

TEST_CASE("frames given as species columns equal per-species arrays; bad ones are refused") {
  for (const Algorithm algorithm : {Algorithm::all_pairs, Algorithm::cell_list})
    for (const Precision precision : {Precision::single, Precision::double_})
      for (const BoxKind kind : {BoxKind::none, BoxKind::orthorhombic}) {
        CAPTURE(int(algorithm));
        CAPTURE(int(precision));
        CAPTURE(int(kind));
        const auto frames = test::make_frames({140, 0, 70}, 5, kind);
        EngineConfig config = test::engine_config(frames, kind, 60, 0.45, precision);
        config.ncpu = 2;
        config.ncuda = 0;
        config.frames_in_flight = 2;
        config.algorithm = algorithm;
        HistogramEngine engine(config);
        for (size_t t = 0; t < frames.xyz.size(); ++t) {
          std::vector<std::vector<float>> soa(frames.xyz[t].size());
          CoordinateBounds bounds{{INFINITY, INFINITY, INFINITY},
                                  {-INFINITY, -INFINITY, -INFINITY}};
          for (size_t s = 0; s < soa.size(); ++s) {
            const size_t n = frames.xyz[t][s].size() / 3;
            soa[s].resize(3 * n);
            for (size_t i = 0; i < n; ++i)
              for (int c = 0; c < 3; ++c) {
                const float v = frames.xyz[t][s][3 * i + size_t(c)];
                soa[s][size_t(c) * n + i] = v;
                bounds.lo[c] = std::min(bounds.lo[c], v);
                bounds.hi[c] = std::max(bounds.hi[c], v);
              }
          }
          std::vector<const float*> ptr;
          for (const auto& s : soa) ptr.push_back(s.data());
          if (t == 2) {  // a bad copy first: refused, nothing of it counted
            std::vector<float> bad = soa[2];
            bad[2 * 70 + 33] = std::nanf("");
            std::vector<const float*> bad_ptr = {ptr[0], ptr[1], bad.data()};
            try {
              engine.submit_frame_columns(bad_ptr, frames.boxes[t]);
              FAIL("a NaN coordinate was accepted");
            } catch (const NonFiniteCoordinate& e) {
              CHECK(e.species == 2);
              CHECK(e.position == 33);
            }
          }
          // Bounds from the caller on odd frames, from the engine's own pass on even ones.
          engine.submit_frame_columns(ptr, frames.boxes[t], t % 2 ? &bounds : nullptr);
        }
        CHECK(engine.frames_submitted() == 5);
        if (precision == Precision::single)
          CHECK(engine.finish() == test::reference_histograms<float>(frames, config));
        else
          CHECK(engine.finish() == test::reference_histograms<double>(frames, config));
      }
}

TEST_CASE("an engine in its own scheduling context equals the reference") {
  const auto frames = test::make_frames({300, 120, 7}, 3, BoxKind::triclinic);
  EngineConfig config = test::engine_config(frames, BoxKind::triclinic, 90, 0.9, Precision::single);
  config.ncpu = 2;
  config.ncuda = 0;
  config.own_context = true;
  for (const char* sched : {"eager", "dmdas", "lws"}) {
    CAPTURE(sched);
    config.scheduler = sched;
    REQUIRE(test::run_engine(frames, config) == test::reference_histograms<float>(frames, config));
  }
  config.context_workers = {1};  // one of the two CPU workers
  config.scheduler = "";
  REQUIRE(test::run_engine(frames, config) == test::reference_histograms<float>(frames, config));
  config.context_workers = {5};
  CHECK_THROWS_AS(HistogramEngine{config}, UsageError);
}

TEST_CASE("frame selection by time: --begin/--end keep exactly the frames in the window") {
  JobOptions o = water_job({"O=OW"}, 1.0, 20);
  o.ncpu = 2;
  const JobOutcome all = run_trajectory_job(o);
  REQUIRE(all.result.frame_times.size() > 20);
  const double t0 = all.result.frame_times[10], t1 = all.result.frame_times[20];
  o.begin_time = t0;
  o.end_time = t1;
  const JobOutcome window = run_trajectory_job(o);
  std::vector<int64_t> expected;
  for (size_t i = 0; i < all.result.frame_times.size(); ++i)
    if (all.result.frame_times[i] >= t0 && all.result.frame_times[i] <= t1)
      expected.push_back(all.result.frame_indices[i]);
  CHECK(window.result.frame_indices == expected);
  CHECK(expected.size() == 11);
  // With an index step on top: every other frame of the file, inside the window.
  o.step = 2;
  const JobOutcome stepped = run_trajectory_job(o);
  for (int64_t f : stepped.result.frame_indices) CHECK(f % 2 == 0);
  CHECK(stepped.result.frame_indices.size() == 6);
  o.step = 1;
  o.begin_time = t1;
  o.end_time = t0;
  CHECK_THROWS_AS(run_trajectory_job(o), UsageError);
  o.begin_time = all.result.frame_times.back() + 1;
  o.end_time = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_AS(run_trajectory_job(o), InputError);  // no frame selected
}

TEST_CASE("static baseline and calibration states give the same histograms") {
  const auto frames = test::make_frames({260, 90, 1}, 4, BoxKind::orthorhombic);
  EngineConfig config =
      test::engine_config(frames, BoxKind::orthorhombic, 80, 1.0, Precision::single);
  config.ncpu = 2;
  config.ncuda = 0;
  const auto expected = test::reference_histograms<float>(frames, config);
  config.whole_frames = true;  // --schedule static: one task per frame from a shared queue
  CHECK(test::run_engine(frames, config) == expected);
  config.whole_frames = false;
  // dmda with no model, while calibrating, and with the models it stored.
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("pairhist-models-" + std::to_string(getpid())))
          .string();
  std::filesystem::remove_all(dir);
  setenv("STARPU_PERF_MODEL_DIR", dir.c_str(), 1);
  config.scheduler = "dmda";
  for (const char* calibrate : {"2", "1", "0"}) {  // reset, keep measuring, use what is stored
    CAPTURE(calibrate);
    setenv("STARPU_CALIBRATE", calibrate, 1);
    CHECK(test::run_engine(frames, config) == expected);
  }
  unsetenv("STARPU_CALIBRATE");
  unsetenv("STARPU_PERF_MODEL_DIR");
  CHECK(std::filesystem::exists(dir + "/codelets"));  // the models were written
  std::filesystem::remove_all(dir);
}

TEST_CASE("explicit sum tasks give the same histograms as REDUX") {
  for (BoxKind kind : {BoxKind::none, BoxKind::triclinic}) {
    const auto frames = test::make_frames({400, 150, 1, 0, 30}, 3, kind);
    EngineConfig config = test::engine_config(frames, kind, 120, 1.0, Precision::single);
    config.ncpu = 2;
    config.ncuda = 0;
    config.sum_tasks = true;
    const auto expected = test::reference_histograms<float>(frames, config);
    for (const char* sched : {"lws", "eager", "dmda"}) {
      for (uint64_t tile : {uint64_t(0), uint64_t(3000)}) {
        CAPTURE(sched);
        CAPTURE(tile);
        config.scheduler = sched;
        config.max_pairs_per_task = tile;
        REQUIRE(test::run_engine(frames, config) == expected);
      }
    }
    config.whole_frames = true;
    CHECK(test::run_engine(frames, config) == expected);
  }
}

TEST_CASE("a frame counted in parts, each part by its own engine, sums to the whole frame") {
  // Pairs above kWholePairInPart are cut by rows (all pairs) or home cells (cell lists), the
  // small ones go whole to one part; part -1 is the whole frame. Engines with different worker
  // counts and tiles (as different ranks have) count the parts.
  const auto frames = test::roomy_frames({7000, 3000, 40, 1}, 2, BoxKind::orthorhombic, 4.0, 4.4);
  EngineConfig base =
      test::engine_config(frames, BoxKind::orthorhombic, 120, 0.6, Precision::single);
  base.ncuda = 0;
  for (Algorithm algorithm : {Algorithm::all_pairs, Algorithm::cell_list}) {
    CAPTURE(algorithm_name(algorithm));
    base.algorithm = algorithm;
    const auto expected = test::run_engine(frames, base);
    for (int parts : {2, 5}) {
      CAPTURE(parts);
      std::vector<std::vector<uint64_t>> sum(expected.size(),
                                             std::vector<uint64_t>(expected[0].size(), 0));
      for (int part = -1; part < parts; ++part) {
        EngineConfig c = base;
        c.frame_parts = parts;
        c.ncpu = 1 + (part + 1) % 2;
        c.max_pairs_per_task = part % 2 == 0 ? uint64_t(1) << 20 : 0;
        HistogramEngine engine(c);
        engine.set_frame_part(part);
        for (size_t t = 0; t < frames.xyz.size(); ++t) {
          if ((part == -1) != (t == 0)) continue;  // frame 0 whole, frame 1 in parts
          std::vector<const float*> ptr;
          for (const auto& s : frames.xyz[t]) ptr.push_back(s.data());
          engine.submit_frame(ptr, frames.boxes[t]);
        }
        const auto counts = engine.finish();
        for (size_t p = 0; p < sum.size(); ++p)
          for (size_t k = 0; k < sum[p].size(); ++k) sum[p][k] += counts[p][k];
      }
      CHECK(sum == expected);
    }
  }
}
