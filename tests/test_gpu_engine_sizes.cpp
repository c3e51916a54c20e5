// GPU suite: frames whose species hold fewer atoms than the engine's capacities, a different
// number in every frame, on CUDA workers (alone and beside CPU workers) equal the reference bit
// for bit: all pairs and cell lists, every box kind, both precisions, copied and handed-over
// frames (each re-registers the buffers whose count changed, so StarPU moves only the frame's
// atoms to the GPU).
#include <doctest/doctest.h>

#include <cmath>

#include "pairhist/host_columns.hpp"
#include "tasks/algorithm_choice.hpp"
#include "tests/engine_reference.hpp"

using namespace pairhist;

TEST_CASE("frames of varying sizes on CUDA workers, alone and hybrid, equal the reference") {
  REQUIRE(cuda_devices() > 0);
  for (BoxKind kind : {BoxKind::none, BoxKind::orthorhombic, BoxKind::triclinic}) {
    CAPTURE(box_kind_name(kind));
    auto frames = test::roomy_frames({8000, 3000, 1, 0, 300}, 8, kind, 6.0, 6.5);
    test::vary_counts(frames);
    double r_max = 1.2;
    for (const auto& b : frames.boxes)
      if (kind == BoxKind::triclinic) r_max = std::min(r_max, max_minimum_image_rmax(b));
    for (Precision precision : {Precision::single, Precision::double_}) {
      CAPTURE(int(precision));
      EngineConfig config = test::engine_config(frames, kind, 240, r_max, precision);
      config.frames_in_flight = 2;
      const auto expected = precision == Precision::single
                                ? test::reference_histograms<float>(frames, config)
                                : test::reference_histograms<double>(frames, config);
      for (Algorithm algorithm : {Algorithm::all_pairs, Algorithm::cell_list})
        for (int ncpu : {0, 4}) {
          CAPTURE(algorithm_name(algorithm));
          CAPTURE(ncpu);
          config.algorithm = algorithm;
          config.ncpu = ncpu;
          config.scheduler = ncpu ? "dmda" : "eager";
          config.max_pairs_per_task = ncpu ? 200000 : 0;
          RunActivity act;
          REQUIRE(test::run_engine(frames, config, &act) == expected);
          if (ncpu == 0)
            CHECK(act.tasks_cpu + act.tasks_cell_cpu == 0);
          else
            CHECK(act.tasks_cuda_shared + act.tasks_cuda_global + act.tasks_cell_cuda > 0);
        }
      config.algorithm = Algorithm::all_pairs;
      config.whole_frames = true;  // the static baseline with the GPU and the CPUs
      config.scheduler = "";
      config.max_pairs_per_task = 0;
      REQUIRE(test::run_engine(frames, config) == expected);
    }
  }
}

TEST_CASE("frames of varying sizes handed over to CUDA workers equal the reference") {
  REQUIRE(cuda_devices() > 0);
  REQUIRE(use_pinned_host_columns());
  for (Algorithm algorithm : {Algorithm::all_pairs, Algorithm::cell_list}) {
    CAPTURE(algorithm_name(algorithm));
    auto frames = test::roomy_frames({8000, 0, 3000, 300}, 10, BoxKind::orthorhombic, 6.0, 6.5);
    test::vary_counts(frames);
    EngineConfig config =
        test::engine_config(frames, BoxKind::orthorhombic, 240, 1.2, Precision::single);
    config.algorithm = algorithm;
    config.frames_in_flight = 2;
    config.ncpu = 0;
    HistogramEngine engine(config);
    std::vector<HostColumn> soa;
    for (size_t t = 0; t < frames.xyz.size(); ++t) {
      const CoordinateBounds b = test::fill_columns(frames, t, soa);
      if (t % 3 == 2) {  // a copied frame now and then: into a slot of handed-over columns
        std::vector<const float*> ptr;
        for (const auto& s : soa) ptr.push_back(s.data());
        engine.submit_frame_columns(ptr, frames.counts[t], frames.boxes[t], &b);
        continue;
      }
      REQUIRE(engine.submit_frame_columns_swap(soa, frames.boxes[t], b));
      for (auto& column : soa) std::fill(column.begin(), column.end(), std::nanf(""));
    }
    CHECK(engine.finish() == test::reference_histograms<float>(frames, config));
  }
}
