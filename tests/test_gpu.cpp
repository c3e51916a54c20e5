// GPU suite (label "gpu", run on the device machine by scripts/gpu-suite.sh): the CUDA kernels
// against the CPU kernel bit for bit on fresh random inputs, and the task library with CUDA
// workers against CPU-only runs.
#include <cuda_runtime_api.h>
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>

#include "codelets/cpu/pair_histogram_cpu.hpp"
#include "codelets/cuda/pair_histogram_cuda.hpp"
#include "pairhist/pairhist_c.h"
#include "tasks/spatial_order.hpp"
#include "tests/cuda_support.hpp"
#include "tests/engine_reference.hpp"

using namespace pairhist;

namespace pairhist::test {
uint64_t bin_root_mismatches();  // bin_roots_check.cu
}

namespace {

using test::DeviceArray;

template <class T>
void check_gpu_equals_cpu(cuda::HistogramKernel kernel, BoxKind kind, int64_t na, int64_t nb,
                          bool same, int nbins, bool spatial_order = false,
                          const BoxMatrix* given_box = nullptr, double lo = -2.0, double hi = 5.0,
                          double cut_below_rmax = 0, double rmin_part = 0) {
  CAPTURE(static_cast<int>(kernel));
  CAPTURE(box_kind_name(kind));
  CAPTURE(na);
  CAPTURE(nb);
  CAPTURE(same);
  CAPTURE(nbins);
  CAPTURE(sizeof(T));
  BoxMatrix box{};
  if (kind == BoxKind::orthorhombic) box = test::random_orthorhombic(2.0, 3.0);
  if (kind == BoxKind::triclinic) box = test::random_triclinic(2.0, 3.0);
  if (given_box) box = *given_box;
  const double r_max = kind == BoxKind::none ? 3.0 : max_minimum_image_rmax(box);
  auto a = test::to_soa<T>(test::random_points(na, lo, hi));
  auto b = test::to_soa<T>(test::random_points(nb, lo, hi));
  if (spatial_order) {  // compact blocks: the windows of wide histograms skip many of them
    sort_spatially(a, na);
    sort_spatially(b, nb);
  }
  // cut_below_rmax > 0: the cut-off that many bins below r_max, inside the last bin;
  // rmin_part > 0: bins from r_min = rmin_part * r_max.
  const double r_min = rmin_part * r_max;
  const double r_cut = cut_below_rmax > 0 ? r_max - cut_below_rmax * (r_max - r_min) / nbins : 0.0;
  CAPTURE(r_cut);
  CAPTURE(r_min);
  const HistogramParams<T> p = make_params<T>(box, kind, r_max, nbins, r_cut, r_min);
  if (r_cut > 0 && r_min == 0) REQUIRE(p.limit < T(nbins));

  // Poison: random starting counts; the kernels must add exactly on top of them.
  std::vector<uint64_t> poison(static_cast<size_t>(nbins));
  for (auto& v : poison) v = test::rng()() >> 4;
  std::vector<uint64_t> expected = poison;
  cpu::pair_histogram(cpu::Coords<T>{a.data(), na}, cpu::Coords<T>{b.data(), nb}, same, 0, na, p,
                      expected.data());

  DeviceArray<T> da(a), db(b);
  DeviceArray<uint64_t> dh(poison);
  CUDA_REQUIRE(cuda::launch_pair_histogram(kernel, da.ptr, na, db.ptr, nb, same, 0, na, p,
                                           reinterpret_cast<unsigned long long*>(dh.ptr), 0));
  CUDA_REQUIRE(cudaDeviceSynchronize());
  REQUIRE(dh.get(static_cast<size_t>(nbins)) == expected);
}

}  // namespace

TEST_CASE("a CUDA device is present") {
  int n = 0;
  CUDA_REQUIRE(cudaGetDeviceCount(&n));
  REQUIRE(n > 0);
  cudaDeviceProp prop;
  CUDA_REQUIRE(cudaGetDeviceProperties(&prop, 0));
  MESSAGE("device 0: " << prop.name << ", " << prop.multiProcessorCount << " SMs, shared-memory "
                       << "kernel up to " << cuda::max_shared_memory_bins(0) << " bins");
}

TEST_CASE("the kernels' branch-free root bins every squared distance like bin_of") {
  CHECK(test::bin_root_mismatches() == 0);
}

