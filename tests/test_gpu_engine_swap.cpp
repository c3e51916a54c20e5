// GPU suite: frames handed to CUDA workers as columns without a copy (submit_frame_columns_swap)
// equal the reference bit for bit, also when every buffer given back is poisoned at once, and the
// columns are pinned host memory (use_pinned_host_columns: cudaHostRegister at allocation).
#include <cuda_runtime_api.h>
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>

#include "pairhist/host_columns.hpp"
#include "tests/engine_reference.hpp"

using namespace pairhist;

namespace {

bool registered(const void* p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeHost;
}

}  // namespace

TEST_CASE("frames handed over to CUDA workers equal the reference; their columns are pinned") {
  REQUIRE(cuda_devices() > 0);
  REQUIRE(use_pinned_host_columns());
  struct Variant {
    Algorithm algorithm;
    BoxKind kind;
    int nbins;
    bool windows;  // counted in bin windows: the engine sorts the points it takes over
  };
  for (const Variant v : {Variant{Algorithm::cell_list, BoxKind::orthorhombic, 240, false},
                          Variant{Algorithm::cell_list, BoxKind::none, 240, false},
                          Variant{Algorithm::all_pairs, BoxKind::triclinic, 500, false},
                          Variant{Algorithm::all_pairs, BoxKind::none, 3000, true}}) {
    CAPTURE(int(v.algorithm));
    CAPTURE(box_kind_name(v.kind));
    if (v.windows) setenv("PAIRHIST_TEST_CUDA_WINDOW", "250", 1);
    const auto frames = test::roomy_frames({8000, 3000, 0, 300}, 10, v.kind, 6.0, 6.5);
    double r_max = 1.2;
    for (const auto& b : frames.boxes)
      if (v.kind == BoxKind::triclinic) r_max = std::min(r_max, max_minimum_image_rmax(b));
    EngineConfig config = test::engine_config(frames, v.kind, v.nbins, r_max, Precision::single);
    config.algorithm = v.algorithm;
    config.frames_in_flight = 2;
    config.ncpu = 0;
    const auto expected = test::reference_histograms<float>(frames, config);
    HistogramEngine engine(config);
    std::vector<HostColumn> soa(frames.sizes.size());
    for (size_t t = 0; t < frames.xyz.size(); ++t) {
      const CoordinateBounds b = test::fill_columns(frames, t, soa);
      for (const HostColumn& column : soa)
        if (!column.empty()) CHECK(registered(column.data()));
      REQUIRE(engine.submit_frame_columns_swap(soa, frames.boxes[t], b));
      for (auto& column : soa) std::fill(column.begin(), column.end(), std::nanf(""));
    }
    CHECK(engine.finish() == expected);
    const RunActivity a = engine.activity();
    CHECK(a.frames_handed_over == frames.xyz.size());
    CHECK(a.tasks_cpu + a.tasks_cell_cpu == 0);
    unsetenv("PAIRHIST_TEST_CUDA_WINDOW");
  }
}
