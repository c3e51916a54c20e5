// The engine's StarPU runtime: starpu_init with the engine's worker and scheduler choices (a host
// application that initialised StarPU first keeps its own: StarPU counts the calls), an optional
// scheduling context of our own, and what the workers are. starpu_shutdown in the destructor.
#pragma once

#include <starpu.h>

#include <string>
#include <vector>

#include "pairhist/engine.hpp"
#include "tasks/decomposition.hpp"
#include "tasks/gpu_memory_fit.hpp"

namespace pairhist {

class StarpuSession {
 public:
  /// Starts StarPU for `config`; fills in the scheduler it chose when config had none. GPUs that
  /// cannot hold their tasks' data (gpu_memory_fit.hpp) are left out, StarPU restarted without
  /// them; with none left and config.ncpu 0, throws UsageError.
  /// `frame_bytes`: a frame's coordinates in the engine's precision (a GPU holds one per task).
  StarpuSession(EngineConfig& config, uint64_t frame_bytes);
  ~StarpuSession();
  StarpuSession(const StarpuSession&) = delete;
  StarpuSession& operator=(const StarpuSession&) = delete;

  /// Our own scheduling context (EngineConfig::own_context) over config.context_workers.
  void create_context(const EngineConfig& config);
  void delete_context();
  /// StarPU's global context (0), or ours.
  unsigned context() const { return context_; }

  int count_workers(starpu_worker_archtype kind) const;
  MachineShape machine() const;
  std::string scheduler() const;

  static bool gpus_present();
  /// What the session changed from the configuration and why (GPUs left out for their memory),
  /// one line each.
  const std::vector<std::string>& notes() const { return notes_; }

 private:
  void start(EngineConfig& config, const GpuFit* fit);
  std::vector<GpuMemory> gpu_memory() const;
  static int cuda_pipeline();

  unsigned context_ = 0;
  std::vector<std::string> notes_;
};

}  // namespace pairhist