TEST_CASE("CUDA kernels equal the CPU kernel bit for bit, every box, precision and size") {
  for (auto kernel : {cuda::HistogramKernel::shared_memory, cuda::HistogramKernel::global_memory}) {
    for (BoxKind kind : {BoxKind::none, BoxKind::orthorhombic, BoxKind::triclinic}) {
      for (int64_t n : {0, 1, 2, 255, 257, 2049, 5000}) {
        check_gpu_equals_cpu<float>(kernel, kind, n, n, true, 1000);
        check_gpu_equals_cpu<double>(kernel, kind, n, n, true, 333);
        check_gpu_equals_cpu<float>(kernel, kind, n, 3001 - n / 2, false, 10000);
        check_gpu_equals_cpu<double>(kernel, kind, n, 7, false, 5);
      }
    }
  }
  // The widest histogram one shared-memory window holds, one bin more (two windows), and a
  // forced narrow window that leaves a short last window.
  const int widest = cuda::max_shared_memory_bins(0);
  for (int nbins : {widest, widest + 1, 100000}) {
    check_gpu_equals_cpu<float>(cuda::HistogramKernel::shared_memory, BoxKind::orthorhombic, 3000,
                                3000, true, nbins);
    check_gpu_equals_cpu<float>(cuda::HistogramKernel::global_memory, BoxKind::none, 2000, 1000,
                                false, nbins);
  }
  setenv("PAIRHIST_TEST_CUDA_WINDOW", "333", 1);
  check_gpu_equals_cpu<float>(cuda::HistogramKernel::shared_memory, BoxKind::triclinic, 2500, 2500,
                              true, 1000);
  check_gpu_equals_cpu<double>(cuda::HistogramKernel::shared_memory, BoxKind::none, 700, 3000,
                               false, 1000);
  unsetenv("PAIRHIST_TEST_CUDA_WINDOW");
}

TEST_CASE("a cut-off inside the last bin: CUDA kernels equal the CPU kernel bit for bit") {
  for (auto kernel : {cuda::HistogramKernel::shared_memory, cuda::HistogramKernel::global_memory}) {
    for (BoxKind kind : {BoxKind::none, BoxKind::orthorhombic, BoxKind::triclinic}) {
      for (int64_t n : {257, 5000}) {
        check_gpu_equals_cpu<float>(kernel, kind, n, n, true, 40, false, nullptr, -2.0, 5.0, 0.37);
        check_gpu_equals_cpu<double>(kernel, kind, n, n, true, 13, false, nullptr, -2.0, 5.0, 0.37);
        check_gpu_equals_cpu<float>(kernel, kind, n, 3001 - n / 2, false, 7, false, nullptr, -2.0,
                                    5.0, 0.81);
        check_gpu_equals_cpu<double>(kernel, kind, n, 700, false, 5, false, nullptr, -2.0, 5.0,
                                     0.5);
      }
    }
  }
  // Windows: the cut-off in the last of several windows.
  setenv("PAIRHIST_TEST_CUDA_WINDOW", "333", 1);
  check_gpu_equals_cpu<float>(cuda::HistogramKernel::shared_memory, BoxKind::triclinic, 2500, 2500,
                              true, 1000, false, nullptr, -2.0, 5.0, 0.37);
  check_gpu_equals_cpu<double>(cuda::HistogramKernel::shared_memory, BoxKind::none, 700, 3000,
                               false, 1000, false, nullptr, -2.0, 5.0, 0.37);
  unsetenv("PAIRHIST_TEST_CUDA_WINDOW");
}

TEST_CASE("bins from r_min: CUDA kernels equal the CPU kernel bit for bit") {
  for (auto kernel : {cuda::HistogramKernel::shared_memory, cuda::HistogramKernel::global_memory}) {
    for (BoxKind kind : {BoxKind::none, BoxKind::orthorhombic, BoxKind::triclinic}) {
      for (int64_t n : {257, 5000}) {
        check_gpu_equals_cpu<float>(kernel, kind, n, n, true, 40, false, nullptr, -2.0, 5.0, 0,
                                    0.3137);
        check_gpu_equals_cpu<double>(kernel, kind, n, n, true, 13, false, nullptr, -2.0, 5.0, 0.37,
                                     0.41);
        check_gpu_equals_cpu<float>(kernel, kind, n, 3001 - n / 2, false, 7, false, nullptr, -2.0,
                                    5.0, 0.81, 0.5);
      }
    }
  }
  // Windows, and the pruning of blocks by their distance range (no box, spatially ordered).
  setenv("PAIRHIST_TEST_CUDA_WINDOW", "250", 1);
  check_gpu_equals_cpu<float>(cuda::HistogramKernel::shared_memory, BoxKind::triclinic, 2500, 2500,
                              true, 1000, false, nullptr, -2.0, 5.0, 0, 0.2);
  check_gpu_equals_cpu<float>(cuda::HistogramKernel::shared_memory, BoxKind::none, 3000, 3000, true,
                              3000, true, nullptr, 0.0, 7.0, 0, 0.3137);
  unsetenv("PAIRHIST_TEST_CUDA_WINDOW");
}

