#include "starpu_session.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

#include "../codelets/starpu/pair_histogram_codelet.hpp"
#include "lp_bound.hpp"
#include "pairhist/errors.hpp"
#include "pairhist/host_cores.hpp"

namespace pairhist {
namespace {

constexpr const char* kDefaultGpuScheduler = "eager";
constexpr int kMaxCpuWorkersBesideGpus = 16;

/// CPU workers by default when GPUs are fed: all free cores, at most kMaxCpuWorkersBesideGpus.
/// Every worker pops from the scheduler's shared queue; on the 4x H200 host 55 CPU workers
/// made the GPU workers wait for it (makespan 1.59-1.87 s against 1.48 s with GPUs alone),
/// 16 did not (1.47 s), while the cores add only a few percent of the pairs there.
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

StarpuSession::StarpuSession(EngineConfig& config) {
  starpu_conf conf;
  starpu_conf_init(&conf);
  // With GPUs, one central queue by default: lws (StarPU's default) let CPU workers and GPU-only
  // tasks stall each other, and dmda without calibrated models placed a whole 4M-atom frame on
  // one GPU; eager needs no model and was as fast as calibrated dmda (docs/performance.md).
  // StarPU reads STARPU_SCHED before the conf, and an empty value silently selects lws: an
  // empty one is dropped, and an explicit choice (run --sched) wins over the environment.
  const char* env_sched = std::getenv("STARPU_SCHED");
  if (env_sched && (!*env_sched || !config.scheduler.empty())) {
    unsetenv("STARPU_SCHED");
    env_sched = nullptr;
  }
  if (config.scheduler.empty() && !env_sched && config.ncuda != 0 && gpus_present())
    config.scheduler = kDefaultGpuScheduler;
  if (!config.scheduler.empty()) conf.sched_policy_name = config.scheduler.c_str();
  if (config.ncpu >= 0) conf.ncpus = config.ncpu;
  if (config.ncuda >= 0) conf.ncuda = config.ncuda;
  // Two workers per GPU, each with its own stream: one task's launch and completion overlap
  // the other's kernel (F1-like on the H100: 1235 instead of 997 bapps). The user's setting wins.
  setenv("STARPU_NWORKER_PER_CUDA", "2", 0);
  // StarPU drops a measurement 50% off its entry's mean and empties the entry once drops
  // outnumber samples: on loaded cores a task kind then never reached 10 measurements, and the
  // LP bound had no time for it (docs/performance.md). Only 5x outliers are dropped here.
  setenv("STARPU_HISTORY_MAX_ERROR", kHistoryMaxError, 0);
  // CPU workers on every core would starve the threads that read frames and feed the GPUs
  // (4x H200, 59 CPU workers, 4 decoding threads sharing one core: GPUs 80% busy).
  const bool feeding_gpus = config.ncuda != 0 && gpus_present();
  const int reserve = config.reserve_cores >= 0           ? config.reserve_cores
                      : (config.ncpu < 0 && feeding_gpus) ? 1 + std::max(0, config.reader_threads)
                                                          : 0;
  conf.reserve_ncpus = reserve;
  if (config.ncpu < 0 && feeding_gpus && !std::getenv("STARPU_NCPU"))
    conf.ncpus = cpu_workers_beside_gpus(config, reserve);
  conf.nopencl = 0;
  const int ret = starpu_init(&conf);
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
