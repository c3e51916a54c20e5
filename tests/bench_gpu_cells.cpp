// Kernel benchmark of the GPU cell lists on W1-like frames (scripts/device-run.sh cells): two
// species at water's densities (O 33.4/nm^3, H 66.8/nm^3) in a periodic box, r_max 1.2 nm,
// 240 bins. Times the cell sort and each pair's counting kernel with CUDA events on data already
// on the device (the median of repeats), one JSON line per measurement. --all-pairs also times the
// all-pairs kernel on the same pairs and checks that both histograms are equal bit for bit.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "codelets/cuda/cell_histogram_cuda.hpp"
#include "codelets/cuda/pair_histogram_cuda.hpp"
#include "pairhist/cell_grid_setup.hpp"

using namespace pairhist;

namespace {

struct Options {
  int64_t n = 1400000;
  double density = 100.2;  // atoms per nm^3
  double o_fraction = 1.0 / 3;
  double r_max = 1.2;
  int bins = 240;
  int repeats = 10;
  int reach = 2;
  int slices = 0;  // work items per home cell; 0: the launcher's choice
  std::string order = "row-major";
  std::string precision = "single";
  std::string box = "orthorhombic";  // or rhombic-dodecahedron (the same volume)
  std::string pairs = "OO,OH,HH";
  std::string tag = "default";  // which build of the kernels (a label in the JSON lines)
  bool all_pairs = false;
};

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "bench_gpu_cells: %s\n", what.c_str());
  std::exit(1);
}

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) die(std::string(what) + ": " + cudaGetErrorString(err));
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--n")
      o.n = std::stoll(v);
    else if (k == "--density")
      o.density = std::stod(v);
    else if (k == "--o-fraction")
      o.o_fraction = std::stod(v);
    else if (k == "--rmax")
      o.r_max = std::stod(v);
    else if (k == "--slices")
      o.slices = std::stoi(v);
    else if (k == "--bins")
      o.bins = std::stoi(v);
    else if (k == "--repeats")
      o.repeats = std::stoi(v);
    else if (k == "--reach")
      o.reach = std::stoi(v);
    else if (k == "--order")
      o.order = v;
    else if (k == "--precision")
      o.precision = v;
    else if (k == "--box")
      o.box = v;
    else if (k == "--pairs")
      o.pairs = v;
    else if (k == "--tag")
      o.tag = v;
    else if (k == "--all-pairs")
      o.all_pairs = v == "1";
    else
      die("unknown option " + k);
  }
  return o;
}

