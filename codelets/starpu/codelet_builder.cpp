#include "codelets/starpu/codelet_builder.hpp"

#include <cstring>

namespace pairhist::codelets {

Codelet::Codelet(const CodeletSpec& spec) {
  // Both are C structures whose unused fields StarPU expects zero.
  std::memset(&model_, 0, sizeof(model_));
  std::memset(&codelet_, 0, sizeof(codelet_));
  if (spec.perfmodel_symbol) {
    model_.type = STARPU_HISTORY_BASED;
    model_.symbol = spec.perfmodel_symbol;
    model_.footprint = spec.footprint;
    model_.size_base = spec.size_base;
    codelet_.model = &model_;
  }
  codelet_.where = STARPU_CPU;
  codelet_.cpu_funcs[0] = spec.cpu_func;
  codelet_.cpu_funcs_name[0] = spec.cpu_func_name;
  STARPU_ASSERT(spec.cuda.size() <= STARPU_MAXIMPLEMENTATIONS);
  for (size_t k = 0; k < spec.cuda.size(); ++k) {
    if (!spec.cuda[k].func) continue;
    codelet_.where |= STARPU_CUDA;
    codelet_.cuda_funcs[k] = spec.cuda[k].func;
    codelet_.cuda_flags[k] = spec.cuda[k].flags;
  }
  codelet_.can_execute = spec.can_execute;
  STARPU_ASSERT(spec.modes.size() <= STARPU_NMAXBUFS);
  if (spec.modes.empty()) {
    codelet_.nbuffers = STARPU_VARIABLE_NBUFFERS;
  } else {
    codelet_.nbuffers = static_cast<int>(spec.modes.size());
    for (size_t k = 0; k < spec.modes.size(); ++k) codelet_.modes[k] = spec.modes[k];
  }
  codelet_.name = spec.name;
}

}  // namespace pairhist::codelets
