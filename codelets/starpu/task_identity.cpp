#include "codelets/starpu/task_identity.hpp"

#include "codelets/starpu/cell_histogram_codelet.hpp"
#include "codelets/starpu/frame_histogram_codelet.hpp"
#include "codelets/starpu/pair_histogram_codelet.hpp"

namespace pairhist::codelets {

TaskIdentity identify_task(starpu_task* task) {
  TaskIdentity id;
  if (!task->cl || !task->cl->model || !task->cl->model->footprint) return id;
  id.footprint = task->cl->model->footprint(task);
  auto fill = [&](TaskKind kind, const auto* args) {
    id.kind = kind;
    id.pairs = args->pairs;
    id.frame = args->frame;
    id.sequence = args->sequence;
  };
  if (task->cl == pair_histogram_codelet())
    fill(TaskKind::tile, static_cast<const PairHistogramArgs*>(task->cl_arg));
  else if (task->cl == frame_histogram_codelet())
    fill(TaskKind::group, static_cast<const FrameHistogramArgs*>(task->cl_arg));
  else if (task->cl == cell_histogram_codelet())
    fill(TaskKind::cells, static_cast<const CellHistogramArgs*>(task->cl_arg));
  return id;
}

}  // namespace pairhist::codelets
