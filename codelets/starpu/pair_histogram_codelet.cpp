#include "codelets/starpu/pair_histogram_codelet.hpp"

#include <cstring>

#include "codelets/cpu/pair_histogram_cpu.hpp"

namespace pairhist::codelets {

void ImplementationCounters::reset() {
  for (int i = 0; i < kImplementations; ++i) {
    tasks[i] = 0;
    pairs[i] = 0;
  }
}

void ImplementationCounters::record(Implementation impl, uint64_t task_pairs) {
  tasks[static_cast<int>(impl)] += 1;
  pairs[static_cast<int>(impl)] += task_pairs;
}

ImplementationCounters& implementation_counters() {
  static ImplementationCounters counters;
  return counters;
}

namespace {

template <class T>
void run_cpu(void* buffers[], const PairHistogramArgs& args, const HistogramParams<T>& params) {
  const cpu::Coords<T> a{reinterpret_cast<const T*>(STARPU_VECTOR_GET_PTR(buffers[0])),
                         static_cast<int64_t>(STARPU_VECTOR_GET_NX(buffers[0]) / 3)};
  cpu::Coords<T> b = a;
  int hist_index = 1;
  if (!args.same_species) {
    b = {reinterpret_cast<const T*>(STARPU_VECTOR_GET_PTR(buffers[1])),
         static_cast<int64_t>(STARPU_VECTOR_GET_NX(buffers[1]) / 3)};
    hist_index = 2;
  }
  auto* hist = reinterpret_cast<uint64_t*>(STARPU_VECTOR_GET_PTR(buffers[hist_index]));
  cpu::pair_histogram(a, b, args.same_species != 0, args.row_begin, args.row_end, params, hist);
}

void pair_histogram_cpu(void* buffers[], void* cl_arg) {
  const auto& args = *static_cast<const PairHistogramArgs*>(cl_arg);
  if (!admitted(args)) return;
  if (args.precision == Precision::single)
    run_cpu<float>(buffers, args, args.single_params);
  else
    run_cpu<double>(buffers, args, args.double_params);
  implementation_counters().record(Implementation::cpu, args.pairs);
}

void histogram_init_cpu(void* buffers[], void*) {
  std::memset(reinterpret_cast<void*>(STARPU_VECTOR_GET_PTR(buffers[0])), 0,
              STARPU_VECTOR_GET_NX(buffers[0]) * sizeof(uint64_t));
}

void histogram_redux_cpu(void* buffers[], void*) {
  auto* dst = reinterpret_cast<uint64_t*>(STARPU_VECTOR_GET_PTR(buffers[0]));
  const auto* src = reinterpret_cast<const uint64_t*>(STARPU_VECTOR_GET_PTR(buffers[1]));
  const size_t n = STARPU_VECTOR_GET_NX(buffers[0]);
  for (size_t k = 0; k < n; ++k) dst[k] += src[k];
}

// The perfmodel is keyed on the work itself: pairs, bins, box kind and precision.
uint32_t pair_histogram_footprint(starpu_task* task) {
  return work_footprint(*static_cast<const PairHistogramArgs*>(task->cl_arg));
}

size_t pair_histogram_size(starpu_task* task, unsigned) {
  return static_cast<size_t>(static_cast<const PairHistogramArgs*>(task->cl_arg)->pairs);
}

starpu_perfmodel make_pair_histogram_model() {
  starpu_perfmodel m;
  std::memset(&m, 0, sizeof(m));
  m.type = STARPU_HISTORY_BASED;
  m.symbol = "pairhist.pair_histogram";
  m.footprint = pair_histogram_footprint;
  m.size_base = pair_histogram_size;
  return m;
}

starpu_perfmodel pair_histogram_model = make_pair_histogram_model();

starpu_codelet make_pair_histogram_codelet() {
  starpu_codelet cl;
  std::memset(&cl, 0, sizeof(cl));
  cl.where = STARPU_CPU;
  cl.cpu_funcs[0] = pair_histogram_cpu;
  cl.cpu_funcs_name[0] = "pair_histogram_cpu";
#if defined(STARPU_USE_CUDA) && defined(PAIRHIST_CUDA_CODELETS)
  cl.where |= STARPU_CUDA;
  cl.cuda_funcs[kCudaShared] = pair_histogram_cuda_shared;
  cl.cuda_funcs[kCudaGlobal] = pair_histogram_cuda_global;
  cl.cuda_flags[kCudaShared] = STARPU_CUDA_ASYNC;
  cl.cuda_flags[kCudaGlobal] = STARPU_CUDA_ASYNC;
  cl.can_execute = cuda_can_execute;
#endif
  cl.nbuffers = STARPU_VARIABLE_NBUFFERS;
  cl.model = &pair_histogram_model;
  cl.name = "pair_histogram";
  return cl;
}

starpu_codelet make_simple_codelet(starpu_cpu_func_t cpu, starpu_cuda_func_t cuda, int nbuffers,
                                   const char* name) {
  starpu_codelet cl;
  std::memset(&cl, 0, sizeof(cl));
  cl.where = STARPU_CPU;
  cl.cpu_funcs[0] = cpu;
#if defined(STARPU_USE_CUDA) && defined(PAIRHIST_CUDA_CODELETS)
  cl.where |= STARPU_CUDA;
  cl.cuda_funcs[0] = cuda;
  cl.cuda_flags[0] = STARPU_CUDA_ASYNC;
#else
  (void)cuda;
#endif
  cl.nbuffers = nbuffers;
  // StarPU 1.3 wants {RW, R} for reduction codelets; 1.4 expects RW|COMMUTE but accepts RW.
  cl.modes[0] = nbuffers == 1 ? STARPU_W : STARPU_RW;
  if (nbuffers == 2) cl.modes[1] = STARPU_R;
  cl.name = name;
  return cl;
}

#if defined(STARPU_USE_CUDA) && defined(PAIRHIST_CUDA_CODELETS)
constexpr starpu_cuda_func_t kInitCuda = histogram_init_cuda;
constexpr starpu_cuda_func_t kReduxCuda = histogram_redux_cuda;
#else
constexpr starpu_cuda_func_t kInitCuda = nullptr;
constexpr starpu_cuda_func_t kReduxCuda = nullptr;
#endif

}  // namespace

starpu_codelet* pair_histogram_codelet() {
  static starpu_codelet cl = make_pair_histogram_codelet();
  return &cl;
}

starpu_codelet* histogram_init_codelet() {
  static starpu_codelet cl =
      make_simple_codelet(histogram_init_cpu, kInitCuda, 1, "histogram_init");
  return &cl;
}

starpu_codelet* histogram_redux_codelet() {
  static starpu_codelet cl =
      make_simple_codelet(histogram_redux_cpu, kReduxCuda, 2, "histogram_redux");
  return &cl;
}

}  // namespace pairhist::codelets
