// Embedding the pairhist task library in an application that runs StarPU itself: the host
// initialises StarPU with its own configuration and keeps submitting its own tasks, while a
// HistogramEngine shares the same workers in its own scheduling context (its own policy). The
// engine waits only on its own data, so the host's tasks are still running when finish()
// returns, and StarPU's reference-counted init/shutdown leaves the runtime to the host. Exits
// non-zero unless the counts equal the C API's.
#include <starpu.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "pairhist/engine.hpp"
#include "pairhist/pairhist_c.h"

namespace {

// The host application's own work: a slow-ish CPU task that scales a vector.
void scale_cpu(void* buffers[], void*) {
  auto* v = reinterpret_cast<double*>(STARPU_VECTOR_GET_PTR(buffers[0]));
  const size_t n = STARPU_VECTOR_GET_NX(buffers[0]);
  for (int repeat = 0; repeat < 200; ++repeat)
    for (size_t i = 0; i < n; ++i) v[i] = std::sqrt(v[i] * v[i] + 1.0);
}

starpu_codelet make_scale_codelet() {
  starpu_codelet cl{};
  cl.cpu_funcs[0] = scale_cpu;
  cl.nbuffers = 1;
  cl.modes[0] = STARPU_RW;
  cl.name = "host_scale";
  return cl;
}

}  // namespace

int main() {
  starpu_conf conf;
  starpu_conf_init(&conf);
  conf.sched_policy_name = "eager";  // the host's choice; the engine's own conf is ignored
  conf.ncuda = 0;
  if (starpu_init(&conf) != 0) return 77;

  // Host data and tasks, submitted before and kept running alongside the histograms.
  std::vector<double> host_data(1 << 16, 1.0);
  starpu_data_handle_t host_handle;
  starpu_vector_data_register(&host_handle, STARPU_MAIN_RAM,
                              reinterpret_cast<uintptr_t>(host_data.data()), host_data.size(),
                              sizeof(double));
  starpu_codelet scale = make_scale_codelet();
  for (int t = 0; t < 20; ++t) starpu_task_insert(&scale, STARPU_RW, host_handle, 0);

  // Two species in a periodic box, three frames.
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(0.0f, 3.0f);
  const std::vector<int64_t> sizes = {700, 400};
  const pairhist::BoxMatrix box = {3, 0, 0, 0, 3, 0, 0, 0, 3};
  std::vector<std::vector<std::vector<float>>> frames(3);
  for (auto& frame : frames)
    for (int64_t n : sizes) {
      std::vector<float> xyz(static_cast<size_t>(3 * n));
      for (auto& x : xyz) x = u(rng);
      frame.push_back(xyz);
    }

  pairhist::EngineConfig config;
  config.species_sizes = sizes;
  config.r_max = 1.4;
  config.nbins = 70;
  config.box_kind = pairhist::BoxKind::orthorhombic;
  // StarPU already runs with the host's conf; the engine schedules its tasks in its own context
  // (all workers, policy dmda), leaving the host's context and its eager policy alone.
  config.own_context = true;
  config.scheduler = "dmda";
  std::vector<std::vector<uint64_t>> histograms;
  {
    pairhist::HistogramEngine engine(config);
    for (const auto& frame : frames) engine.submit_frame({frame[0].data(), frame[1].data()}, box);
    histograms = engine.finish();
    std::printf("engine finished in its own context, scheduler %s, %d CPU workers\n",
                engine.scheduler().c_str(), engine.cpu_workers());
    if (engine.scheduler() != "dmda") return 1;
  }  // the engine's starpu_shutdown only drops its reference: StarPU keeps running

  // The host's tasks may still be queued; the runtime must still accept work.
  for (int t = 0; t < 5; ++t) starpu_task_insert(&scale, STARPU_RW, host_handle, 0);
  starpu_task_wait_for_all();
  starpu_data_unregister(host_handle);
  starpu_shutdown();

  // Reference: the same frames through the C kernel API.
  std::vector<uint64_t> expected(3 * 70, 0);
  for (const auto& frame : frames) {
    const void* coords[2] = {frame[0].data(), frame[1].data()};
    ph_frame f{};
    f.n_species = 2;
    f.species_sizes = sizes.data();
    f.coordinates = coords;
    f.precision = PH_SINGLE;
    for (int i = 0; i < 9; ++i) f.box[i] = box[i];
    f.r_max = 1.4;
    f.n_bins = 70;
    if (ph_histograms_cpu(&f, 1, expected.data()) != 0) return 1;
  }
  std::vector<uint64_t> got;
  for (const auto& h : histograms) got.insert(got.end(), h.begin(), h.end());
  const bool same = got == expected;
  std::printf("histograms %s the C API's; host tasks done: x[0] = %.3f\n",
              same ? "equal" : "DIFFER from", host_data[0]);
  return same && host_data[0] > 1.0 ? 0 : 1;
}
