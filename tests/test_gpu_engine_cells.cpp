// GPU suite: the task library with cell lists on CUDA workers (alone and beside CPU workers)
// equals the all-pairs reference bit for bit; a frame cut into many key ranges is sorted once per
// worker and still counted exactly once.
#include <doctest/doctest.h>

#include "tests/engine_reference.hpp"

using namespace pairhist;

TEST_CASE("cell-list engine on CUDA workers, alone and hybrid, equals the reference") {
  for (BoxKind kind : {BoxKind::none, BoxKind::orthorhombic, BoxKind::triclinic}) {
    CAPTURE(box_kind_name(kind));
    const auto frames = test::roomy_frames({8000, 3000, 1, 0, 300}, 4, kind, 6.0, 6.5);
    double r_max = 1.2;
    for (const auto& b : frames.boxes)
      if (kind == BoxKind::triclinic) r_max = std::min(r_max, max_minimum_image_rmax(b));
    EngineConfig config = test::engine_config(frames, kind, 240, r_max, Precision::single);
    config.algorithm = Algorithm::cell_list;
    const auto expected = test::reference_histograms<float>(frames, config);
    config.frames_in_flight = 2;
    for (int ncpu : {0, 4}) {
      for (const char* sched : {"eager", "dmda"}) {
        CAPTURE(ncpu);
        CAPTURE(sched);
        config.ncpu = ncpu;
        config.scheduler = sched;
        RunActivity act;
        REQUIRE(test::run_engine(frames, config, &act) == expected);
        CHECK(act.tasks_cell_cuda > 0);
        if (ncpu == 0) CHECK(act.tasks_cell_cpu == 0);
      }
    }
    // CPU workers that only sum (a distributed rank's core for StarPU-MPI): no counting task.
    config.ncpu = 4;
    config.cpu_workers_count = false;
    for (Algorithm algorithm : {Algorithm::cell_list, Algorithm::all_pairs}) {
      config.algorithm = algorithm;
      RunActivity act;
      REQUIRE(test::run_engine(frames, config, &act) == expected);
      CHECK(act.tasks_cell_cpu == 0);
      CHECK(act.tasks_cpu == 0);
    }
    config.algorithm = Algorithm::cell_list;
    config.cpu_workers_count = true;
    config.precision = Precision::double_;
    config.ncpu = 0;
    config.scheduler = "eager";
    REQUIRE(test::run_engine(frames, config) == test::reference_histograms<double>(frames, config));
  }
}

TEST_CASE("periodic images (r_max beyond half the box) on CUDA workers equal a CPU-only run") {
  // The images are laid out on the host (EngineConfig::periodic_images), so CUDA workers, alone
  // or beside CPU workers, with cell lists or all pairs, count them bit for bit as the cores do.
  for (BoxKind kind : {BoxKind::orthorhombic, BoxKind::triclinic}) {
    CAPTURE(box_kind_name(kind));
    const auto frames = test::roomy_frames({3000, 1000, 1, 0}, 3, kind, 3.0, 3.3);
    for (double r_max : {2.1, 4.8}) {  // 0.7 and 1.6 box lengths
      CAPTURE(r_max);
      EngineConfig config = test::engine_config(frames, kind, 200, r_max, Precision::single);
      config.periodic_images = true;
      config.ncuda = 0;
      config.ncpu = 2;
      config.algorithm = Algorithm::all_pairs;
      const auto expected = test::run_engine(frames, config);
      config.ncuda = -1;
      for (Algorithm algorithm : {Algorithm::cell_list, Algorithm::all_pairs})
        for (int ncpu : {0, 4}) {
          CAPTURE(ncpu);
          config.algorithm = algorithm;
          config.ncpu = ncpu;
          RunActivity act;
          REQUIRE(test::run_engine(frames, config, &act) == expected);
          CHECK(act.periodic_images);
          CHECK(act.tasks_cell_cuda + act.tasks_cuda_shared + act.tasks_cuda_global > 0);
        }
      config.precision = Precision::double_;
      config.ncpu = 0;
      config.algorithm = Algorithm::cell_list;
      const auto gpu = test::run_engine(frames, config);
      config.ncuda = 0;
      config.ncpu = 2;
      config.algorithm = Algorithm::all_pairs;
      REQUIRE(test::run_engine(frames, config) == gpu);
    }
  }
}