TEST_CASE("windows skipping blocks of spatially ordered points stay exact") {
  // 250-bin windows over 3000 bins up to r_max 3 in a 7-wide cube: most blocks of ordered points
  // lie wholly inside, or wholly outside, a window's distance range, and beyond r_max.
  setenv("PAIRHIST_TEST_CUDA_WINDOW", "250", 1);
  for (int64_t n : {1, 4097, 20000}) {
    check_gpu_equals_cpu<float>(cuda::HistogramKernel::shared_memory, BoxKind::none, n, n, true,
                                3000, true);
    check_gpu_equals_cpu<float>(cuda::HistogramKernel::shared_memory, BoxKind::none, n, 9000, false,
                                3000, true);
    check_gpu_equals_cpu<double>(cuda::HistogramKernel::shared_memory, BoxKind::none, n, n, true,
                                 2000, true);
  }
  unsetenv("PAIRHIST_TEST_CUDA_WINDOW");
}

TEST_CASE("cells of one, two and three candidates per octant (fixed and run-time searches)") {
  // One and two candidates take the loop-free searches; three take the run-time loop, which
  // random cells rarely reach (~1% of random_triclinic's), hence a fixed strongly skewed cell.
  const BoxMatrix skewed{1, 0, 0, -0.467, 0.409, 0, -0.427, 0.022, 0.351};
  const std::pair<BoxMatrix, int> cells[] = {
      {rhombic_dodecahedron(), 1}, {truncated_octahedron(), 2}, {skewed, 3}};
  for (const auto& [box, candidates] : cells) {
    CAPTURE(candidates);
    REQUIRE(make_params<float>(box, BoxKind::triclinic, max_minimum_image_rmax(box), 100)
                .box.octant_images == candidates);
    for (auto kernel : {cuda::HistogramKernel::shared_memory, cuda::HistogramKernel::global_memory})
      for (int64_t n : {1, 1000, 3001}) {
        check_gpu_equals_cpu<float>(kernel, BoxKind::triclinic, n, n, true, 700, false, &box);
        check_gpu_equals_cpu<float>(kernel, BoxKind::triclinic, n, 2000, false, 90000, false, &box);
        check_gpu_equals_cpu<double>(kernel, BoxKind::triclinic, n, n, true, 700, false, &box);
      }
  }
}

TEST_CASE("unwrapped coordinates a thousand box lengths out: CPU and CUDA still agree") {
  const BoxMatrix ortho = test::random_orthorhombic(2.0, 3.0);
  const BoxMatrix cells[] = {ortho, test::rhombic_dodecahedron(), test::random_triclinic(2.0, 3.0)};
  for (const BoxMatrix& box : cells) {
    const BoxKind kind = classify_box(box);
    for (auto kernel :
         {cuda::HistogramKernel::shared_memory, cuda::HistogramKernel::global_memory}) {
      check_gpu_equals_cpu<float>(kernel, kind, 2000, 2000, true, 500, false, &box, -3000, 3000);
      check_gpu_equals_cpu<double>(kernel, kind, 2000, 1500, false, 500, false, &box, -3000, 3000);
    }
  }
}

TEST_CASE("single-precision histograms of 2^23 bins and more stay exact (global-memory kernel)") {
  // The shared-memory kernels' biased float bins need nbins < 2^23; the launcher switches wider
  // histograms to the global-memory kernel.
  for (int nbins : {(1 << 23) - 1, (1 << 23) + 5})
    check_gpu_equals_cpu<float>(cuda::HistogramKernel::shared_memory, BoxKind::none, 3000, 0, true,
                                nbins);
}

TEST_CASE("small cross pairs (rows and columns swapped inside the launcher) stay exact") {
  for (BoxKind kind : {BoxKind::none, BoxKind::orthorhombic, BoxKind::triclinic}) {
    for (int64_t na : {1, 100, 1023}) {
      check_gpu_equals_cpu<float>(cuda::HistogramKernel::shared_memory, kind, na, 150000, false,
                                  8000);
      check_gpu_equals_cpu<double>(cuda::HistogramKernel::shared_memory, kind, na, 5000, false,
                                   500);
    }
  }
}

