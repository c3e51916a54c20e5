// Every codelet of pairhist has one shape: CPU and CUDA implementations of one operation, a
// history-based perfmodel keyed on the task's work (so shipped perfmodels/ calibrate it), and
// either a variable number of buffers (the task says which) or fixed modes (the reduction
// codelets). Codelet makes that shape from a CodeletSpec, as Chameleon's codelet macros and
// NNTile's Codelet class do, so no codelet repeats the StarPU structure's set-up.
#pragma once

#include <starpu.h>

#include <cstddef>
#include <cstdint>
#include <vector>

// A CUDA implementation exists only where StarPU and this build both have CUDA (a StarPU built
// with CUDA defines STARPU_USE_CUDA even when pairhist is built without it).
#if defined(STARPU_USE_CUDA) && defined(PAIRHIST_CUDA_CODELETS)
#define PAIRHIST_WITH_CUDA(f) (f)
#else
#define PAIRHIST_WITH_CUDA(f) nullptr
#endif

namespace pairhist::codelets {

struct CudaImplementation {
  starpu_cuda_func_t func = nullptr;  // null: this build has no CUDA codelets
  char flags = STARPU_CUDA_ASYNC;     // launches on the worker's stream, StarPU waits for it
};

struct CodeletSpec {
  const char* name = nullptr;  // cl.name: StarPU traces, activity reports, task names
  // The history-based perfmodel: its symbol names the calibration files (perfmodels/), so it must
  // not change; without a symbol the codelet has no perfmodel.
  const char* perfmodel_symbol = nullptr;
  uint32_t (*footprint)(starpu_task*) = nullptr;
  size_t (*size_base)(starpu_task*, unsigned) = nullptr;
  starpu_cpu_func_t cpu_func = nullptr;
  const char* cpu_func_name = nullptr;
  std::vector<CudaImplementation> cuda;  // in implementation order (the nimpl of can_execute)
  int (*can_execute)(unsigned workerid, starpu_task* task, unsigned nimpl) = nullptr;
  // Fixed buffer modes; none: STARPU_VARIABLE_NBUFFERS, each task names its buffers' modes.
  std::vector<starpu_data_access_mode> modes;
};

/// A codelet and its perfmodel in one object that the codelet points into, so it never moves:
/// keep it in a function-local static (`static Codelet cl(spec); return cl.get();`).
class Codelet {
 public:
  explicit Codelet(const CodeletSpec& spec);
  Codelet(const Codelet&) = delete;
  Codelet& operator=(const Codelet&) = delete;
  starpu_codelet* get() { return &codelet_; }

 private:
  starpu_perfmodel model_;
  starpu_codelet codelet_;
};

}  // namespace pairhist::codelets
