#include "tasks/starpu_session.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "codelets/starpu/cuda_devices.hpp"
#include "codelets/starpu/perfmodel_files.hpp"
#include "pairhist/environment.hpp"
#include "pairhist/errors.hpp"
#include "pairhist/host_cores.hpp"
#include "tasks/feeding_plan.hpp"
#include "tasks/lp_bound.hpp"
#include "tasks/starpu_environment.hpp"
#include "tasks/starpu_machine.hpp"

namespace pairhist {
namespace {

constexpr const char* kDefaultGpuScheduler = "eager";

/// CPU workers by default when GPUs are fed and no feeding plan chose them: all free cores, at
/// most kMaxCpuWorkersBesideGpus (tasks/feeding_plan.hpp). Every worker pops from the scheduler's
/// shared queue; on the 4x H200 host 55 CPU workers made the GPU workers wait for it (makespan
/// 1.59-1.87 s against 1.48 s with GPUs alone), 16 did not (1.47 s), while the cores add only a
/// few percent of the pairs there.
int cpu_workers_beside_gpus(const EngineConfig& config, int reserve) {
#if defined(PAIRHIST_CUDA_CODELETS)
  const int devices = codelets::cuda_device_count();
  const int gpus = config.ncuda > 0 ? std::min(config.ncuda, devices) : devices;
  const int free_cores = usable_cores() - reserve - gpus;  // a driver each
  return free_cores > kMaxCpuWorkersBesideGpus ? kMaxCpuWorkersBesideGpus : -1;
#else
  (void)config;
  (void)reserve;
  return -1;
#endif
}

}  // namespace

bool StarpuSession::gpus_present() {
#if defined(PAIRHIST_CUDA_CODELETS)
  return codelets::cuda_device_count() > 0;
#else
  return false;
#endif
}

StarpuSession::StarpuSession(EngineConfig& config, uint64_t frame_bytes) {
  const std::string requested_scheduler = config.scheduler;
  // A host application that started StarPU keeps its configuration: nothing to restart.
  const bool host_started = starpu_is_initialized() != 0;
  start(config, nullptr);
  if (host_started || config.ncuda == 0) return;
  const GpuFit fit = fit_gpus(gpu_memory(), frame_bytes, cuda_pipeline());
  if (!fit.changed) return;
  starpu_shutdown();
  if (fit.devices.empty() && config.ncpu == 0)
    throw UsageError(fit.shortfall + ", and no CPU worker may count instead (--ncpu 0)");
  notes_.push_back(fit.note);
  config.scheduler = requested_scheduler;
  start(config, &fit);
}

int StarpuSession::cuda_pipeline() {
  const char* v = env_get("STARPU_CUDA_PIPELINE");
  return v && *v ? std::atoi(v) : 2;  // StarPU's default
}

std::vector<GpuMemory> StarpuSession::gpu_memory() const {
  std::vector<GpuMemory> gpus;
#if defined(PAIRHIST_CUDA_CODELETS)
  const bool limited = env_get("STARPU_LIMIT_CUDA_MEM") != nullptr;
  for (unsigned w = 0; w < starpu_worker_get_count(); ++w) {
    if (starpu_worker_get_type(static_cast<int>(w)) != STARPU_CUDA_WORKER) continue;
    const int device = starpu_worker_get_devid(static_cast<int>(w));
    auto known = std::find_if(gpus.begin(), gpus.end(),
                              [device](const GpuMemory& g) { return g.device == device; });
    if (known != gpus.end()) {
      ++known->workers;
      continue;
    }
    GpuMemory g;
    g.device = device;
    g.starpu_bytes = starpu_memory_get_total(starpu_worker_get_memory_node(w));
    g.free_bytes = codelets::cuda_free_memory(device);
    const std::string own = "STARPU_LIMIT_CUDA_" + std::to_string(device) + "_MEM";
    g.limit_from_env = limited || env_get(own.c_str()) != nullptr;
    gpus.push_back(g);
  }
#endif
  return gpus;
}

void set_starpu_environment_defaults() {
  // Two workers per GPU, each with its own stream: one task's launch and completion overlap
  // the other's kernel (F1-like on the H100: 1235 instead of 997 bapps). The user's setting wins.
  env_set("STARPU_NWORKER_PER_CUDA", "2", false);
  // StarPU drops a measurement 50% off its entry's mean and empties the entry once drops
  // outnumber samples: on loaded cores a task kind then never reached 10 measurements, and the
  // LP bound had no time for it (docs/performance.md). Only 5x outliers are dropped here.
  env_set("STARPU_HISTORY_MAX_ERROR", kHistoryMaxError, false);
  // The names an engine's start sets for StarPU alone exist from here on, with what StarPU makes
  // of their absence (an empty STARPU_HWLOC_INPUT is none; 2 is its CUDA pipeline): adding a
  // name later moves glibc's array of variables under the threads that read it without
  // pairhist's lock (CUDA's, MPI's, StarPU's), while replacing a value does not.
  env_set("STARPU_HWLOC_INPUT", "", false);
  env_set("STARPU_CUDA_PIPELINE", "2", false);
  // StarPU's model directory as StarPU would find it, so that falling back to another one where
  // it cannot be written (ensure_perfmodel_dir) only replaces the value.
  reserve_perfmodel_dir_variable();
}

void StarpuSession::start(EngineConfig& config, const GpuFit* fit) {
  // StarPU aborts the process on a numeric variable it cannot read (starpu_conf_init reads most
  // of them) and on a model directory it cannot make: one line naming the variable instead.
  if (const std::vector<std::string> problems = starpu_variable_problems(); !problems.empty()) {
    std::string text;
    for (const std::string& line : problems) text += (text.empty() ? "" : "\n") + line;
    throw UsageError(text);
  }
  set_starpu_environment_defaults();  // done at the process's start already by pairhist
  if (const std::string warning = ensure_perfmodel_dir(); !warning.empty())
    std::fprintf(stderr, "pairhist: warning: %s\n", warning.c_str());
  starpu_conf conf;
  starpu_conf_init(&conf);
  // With GPUs, one central queue by default: lws (StarPU's default) let CPU workers and GPU-only
  // tasks stall each other, and dmda without calibrated models placed a whole 4M-atom frame on
  // one GPU; eager needs no model and was as fast as calibrated dmda (docs/performance.md).
  // StarPU reads STARPU_SCHED before the conf, and an empty value silently selects lws: an
  // empty one is dropped, and an explicit choice (run --sched) wins over the environment.
  const char* env_sched = env_get("STARPU_SCHED");
  if (env_sched && (!*env_sched || !config.scheduler.empty())) {
    env_unset("STARPU_SCHED");
    env_sched = nullptr;
  }
  const bool feeding_gpus = config.ncuda != 0 && gpus_present() && !(fit && fit->devices.empty());
  if (config.scheduler.empty() && !env_sched && feeding_gpus)
    config.scheduler = kDefaultGpuScheduler;
  if (!config.scheduler.empty()) conf.sched_policy_name = config.scheduler.c_str();
  const int ncpu = config.ncpu >= 0                                 ? config.ncpu
                   : (feeding_gpus && config.ncpu_beside_gpus >= 0) ? config.ncpu_beside_gpus
                                                                    : -1;
  if (ncpu >= 0) conf.ncpus = ncpu;
  if (config.ncuda >= 0) conf.ncuda = config.ncuda;
  if (fit) {
    conf.ncuda = static_cast<int>(fit->devices.size());
    conf.use_explicit_workers_cuda_gpuid = 1;
    for (size_t d = 0; d < fit->devices.size() && d < STARPU_NMAXWORKERS; ++d)
      conf.workers_cuda_gpuid[d] = static_cast<unsigned>(fit->devices[d]);
  }
  std::optional<ScopedEnv> one_worker, no_pipeline;
  if (fit && fit->one_task_per_gpu) {
    one_worker.emplace("STARPU_NWORKER_PER_CUDA", "1");
    no_pipeline.emplace("STARPU_CUDA_PIPELINE", "0");
  }
  // CPU workers on every core would starve the threads that read frames and feed the GPUs
  // (4x H200, 59 CPU workers, 4 decoding threads sharing one core: GPUs 80% busy).
  const int reserve = config.reserve_cores >= 0    ? config.reserve_cores
                      : (ncpu < 0 && feeding_gpus) ? 1 + std::max(0, config.reader_threads)
                                                   : 0;
  conf.reserve_ncpus = reserve;
  if (ncpu < 0 && feeding_gpus && !env_get("STARPU_NCPU"))
    conf.ncpus = cpu_workers_beside_gpus(config, reserve);
  conf.nopencl = 0;
  std::optional<ScopedEnv> machine;
  if (const std::string file = starpu_machine_file(); !file.empty())
    machine.emplace("STARPU_HWLOC_INPUT", file.c_str());
  for (const std::string& line : codelets::set_aside_damaged_perfmodels())
    std::fprintf(stderr, "pairhist: warning: %s\n", line.c_str());
  // On a machine whose buses StarPU has not measured yet, starpu_init measures them (3-9 s on
  // the 4x H200 host). Measuring them in a session of their own before the run's (886d59f)
  // left the run's GPU tasks as slow as measuring them in its own (4.4 and 3.9 ms per task,
  // 2.3-3.1 ms in the next runs; docs/performance.md): the run says what it measures, for how
  // long and where it keeps it.
  const codelets::BusModel bus =
      feeding_gpus ? codelets::stored_bus_model() : codelets::BusModel{std::string(), true};
  if (!bus.stored)
    std::fprintf(stderr,
                 "pairhist: note: first run with GPUs here: StarPU measures this machine's buses "
                 "(once; kept in %s)\n",
                 bus.dir.c_str());
  const auto init_from = std::chrono::steady_clock::now();
  const int ret = starpu_init(&conf);
  if (!bus.stored && ret == 0)
    std::fprintf(
        stderr, "pairhist: note: StarPU's start with the bus measurement took %.1f s\n",
        std::chrono::duration<double>(std::chrono::steady_clock::now() - init_from).count());
  if (ret == -ENODEV) throw std::runtime_error("StarPU found no worker to run on");
  if (ret != 0) throw std::runtime_error("starpu_init failed: " + std::string(std::strerror(-ret)));
}

StarpuSession::~StarpuSession() {
  delete_context();
  starpu_shutdown();
}

void StarpuSession::create_context(const EngineConfig& config) {
  std::vector<int> workers = config.context_workers;
  if (workers.empty())
    for (unsigned w = 0; w < starpu_worker_get_count(); ++w) workers.push_back(static_cast<int>(w));
  for (int w : workers)
    if (w < 0 || w >= static_cast<int>(starpu_worker_get_count()))
      throw UsageError("no StarPU worker " + std::to_string(w) + " for the engine's context");
  const std::string policy = config.scheduler.empty() ? "eager" : config.scheduler;
  context_ = starpu_sched_ctx_create(workers.data(), static_cast<int>(workers.size()), "pairhist",
                                     STARPU_SCHED_CTX_POLICY_NAME, policy.c_str(), 0);
}

void StarpuSession::delete_context() {
  if (context_ == 0) return;
  starpu_sched_ctx_delete(context_);
  context_ = 0;
}

int StarpuSession::count_workers(starpu_worker_archtype kind) const {
  if (context_ == 0) return static_cast<int>(starpu_worker_get_count_by_type(kind));
  int n = 0;
  for (unsigned w = 0; w < starpu_worker_get_count(); ++w)
    if (starpu_sched_ctx_contains_worker(static_cast<int>(w), context_) &&
        starpu_worker_get_type(static_cast<int>(w)) == kind)
      ++n;
  return n;
}

MachineShape StarpuSession::machine() const {
  std::vector<int> devices;
  for (unsigned w = 0; w < starpu_worker_get_count(); ++w)
    if (starpu_worker_get_type(static_cast<int>(w)) == STARPU_CUDA_WORKER)
      devices.push_back(starpu_worker_get_devid(static_cast<int>(w)));
  std::sort(devices.begin(), devices.end());
  const int gpus = static_cast<int>(std::unique(devices.begin(), devices.end()) - devices.begin());
  return MachineShape{count_workers(STARPU_CPU_WORKER), count_workers(STARPU_CUDA_WORKER), gpus};
}

std::string StarpuSession::scheduler() const {
  starpu_sched_policy* policy = starpu_sched_ctx_get_sched_policy(context_);
  return policy && policy->policy_name ? policy->policy_name : "";
}

}  // namespace pairhist
