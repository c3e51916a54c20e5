// GPU suite: the task library with cell lists on CUDA workers (alone and beside CPU workers)
// equals the all-pairs reference bit for bit; a frame cut into many key ranges is sorted once per
// worker and still counted exactly once.
#include <doctest/doctest.h>

#include "engine_reference.hpp"

using namespace pairhist;

namespace {

test::RandomFrames roomy_frames(const std::vector<int64_t>& sizes, int frames, BoxKind kind) {
  test::RandomFrames f;
  f.sizes = sizes;
  for (int t = 0; t < frames; ++t) {
    BoxMatrix box{};
    if (kind == BoxKind::orthorhombic) box = test::random_orthorhombic(6.0, 6.5);
    if (kind == BoxKind::triclinic) box = test::random_triclinic(6.0, 6.5);
    f.boxes.push_back(box);
    std::vector<std::vector<float>> species;
    for (int64_t n : sizes) {
      const auto p = test::random_points(n, -1.0, 7.0);
      species.emplace_back(p.begin(), p.end());
    }
    f.xyz.push_back(species);
  }
  return f;
}

}  // namespace

TEST_CASE("cell-list engine on CUDA workers, alone and hybrid, equals the reference") {
  for (BoxKind kind : {BoxKind::none, BoxKind::orthorhombic, BoxKind::triclinic}) {
    CAPTURE(box_kind_name(kind));
    const auto frames = roomy_frames({20000, 6000, 1, 0, 300}, 6, kind);
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
        HistogramEngine engine(config);
        for (size_t t = 0; t < frames.xyz.size(); ++t) {
          std::vector<const float*> ptr;
          for (const auto& s : frames.xyz[t]) ptr.push_back(s.data());
          engine.submit_frame(ptr, frames.boxes[t]);
        }
        REQUIRE(engine.finish() == expected);
        const RunActivity act = engine.activity();
        CHECK(act.tasks_cell_cuda > 0);
        if (ncpu == 0) CHECK(act.tasks_cell_cpu == 0);
      }
    }
    config.precision = Precision::double_;
    config.ncpu = 0;
    config.scheduler = "eager";
    REQUIRE(test::run_engine(frames, config) == test::reference_histograms<double>(frames, config));
  }
}
