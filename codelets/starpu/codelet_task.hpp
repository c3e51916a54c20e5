// What every task of our codelets shares: the precision it counts in (pairhist::Precision;
// with_params hands a codelet the kernel parameters of that precision), and the order of its
// buffers. Each codelet packs its own tasks (pair_histogram_task, frame_histogram_task,
// cell_histogram_task): its cl_arg names buffers by their index in this order, and whoever owns
// the histograms (tasks/task_submitter.hpp) submits the buffers in this order.
#pragma once

#include <starpu.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <type_traits>

#include "pairhist/geometry.hpp"
#include "pairhist/precision.hpp"

namespace pairhist::codelets {

/// The kernel parameters in precision T of a task's arguments (every codelet's arguments carry
/// both, single_params and double_params, and count in the one their `precision` names).
template <class T, class Args>
const HistogramParams<T>& params_in(const Args& args) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  if constexpr (std::is_same_v<T, float>)
    return args.single_params;
  else
    return args.double_params;
}

/// The parameters a task's arguments count with: those of their precision.
template <class Args, class F>
decltype(auto) with_params(const Args& args, F&& f) {
  return dispatch_precision(args.precision, [&](auto precision) -> decltype(auto) {
    return f(params_in<typename decltype(precision)::type>(args));
  });
}

/// One packed task. Buffers: the coordinates in `inputs` (STARPU_R), in order, then one uint64
/// histogram of nbins + 1 entries per entry of `histograms` (the species pair's accumulator,
/// reduced into), in order; so histogram k is buffer histogram_buffer(k).
struct CodeletTask {
  // The largest task of any codelet: a whole-frame task of 16 species and their 136 pairs.
  static constexpr int kMaxInputs = 16;
  static constexpr int kMaxHistograms = kMaxInputs * (kMaxInputs + 1) / 2;

  starpu_codelet* codelet = nullptr;  // its name is the task's name
  void* args = nullptr;               // the cl_arg, malloc'ed: StarPU frees it after the task
  size_t args_size = 0;
  // Arrays, not vectors: a task is packed ~1e5 times a second, without allocating.
  starpu_data_handle_t inputs[kMaxInputs];
  int ninputs = 0;
  int histograms[kMaxHistograms];  // species-pair indices
  int nhistograms = 0;
  bool gpu_only = false;  // for CUDA workers only
  // >= 0: only the CUDA workers of one GPU run it, the (gpu_choice mod GPUs)-th of the context's
  // (a frame's tasks on one GPU: the frame's coordinates go to one device, not all).
  int gpu_choice = -1;
  uint32_t footprint = 0;  // the codelet's perfmodel footprint (the LP bound's recorder)
  uint64_t pairs = 0;      // the perfmodel's size

  int histogram_buffer(int k) const { return ninputs + k; }
  int add_input(starpu_data_handle_t h) {
    STARPU_ASSERT(ninputs < kMaxInputs);
    inputs[ninputs] = h;
    return ninputs++;
  }
  void add_histogram(int pair) {
    STARPU_ASSERT(nhistograms < kMaxHistograms);
    histograms[nhistograms++] = pair;
  }
};

/// A copy of `args` in malloc'ed memory: a task's cl_arg, which StarPU frees after the task.
template <class Args>
Args* new_cl_arg(const Args& args) {
  static_assert(std::is_trivially_copyable_v<Args>, "StarPU frees a cl_arg without destroying it");
  void* p = std::malloc(sizeof(Args));
  if (!p) throw std::bad_alloc();
  return new (p) Args(args);
}

}  // namespace pairhist::codelets
