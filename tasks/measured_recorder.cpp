#include "tasks/measured_recorder.hpp"

#include <map>
#include <string>

namespace pairhist {

void MeasuredRecorder::start(unsigned sched_ctx) {
  archs_.clear();
  arch_where_.clear();
  arch_of_worker_.assign(starpu_worker_get_count(), -1);
  // The archs StarPU's models and LP use: every CPU worker shares "cpu"; each CUDA device is its
  // own arch, shared by its workers (two per GPU by default).
  std::map<int, int> by_device;  // -1: the CPU arch
  for (unsigned w = 0; w < starpu_worker_get_count(); ++w) {
    const int id = static_cast<int>(w);
    if (sched_ctx != 0 && !starpu_sched_ctx_contains_worker(id, sched_ctx)) continue;
    const starpu_worker_archtype type = starpu_worker_get_type(id);
    if (type != STARPU_CPU_WORKER && type != STARPU_CUDA_WORKER) continue;
    const bool cuda = type == STARPU_CUDA_WORKER;
    const int device = cuda ? starpu_worker_get_devid(id) : -1;
    auto [it, inserted] = by_device.emplace(device, static_cast<int>(archs_.size()));
    if (inserted) {
      archs_.push_back({cuda ? "cuda" + std::to_string(device) : "cpu", 0});
      arch_where_.push_back(cuda ? STARPU_CUDA : STARPU_CPU);
    }
    archs_[static_cast<size_t>(it->second)].workers += 1;
    arch_of_worker_[w] = it->second;
  }
}

void MeasuredRecorder::record(const starpu_codelet* cl, uint32_t footprint,
                              unsigned long long where, int worker, double seconds,
                              uint64_t pairs) {
  if (worker < 0 || static_cast<size_t>(worker) >= arch_of_worker_.size()) return;
  const int arch = arch_of_worker_[static_cast<size_t>(worker)];
  if (arch < 0) return;
  size_t k = last_;
  if (k >= keys_.size() || keys_[k].cl != cl || keys_[k].footprint != footprint) {
    for (k = 0; k < keys_.size(); ++k)
      if (keys_[k].cl == cl && keys_[k].footprint == footprint) break;
    if (k == keys_.size()) {
      MeasuredKind kind;
      size_t c = 0;
      while (c < codelets_.size() && codelets_[c] != cl) ++c;
      if (c == codelets_.size()) codelets_.push_back(cl);
      kind.codelet = static_cast<int>(c);
      kind.may_run.assign(archs_.size(), false);
      kind.runs.assign(archs_.size(), 0);
      kind.run_seconds.assign(archs_.size(), 0.0);
      kind.run_pairs.assign(archs_.size(), 0);
      keys_.push_back({cl, footprint});
      kinds_.push_back(std::move(kind));
    }
    last_ = k;
  }
  MeasuredKind& kind = kinds_[k];
  // Tasks of one kind with different masks (a pool with GPU-only tiles and shared ones) are
  // allowed wherever any of them is, as StarPU's pool is: a relaxation, still a lower bound.
  for (size_t a = 0; a < archs_.size(); ++a)
    if (where & arch_where_[a]) kind.may_run[a] = true;
  const size_t a = static_cast<size_t>(arch);
  kind.tasks += 1;
  kind.pairs += pairs;
  kind.runs[a] += 1;
  kind.run_seconds[a] += seconds;
  kind.run_pairs[a] += pairs;
}

}  // namespace pairhist
