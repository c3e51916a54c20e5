#include "tasks/task_submitter.hpp"

#include <algorithm>
#include <stdexcept>

#include "codelets/starpu/histogram_reduction_codelets.hpp"

namespace pairhist {

TaskSubmitter::TaskSubmitter(size_t pairs, int nbins, bool sum_tasks, unsigned context,
                             void (*callback)(void*), void* callback_arg)
    : nbins_(nbins),
      sum_tasks_(sum_tasks),
      context_(context),
      callback_(callback),
      callback_arg_(callback_arg) {
  for (size_t p = 0; p < pairs; ++p) {
    starpu_data_handle_t h;
    starpu_vector_data_register(&h, -1, 0, static_cast<uint32_t>(nbins_ + 1), sizeof(uint64_t));
    starpu_data_set_reduction_methods(h, codelets::histogram_redux_codelet(),
                                      codelets::histogram_init_codelet());
    accumulators_.push_back(h);
  }
}

void TaskSubmitter::submit(const codelets::CodeletTask& task) {
  starpu_codelet* cl = task.codelet;
  std::vector<starpu_data_descr> descrs;
  descrs.reserve(static_cast<size_t>(task.ninputs + task.nhistograms));
  for (int k = 0; k < task.ninputs; ++k) descrs.push_back({task.inputs[k], STARPU_R});
  std::vector<Partial> partials;
  for (int k = 0; k < task.nhistograms; ++k) {
    const auto pair = static_cast<size_t>(task.histograms[k]);
    if (!sum_tasks_) {
      descrs.push_back({accumulators_[pair], STARPU_REDUX});
      continue;
    }
    starpu_data_handle_t partial;
    starpu_vector_data_register(&partial, -1, 0, static_cast<uint32_t>(nbins_ + 1),
                                sizeof(uint64_t));
    if (starpu_task_insert(codelets::histogram_init_codelet(), STARPU_W, partial, STARPU_SCHED_CTX,
                           context_, 0) != 0)
      throw std::runtime_error("starpu_task_insert failed (histogram init)");
    partials.push_back({partial, pair});
    descrs.push_back({partial, STARPU_RW});
  }
  const std::vector<uint32_t>* workers = nullptr;
  if (task.gpu_choice >= 0 && !gpu_workers().empty())
    workers = &gpu_workers_[static_cast<size_t>(task.gpu_choice) % gpu_workers_.size()];
  const unsigned long long where = task.gpu_only || gpus_only_ || workers
                                       ? static_cast<unsigned long long>(STARPU_CUDA)
                                       : cl->where;
  if (bound_recording_) bound_kinds_.note(cl, task.footprint, task.pairs, where);
  const int ret = starpu_task_insert(
      cl, STARPU_DATA_MODE_ARRAY, descrs.data(), static_cast<int>(descrs.size()), STARPU_CL_ARGS,
      task.args, task.args_size, STARPU_EXECUTE_WHERE, where, STARPU_SCHED_CTX, context_,
      STARPU_TASK_WORKERIDS, workers ? static_cast<unsigned>(workers->size()) : 0u,
      workers ? const_cast<uint32_t*>(workers->data()) : nullptr, STARPU_CALLBACK_WITH_ARG_NFREE,
      callback_, callback_arg_, STARPU_NAME, cl->name, 0);
  if (ret != 0) throw std::runtime_error("starpu_task_insert failed (no worker can run the task)");
  for (const Partial& part : partials) {
    if (starpu_task_insert(codelets::histogram_redux_codelet(), STARPU_RW, accumulators_[part.pair],
                           STARPU_R, part.handle, STARPU_SCHED_CTX, context_, 0) != 0)
      throw std::runtime_error("starpu_task_insert failed (histogram sum)");
    starpu_data_unregister_submit(part.handle);
  }
  ++tasks_;
}

std::vector<std::vector<uint64_t>> TaskSubmitter::take(bool reset) {
  std::vector<std::vector<uint64_t>> result;
  for (auto h : accumulators_) {
    starpu_data_acquire(h, reset ? STARPU_RW : STARPU_R);
    auto* data = reinterpret_cast<uint64_t*>(starpu_vector_get_local_ptr(h));
    result.emplace_back(data, data + nbins_ + 1);
    if (reset) std::fill(data, data + nbins_ + 1, uint64_t(0));
    starpu_data_release(h);
  }
  return result;
}

const std::vector<std::vector<uint32_t>>& TaskSubmitter::gpu_workers() {
  if (gpu_workers_known_) return gpu_workers_;
  gpu_workers_known_ = true;
  std::vector<int> devices;  // in the order of their first worker
  const unsigned n = starpu_worker_get_count();
  for (unsigned w = 0; w < n; ++w) {
    if (starpu_worker_get_type(static_cast<int>(w)) != STARPU_CUDA_WORKER ||
        !starpu_sched_ctx_contains_worker(static_cast<int>(w), context_))
      continue;
    const int device = starpu_worker_get_devid(static_cast<int>(w));
    auto it = std::find(devices.begin(), devices.end(), device);
    if (it == devices.end()) {
      devices.push_back(device);
      gpu_workers_.emplace_back((n + 31) / 32, 0u);
      it = devices.end() - 1;
    }
    gpu_workers_[static_cast<size_t>(it - devices.begin())][w / 32] |= uint32_t(1) << (w % 32);
  }
  return gpu_workers_;
}

BoundOutcome TaskSubmitter::finish_bound(bool want_text) {
  bound_recording_ = false;
  return bound_kinds_.finish(want_text);
}

void TaskSubmitter::release() {
  for (auto h : accumulators_) starpu_data_unregister(h);
  accumulators_.clear();
}

}  // namespace pairhist