TEST_CASE("engine with CUDA workers equals CPU-only runs, under several schedulers") {
  for (BoxKind kind : {BoxKind::none, BoxKind::orthorhombic, BoxKind::triclinic}) {
    CAPTURE(box_kind_name(kind));
    const auto frames = test::make_frames({4000, 2500, 1, 0, 300}, 4, kind);
    for (int nbins : {500, 100000}) {  // the second needs the global-memory kernel
      CAPTURE(nbins);
      EngineConfig config = test::engine_config(frames, kind, nbins, 1.0, Precision::single);
      config.ncuda = 0;
      config.ncpu = 4;
      config.scheduler = "lws";
      const auto cpu_only = test::run_engine(frames, config);
      REQUIRE(cpu_only == test::reference_histograms<float>(frames, config));
      for (const char* sched : {"dmda", "eager", "lws"}) {
        CAPTURE(sched);
        config.scheduler = sched;
        config.ncuda = -1;
        config.ncpu = 0;  // GPU only
        REQUIRE(test::run_engine(frames, config) == cpu_only);
        config.ncpu = 4;  // GPU and CPU together
        config.max_pairs_per_task = 200000;
        REQUIRE(test::run_engine(frames, config) == cpu_only);
        config.max_pairs_per_task = uint64_t(1) << 28;
      }
      config.whole_frames = true;  // the whole-frame baseline with the GPU and the CPUs
      config.scheduler = "";
      config.ncpu = 4;
      config.ncuda = -1;
      REQUIRE(test::run_engine(frames, config) == cpu_only);
      config.whole_frames = false;
      config.precision = Precision::double_;
      config.scheduler = "dmda";
      REQUIRE(test::run_engine(frames, config) ==
              test::reference_histograms<double>(frames, config));
    }
  }
}

TEST_CASE("hybrid engine whose CPU share moves between frames equals a CPU-only run") {
  // Two frames in flight, so later frames are planned after earlier ones finished: the share
  // comes from measured rates and changes from frame to frame (tasks/throughput_share).
  const auto frames = test::make_frames({12000, 4000, 300, 1}, 12, BoxKind::orthorhombic);
  EngineConfig config =
      test::engine_config(frames, BoxKind::orthorhombic, 700, 1.0, Precision::single);
  config.frames_in_flight = 2;
  config.max_pairs_per_task = uint64_t(1) << 22;
  config.ncpu = 4;
  config.ncuda = 0;
  const auto cpu_only = test::run_engine(frames, config);
  config.ncuda = -1;
  for (const char* sched : {"eager", "dmda"}) {
    CAPTURE(sched);
    config.scheduler = sched;
    RunActivity act;
    REQUIRE(test::run_engine(frames, config, &act) == cpu_only);
    CHECK(act.cpu_share_measured);
    CHECK(act.cpu_share > 0);
    CHECK(act.measured_cpu_rate > 0);
    CHECK(act.measured_gpu_rate > 0);
  }
}

TEST_CASE("C API: ph_histograms_gpu equals ph_histograms_cpu") {
  REQUIRE(ph_gpu_count() > 0);
  for (BoxKind kind : {BoxKind::none, BoxKind::orthorhombic, BoxKind::triclinic}) {
    const auto f = test::make_frames({3000, 1, 0, 1200, 77}, 1, kind);
    for (int nbins : {1000, 70000}) {
      CAPTURE(box_kind_name(kind));
      CAPTURE(nbins);
      std::vector<const void*> coords;
      for (const auto& s : f.xyz[0]) coords.push_back(s.data());
      ph_frame frame{};
      frame.n_species = static_cast<int>(f.sizes.size());
      frame.species_sizes = f.sizes.data();
      frame.coordinates = coords.data();
      frame.precision = PH_SINGLE;
      for (int i = 0; i < 9; ++i) frame.box[i] = f.boxes[0][i];
      frame.r_max = 1.0;
      frame.n_bins = nbins;
      const size_t n = static_cast<size_t>(ph_pair_count(frame.n_species)) * nbins;
      std::vector<uint64_t> cpu(n, 0), gpu(n, 0);
      REQUIRE(ph_histograms_cpu(&frame, 0, cpu.data()) == 0);
      INFO(ph_last_error());
      REQUIRE(ph_histograms_gpu(&frame, 0, gpu.data()) == 0);
      REQUIRE(gpu == cpu);
    }
  }
}

TEST_CASE("counts beyond 2^32 in one bin stay exact on the GPU") {
  // 70,000 x 70,000 coincident points: 4.9e9 pairs in bin 0, more than a 32-bit counter holds.
  const int64_t n = 70000;
  std::vector<float> a(3 * n, 0.25f), b(3 * n, 0.25f);
  const void* coords[2] = {a.data(), b.data()};
  const int64_t sizes[2] = {n, n};
  ph_frame frame{};
  frame.n_species = 2;
  frame.species_sizes = sizes;
  frame.coordinates = coords;
  frame.r_max = 1.0;
  frame.n_bins = 10;
  std::vector<uint64_t> h(30, 0);
  REQUIRE(ph_histograms_gpu(&frame, 0, h.data()) == 0);
  CHECK(h[0] == uint64_t(n) * (n - 1) / 2);   // (0,0)
  CHECK(h[10] == uint64_t(n) * uint64_t(n));  // (0,1)
  CHECK(h[20] == uint64_t(n) * (n - 1) / 2);  // (1,1)
}