CellOrder order_of(const std::string& name) {
  if (name == "morton") return CellOrder::morton;
  if (name == "hilbert") return CellOrder::hilbert;
  if (name != "row-major") die("unknown order " + name);
  return CellOrder::row_major;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

/// Milliseconds of fn() on the default stream: the median of `repeats` after one warm-up.
template <class Fn>
double time_ms(int repeats, Fn&& fn) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<double> ms;
  for (int r = -1; r < repeats; ++r) {
    check(cudaEventRecord(start), "cudaEventRecord");
    fn();
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float t = 0;
    check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
    if (r >= 0) ms.push_back(t);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return median(ms);
}

/// n points uniform in the cell, as x[0..n), y, z.
template <class T>
std::vector<T> random_soa(int64_t n, const BoxMatrix& m, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<T> soa(static_cast<size_t>(3 * n));
  for (int64_t i = 0; i < n; ++i) {
    const double sa = u(rng), sb = u(rng), sc = u(rng);
    for (int c = 0; c < 3; ++c)
      soa[static_cast<size_t>(c * n + i)] =
          static_cast<T>(sa * m[size_t(c)] + sb * m[size_t(3 + c)] + sc * m[size_t(6 + c)]);
  }
  return soa;
}

template <class T>
T* upload(const std::vector<T>& host) {
  T* p = nullptr;
  check(cudaMalloc(reinterpret_cast<void**>(&p), std::max<size_t>(host.size(), 1) * sizeof(T)),
        "cudaMalloc");
  check(cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  return p;
}

template <class T>
void run(const Options& o) {
  const double volume = static_cast<double>(o.n) / o.density;
  BoxMatrix box{};
  if (o.box == "rhombic-dodecahedron") {
    box = rhombic_dodecahedron(std::cbrt(volume / 0.70710678));
  } else {
    const double side = std::cbrt(volume);
    box = {side, 0, 0, 0, side, 0, 0, 0, side};
  }
  const BoxKind kind = classify_box(box);
  const auto n_o = static_cast<int64_t>(std::llround(o.n * o.o_fraction)), n_h = o.n - n_o;
  std::mt19937_64 rng(20261124);
  const std::vector<T> xo = random_soa<T>(n_o, box, rng), xh = random_soa<T>(n_h, box, rng);

  CellGridRequest r;
  r.box = box;
  r.kind = kind;
  r.r_max = o.r_max;
  r.single_precision = sizeof(T) == 4;
  r.reach = o.reach;
  r.order = order_of(o.order);
  for (int c = 0; c < 3; ++c) r.lo[c] = 0, r.hi[c] = box[size_t(4 * c)];
  r.max_abs = box[0] + box[3] + box[4] + box[6] + box[7] + box[8];
  r.max_cells = 4 * o.n;
  const CellGrid grid = make_cell_grid(r);
  const HistogramParams<T> p = make_params<T>(box, kind, o.r_max, o.bins);

  T* d_o = upload(xo);
  T* d_h = upload(xh);
  // The first builds on this device, from empty workspaces (allocations, first launches, clocks
  // rising from idle), as a run's first task on each GPU meets them: a 4x H200 run's first task
  // per worker took 0.3-0.8 s against 2-6 ms for later frames (issue 24).
  double first_build_ms = 0;
  {
    cuda::CellWorkspace ws_first_o, ws_first_h;
    cuda::DeviceCells<T> first_o, first_h;
    const auto t0 = std::chrono::steady_clock::now();
    check(cuda::build_cells(d_o, n_o, grid, p, ws_first_o, first_o, 0), "build_cells O");
    check(cuda::build_cells(d_h, n_h, grid, p, ws_first_h, first_h, 0), "build_cells H");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    first_build_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  cuda::CellWorkspace ws_o, ws_h;
  cuda::DeviceCells<T> cells_o, cells_h;
  const double build_ms = time_ms(o.repeats, [&] {
    check(cuda::build_cells(d_o, n_o, grid, p, ws_o, cells_o, 0), "build_cells O");
    check(cuda::build_cells(d_h, n_h, grid, p, ws_h, cells_h, 0), "build_cells H");
  });
  // The same two builds replayed from a CUDA graph: the GPU's time without the host's launches.
  cudaStream_t capture;
  check(cudaStreamCreateWithFlags(&capture, cudaStreamNonBlocking), "cudaStreamCreate");
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  check(cudaStreamBeginCapture(capture, cudaStreamCaptureModeThreadLocal), "BeginCapture");
  check(cuda::build_cells(d_o, n_o, grid, p, ws_o, cells_o, capture), "build_cells O");
  check(cuda::build_cells(d_h, n_h, grid, p, ws_h, cells_h, capture), "build_cells H");
  check(cudaStreamEndCapture(capture, &graph), "EndCapture");
  check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
  const double graph_ms =
      time_ms(o.repeats, [&] { check(cudaGraphLaunch(exec, 0), "cudaGraphLaunch"); });
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(capture);
  const size_t slots = size_t(o.bins) + 1;
  unsigned long long* hist = nullptr;
  check(cudaMalloc(reinterpret_cast<void**>(&hist), slots * sizeof(uint64_t)), "cudaMalloc");

  char head[512];
  std::snprintf(
      head, sizeof head,
      "\"case\":\"W1-like\",\"variant\":\"%s\",\"n\":%lld,\"n_O\":%lld,\"n_H\":%lld,\"box\":\"%s\","
      "\"r_max\":%g,\"bins\":%d,\"precision\":\"%s\",\"reach\":%d,\"order\":\"%s\","
      "\"cells\":[%d,%d,%d],\"stencil\":%d,\"slices\":%d",
      o.tag.c_str(), static_cast<long long>(o.n), static_cast<long long>(n_o),
      static_cast<long long>(n_h), o.box.c_str(), o.r_max, o.bins, o.precision.c_str(), grid.reach,
      cell_order_name(grid.order), grid.n[0], grid.n[1], grid.n[2], cells::stencil_size(grid),
      o.slices);
  std::printf(
      "{%s,\"what\":\"build\",\"points\":%lld,\"build_ms_median\":%.4f,"
      "\"build_graph_ms_median\":%.4f,\"build_first_ms\":%.4f}\n",
      head, static_cast<long long>(o.n), build_ms, graph_ms, first_build_ms);

  double total_ms = 0, total_candidates = 0;
  bool all_equal = true;
  struct Pair {
    const char* name;
    bool same;
    const cuda::DeviceCells<T>* a;
    const cuda::DeviceCells<T>* b;
    T* xa;
    int64_t na;
    T* xb;
    int64_t nb;
  };
  const Pair pairs[] = {{"OO", true, &cells_o, &cells_o, d_o, n_o, d_o, n_o},
                        {"OH", false, &cells_o, &cells_h, d_o, n_o, d_h, n_h},
                        {"HH", true, &cells_h, &cells_h, d_h, n_h, d_h, n_h}};
  for (const Pair& pr : pairs) {
    if (o.pairs.find(pr.name) == std::string::npos) continue;
    const auto launch = [&] {
      check(cuda::launch_cell_histogram(*pr.a, *pr.b, pr.same, grid, 0, grid.keys, p, hist, 0,
                                        o.slices),
            "launch_cell_histogram");
    };
    // The first count on this device (wall, synchronised): see first_build_ms.
    const auto first_t0 = std::chrono::steady_clock::now();
    launch();
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    const double first_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - first_t0)
            .count();
    const double ms = time_ms(o.repeats, launch);
    check(cudaMemset(hist, 0, slots * sizeof(uint64_t)), "cudaMemset");
    launch();
    std::vector<uint64_t> cell(slots), all(slots, 0);
    check(cudaMemcpy(cell.data(), hist, slots * sizeof(uint64_t), cudaMemcpyDeviceToHost),
          "cudaMemcpy");
    const double candidates = static_cast<double>(cell[size_t(o.bins)]);
    uint64_t counted = 0;
    for (int k = 0; k < o.bins; ++k) counted += cell[size_t(k)];
    total_ms += ms;
    total_candidates += candidates;
    std::printf(
        "{%s,\"what\":\"pair\",\"pair\":\"%s\",\"candidates\":%.0f,\"counted\":%llu,"
        "\"kernel_ms_median\":%.4f,\"candidates_per_s\":%.4e,\"first_ms\":%.4f}\n",
        head, pr.name, candidates, static_cast<unsigned long long>(counted), ms,
        candidates / (ms * 1e-3), first_ms);
    if (!o.all_pairs) continue;
    const double pairs_count =
        pr.same ? 0.5 * double(pr.na) * double(pr.na - 1) : double(pr.na) * double(pr.nb);
    const auto all_launch = [&] {
      check(cuda::launch_pair_histogram(cuda::HistogramKernel::shared_memory, pr.xa, pr.na, pr.xb,
                                        pr.nb, pr.same, 0, pr.na, p, hist, 0),
            "launch_pair_histogram");
    };
    const double all_ms = time_ms(std::min(o.repeats, 3), all_launch);
    check(cudaMemset(hist, 0, slots * sizeof(uint64_t)), "cudaMemset");
    all_launch();
    check(cudaMemcpy(all.data(), hist, slots * sizeof(uint64_t), cudaMemcpyDeviceToHost),
          "cudaMemcpy");
    const bool equal = std::equal(all.begin(), all.end() - 1, cell.begin());
    all_equal = all_equal && equal;
    std::printf(
        "{%s,\"what\":\"all-pairs\",\"pair\":\"%s\",\"pairs\":%.0f,\"kernel_ms_median\":%.4f,"
        "\"pairs_per_s\":%.4e,\"cell_list_equal\":%s,\"candidate_rate_over_pair_rate\":%.3f}\n",
        head, pr.name, pairs_count, all_ms, pairs_count / (all_ms * 1e-3), equal ? "true" : "false",
        (candidates / ms) / (pairs_count / all_ms));
  }
  std::printf(
      "{%s,\"what\":\"frame\",\"kernel_ms\":%.4f,\"build_ms\":%.4f,\"candidates\":%.0f,"
      "\"candidates_per_s\":%.4e}\n",
      head, total_ms, build_ms, total_candidates, total_candidates / (total_ms * 1e-3));
  // The frame as the engine runs it: the pairs' kernels on streams of their own at once (two
  // CUDA workers per GPU), each home species with its own work counter (a second copy of O's
  // cells for O-H), so one pair's last home cells overlap the next pair's first.
  if (o.pairs == "OO,OH,HH") {
    cuda::CellWorkspace ws_o2;
    cuda::DeviceCells<T> cells_o2;
    check(cuda::build_cells(d_o, n_o, grid, p, ws_o2, cells_o2, 0), "build_cells O again");
    unsigned long long* hists = nullptr;
    check(cudaMalloc(reinterpret_cast<void**>(&hists), 3 * slots * sizeof(uint64_t)), "cudaMalloc");
    cudaStream_t streams[3];
    cudaEvent_t begun, ended[3];
    check(cudaEventCreateWithFlags(&begun, cudaEventDisableTiming), "cudaEventCreate");
    for (int s = 0; s < 3; ++s) {
      check(cudaStreamCreateWithFlags(&streams[s], cudaStreamNonBlocking), "cudaStreamCreate");
      check(cudaEventCreateWithFlags(&ended[s], cudaEventDisableTiming), "cudaEventCreate");
    }
    const auto frame = [&] {
      check(cudaEventRecord(begun, 0), "cudaEventRecord");
      const cuda::DeviceCells<T>* home[3] = {&cells_o, &cells_o2, &cells_h};
      const cuda::DeviceCells<T>* other[3] = {&cells_o, &cells_h, &cells_h};
      for (int s = 0; s < 3; ++s) {
        check(cudaStreamWaitEvent(streams[s], begun, 0), "cudaStreamWaitEvent");
        check(cuda::launch_cell_histogram(*home[s], *other[s], s != 1, grid, 0, grid.keys, p,
                                          hists + s * slots, streams[s], o.slices),
              "launch_cell_histogram");
        check(cudaEventRecord(ended[s], streams[s]), "cudaEventRecord");
        check(cudaStreamWaitEvent(0, ended[s], 0), "cudaStreamWaitEvent");
      }
    };
    const double streams_ms = time_ms(o.repeats, frame);
    std::printf(
        "{%s,\"what\":\"frame-streams\",\"kernel_ms\":%.4f,\"candidates\":%.0f,"
        "\"candidates_per_s\":%.4e}\n",
        head, streams_ms, total_candidates, total_candidates / (streams_ms * 1e-3));
    // The three pairs in one launch (launch_cell_histograms), as the engine runs a small frame's
    // GPU share; its histograms must equal the streams' bit for bit.
    std::vector<uint64_t> separate(3 * slots), fused(3 * slots);
    check(cudaMemset(hists, 0, 3 * slots * sizeof(uint64_t)), "cudaMemset");
    frame();
    check(cudaMemcpy(separate.data(), hists, separate.size() * sizeof(uint64_t),
                     cudaMemcpyDeviceToHost),
          "cudaMemcpy");
    const cuda::CellPairLaunch<T> all[3] = {
        {&cells_o, &cells_o, true, 0, grid.keys, hists},
        {&cells_o, &cells_h, false, 0, grid.keys, hists + slots},
        {&cells_h, &cells_h, true, 0, grid.keys, hists + 2 * slots}};
    const auto fused_frame = [&] {
      check(cuda::launch_cell_histograms(all, 3, grid, p, 0, o.slices), "launch_cell_histograms");
    };
    const double fused_ms = time_ms(o.repeats, fused_frame);
    // Frames one after the other, as the engine's queued tasks run: the GPU's time per frame
    // without the host's time to launch the first.
    constexpr int kQueued = 20;
    const double queued_ms = time_ms(o.repeats,
                                     [&] {
                                       for (int f = 0; f < kQueued; ++f) fused_frame();
                                     }) /
                             kQueued;
    // The host's time in the call (the GPU idles through it before a frame's first launch).
    std::vector<double> host_us;
    for (int r = 0; r < o.repeats; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      fused_frame();
      host_us.push_back(
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    }
    check(cudaMemset(hists, 0, 3 * slots * sizeof(uint64_t)), "cudaMemset");
    fused_frame();
    check(cudaMemcpy(fused.data(), hists, fused.size() * sizeof(uint64_t), cudaMemcpyDeviceToHost),
          "cudaMemcpy");
    const bool same_counts = fused == separate;
    all_equal = all_equal && same_counts;
    std::printf(
        "{%s,\"what\":\"frame-fused\",\"kernel_ms\":%.4f,\"candidates\":%.0f,"
        "\"candidates_per_s\":%.4e,\"ns_per_atom\":%.4f,\"launch_host_us\":%.1f,"
        "\"queued_ms_per_frame\":%.4f,\"queued_ns_per_atom\":%.4f,\"equal_to_streams\":%s}\n",
        head, fused_ms, total_candidates, total_candidates / (fused_ms * 1e-3),
        fused_ms * 1e6 / double(o.n), median(host_us), queued_ms, queued_ms * 1e6 / double(o.n),
        same_counts ? "true" : "false");
    for (int s = 0; s < 3; ++s) {
      cudaStreamDestroy(streams[s]);
      cudaEventDestroy(ended[s]);
    }
    cudaEventDestroy(begun);
    cudaFree(hists);
  }
  std::fflush(stdout);
  cudaFree(hist);
  cudaFree(d_o);
  cudaFree(d_h);
  if (!all_equal) die("histograms differ (cell lists against all pairs, or fused against streams)");
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  if (o.precision == "double")
    run<double>(o);
  else
    run<float>(o);
  return 0;
}
