#include "tasks/lp_bound.hpp"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

#include "pairhist/environment.hpp"

namespace pairhist {
namespace {

/// The workers StarPU's LP has one row for, grouped by the perfmodel arch they share (every CPU
/// worker is one "cpu" arch; each CUDA device is its own arch, shared by its workers).
struct ArchGroup {
  starpu_perfmodel_arch* arch = nullptr;
  std::string name;
  unsigned long long where = 0;  // STARPU_CPU or STARPU_CUDA
  int workers = 0;
};

std::vector<ArchGroup> arch_groups() {
  std::vector<ArchGroup> groups;
  std::map<int, size_t> by_comb;
  const int nw = static_cast<int>(starpu_worker_get_count());
  for (int w = 0; w < nw; ++w) {
    starpu_perfmodel_arch* arch = starpu_worker_get_perf_archtype(w, STARPU_NMAX_SCHED_CTXS);
    if (!arch) continue;
    const int comb = starpu_perfmodel_arch_comb_get(arch->ndevices, arch->devices);
    auto [it, inserted] = by_comb.emplace(comb, groups.size());
    if (inserted) {
      ArchGroup g;
      g.arch = arch;
      const bool cuda = starpu_worker_get_type(w) == STARPU_CUDA_WORKER;
      g.where = cuda ? STARPU_CUDA : STARPU_CPU;
      g.name = cuda ? "cuda" + std::to_string(starpu_worker_get_devid(w)) : "cpu";
      groups.push_back(g);
    }
    groups[it->second].workers += 1;
  }
  return groups;
}

/// Measurements of implementation 0 for this footprint on this arch: what StarPU's LP reads
/// (_starpu_get_tasks_times). Read from the history list, not through
/// starpu_perfmodel_history_based_expected_perf, which would switch calibration on and warn.
const starpu_perfmodel_history_entry* history_entry(starpu_perfmodel* model,
                                                    starpu_perfmodel_arch* arch,
                                                    uint32_t footprint) {
  if (!model || !model->state) return nullptr;
  if (starpu_perfmodel_arch_comb_get(arch->ndevices, arch->devices) < 0) return nullptr;
  const starpu_perfmodel_per_arch* per_arch = starpu_perfmodel_get_model_per_arch(model, arch, 0);
  if (!per_arch) return nullptr;
  for (const starpu_perfmodel_history_list* l = per_arch->list; l; l = l->next)
    if (l->entry && l->entry->footprint == footprint) return l->entry;
  return nullptr;
}

std::string lp_solve_text() {
  char* buffer = nullptr;
  size_t size = 0;
  FILE* f = open_memstream(&buffer, &size);
  if (!f) return "/* could not capture starpu_bound_print_lp */\n";
  starpu_bound_print_lp(f);
  std::fclose(f);
  std::string text(buffer, size);
  std::free(buffer);
  return text;
}

}  // namespace

unsigned calibration_minimum() {
  // StarPU reads the same variable (starpu_get_env_number_default, default 10) at starpu_init.
  const char* v = env_get("STARPU_CALIBRATE_MINIMUM");
  if (!v || !*v) return 10;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  return end != v && n >= 0 ? static_cast<unsigned>(n) : 10;
}

void BoundRecorder::note(starpu_codelet* cl, uint32_t footprint, uint64_t pairs,
                         unsigned long long where) {
  if (last_ < kinds_.size() && kinds_[last_].cl == cl && kinds_[last_].footprint == footprint) {
    kinds_[last_].tasks += 1;
    kinds_[last_].where |= where;
    return;
  }
  for (size_t k = 0; k < kinds_.size(); ++k)
    if (kinds_[k].cl == cl && kinds_[k].footprint == footprint) {
      kinds_[k].tasks += 1;
      kinds_[k].where |= where;
      last_ = k;
      return;
    }
  kinds_.push_back({cl, footprint, 1, pairs, where});
  last_ = kinds_.size() - 1;
}

BoundOutcome BoundRecorder::finish(bool want_text) {
  starpu_bound_stop();
  BoundOutcome out;
  out.kinds = kinds_.size();
  const unsigned minimum = calibration_minimum();
  out.minimum = minimum;
  const std::vector<ArchGroup> archs = arch_groups();
  std::ostringstream table;
  table
      << "/* pairhist: task kinds recorded for the LP bound (codelet, footprint key) and the\n"
      << "   measurements (mean +- deviation) of implementation 0 per worker arch; StarPU uses an\n"
      << "   entry from " << minimum << " measurements on (STARPU_CALIBRATE_MINIMUM). '-': the kind"
      << " cannot\n   run there; '!': it can, but is not calibrated there */\n";
  for (const BoundKind& k : kinds_) {
    bool anywhere = false, missing_eligible = false;
    table << "/* " << (k.cl && k.cl->name ? k.cl->name : "?") << " key " << std::hex << k.footprint
          << std::dec << ": " << k.tasks << " tasks of ~" << k.pairs << " pairs;";
    for (const ArchGroup& g : archs) {
      const starpu_perfmodel_history_entry* e =
          history_entry(k.cl ? k.cl->model : nullptr, g.arch, k.footprint);
      const unsigned n = e ? e->nsample : 0;
      const bool eligible = (k.where & g.where) != 0;
      anywhere |= n >= minimum;
      missing_eligible |= eligible && n < minimum;
      table << ' ' << g.name << ' ' << n << (eligible ? (n < minimum ? "!" : "") : "-");
      if (n > 0) table << " (" << e->mean * 1e-3 << " +- " << e->deviation * 1e-3 << " ms)";
    }
    table << " */\n";
    if (!anywhere)
      ++out.uncalibrated;
    else if (missing_eligible)
      ++out.partly;
  }
  if (want_text) out.lp_text = table.str() + "\n" + lp_solve_text();

#ifndef STARPU_HAVE_GLPK_H
  out.reason = "StarPU was built without GLPK";
  return out;
#else
  if (kinds_.empty()) {
    out.reason = "no task with a history perfmodel was recorded";
    return out;
  }
  if (out.uncalibrated > 0) {
    // StarPU's LP would be unsolvable; solving it anyway only prints a warning per worker.
    out.reason = std::to_string(out.uncalibrated) + " of " + std::to_string(out.kinds) +
                 " task kinds have fewer than " + std::to_string(minimum) +
                 " measurements on every worker kind (run `pairhist calibrate` with the same "
                 "arguments first)";
    return out;
  }
  double bound_ms = 0, integer_ms = 0;
  starpu_bound_compute(&bound_ms, &integer_ms, 0);
  out.seconds = bound_ms * 1e-3;
  if (!(out.seconds > 0)) {
    out.seconds = 0;
    out.reason = "GLPK found no solution to StarPU's LP";
  }
  return out;
#endif
}

}  // namespace pairhist
