#include "tasks/measured_bound.hpp"

#include <map>

#if defined(PAIRHIST_HAVE_GLPK)
#include <glpk.h>
#endif

namespace pairhist {

bool area_lp_available() {
#if defined(PAIRHIST_HAVE_GLPK)
  return true;
#else
  return false;
#endif
}

AreaSolution solve_area_lp(const std::vector<AreaKind>& kinds, const std::vector<int>& workers) {
  AreaSolution out;
  const size_t narchs = workers.size();
  bool any = false;
  for (size_t k = 0; k < kinds.size(); ++k) {
    if (kinds[k].tasks == 0) continue;
    any = true;
    bool placeable = false;
    for (size_t a = 0; a < narchs && a < kinds[k].seconds.size(); ++a)
      placeable |= kinds[k].seconds[a] >= 0 && workers[a] > 0;
    if (!placeable) {
      out.reason = "task kind " + std::to_string(k) + " has no time on any worker kind";
      return out;
    }
  }
  if (!any) {
    out.reason = "no task was measured";
    return out;
  }
#if !defined(PAIRHIST_HAVE_GLPK)
  out.reason = "built without GLPK";
  return out;
#else
  // Variables: T (column 1) and x[k][a] = n[k][a] / N_k in [0, 1], the fraction of kind k's
  // tasks given to arch a, so coefficients are seconds of work (N_k t[k][a]), not task counts.
  // Rows: one per kind (sum_a x[k][a] = 1), then one per arch (sum_k N_k t x - W_a T <= 0).
  // One row per arch instead of StarPU's one per worker: summing a worker row over an arch's
  // identical workers gives the arch row, and an arch solution split evenly over its workers
  // satisfies every worker row, so both LPs have the same optimum.
  glp_prob* lp = glp_create_prob();
  glp_set_obj_dir(lp, GLP_MIN);
  const int nkinds = static_cast<int>(kinds.size());
  glp_add_rows(lp, nkinds + static_cast<int>(narchs));
  for (int k = 0; k < nkinds; ++k)
    glp_set_row_bnds(lp, k + 1, GLP_FX, kinds[static_cast<size_t>(k)].tasks ? 1.0 : 0.0,
                     kinds[static_cast<size_t>(k)].tasks ? 1.0 : 0.0);
  for (size_t a = 0; a < narchs; ++a)
    glp_set_row_bnds(lp, nkinds + static_cast<int>(a) + 1, GLP_UP, 0.0, 0.0);
  std::vector<int> ia{0}, ja{0};
  std::vector<double> ar{0.0};
  glp_add_cols(lp, 1);
  glp_set_col_bnds(lp, 1, GLP_LO, 0.0, 0.0);
  glp_set_obj_coef(lp, 1, 1.0);
  for (size_t a = 0; a < narchs; ++a) {
    ia.push_back(nkinds + static_cast<int>(a) + 1);
    ja.push_back(1);
    ar.push_back(-static_cast<double>(workers[a]));
  }
  for (int k = 0; k < nkinds; ++k) {
    const AreaKind& kind = kinds[static_cast<size_t>(k)];
    if (kind.tasks == 0) continue;
    for (size_t a = 0; a < narchs && a < kind.seconds.size(); ++a) {
      if (kind.seconds[a] < 0 || workers[a] <= 0) continue;
      const int col = glp_add_cols(lp, 1);
      glp_set_col_bnds(lp, col, GLP_DB, 0.0, 1.0);
      ia.push_back(k + 1);
      ja.push_back(col);
      ar.push_back(1.0);
      ia.push_back(nkinds + static_cast<int>(a) + 1);
      ja.push_back(col);
      ar.push_back(static_cast<double>(kind.tasks) * kind.seconds[a]);
    }
  }
  glp_load_matrix(lp, static_cast<int>(ia.size()) - 1, ia.data(), ja.data(), ar.data());
  glp_smcp parm;
  glp_init_smcp(&parm);
  parm.msg_lev = GLP_MSG_OFF;
  parm.presolve = GLP_ON;
  const int ret = glp_simplex(lp, &parm);
  if (ret == 0 && glp_get_status(lp) == GLP_OPT)
    out.seconds = glp_get_obj_val(lp);
  else
    out.reason = "GLPK found no optimum (glp_simplex " + std::to_string(ret) + ", status " +
                 std::to_string(glp_get_status(lp)) + ")";
  glp_delete_prob(lp);
  return out;
#endif
}

std::vector<AreaKind> measured_times(const std::vector<MeasuredKind>& kinds, size_t narchs,
                                     MeasuredBound& counts) {
  // Throughput per (codelet, arch) and per arch, from every measured task.
  struct Rate {
    double seconds = 0;
    uint64_t pairs = 0;
  };
  std::map<std::pair<int, size_t>, Rate> by_codelet;
  std::vector<Rate> by_arch(narchs);
  for (const MeasuredKind& k : kinds)
    for (size_t a = 0; a < narchs && a < k.runs.size(); ++a) {
      if (k.runs[a] == 0) continue;
      Rate& r = by_codelet[{k.codelet, a}];
      r.seconds += k.run_seconds[a];
      r.pairs += k.run_pairs[a];
      by_arch[a].seconds += k.run_seconds[a];
      by_arch[a].pairs += k.run_pairs[a];
    }
  std::vector<AreaKind> out;
  for (const MeasuredKind& k : kinds) {
    AreaKind ak;
    ak.tasks = k.tasks;
    ak.seconds.assign(narchs, -1.0);
    bool estimated = false;
    for (size_t a = 0; a < narchs; ++a) {
      const bool ran = a < k.runs.size() && k.runs[a] > 0;
      if (ran) {
        ak.seconds[a] = k.run_seconds[a] / static_cast<double>(k.runs[a]);
        continue;
      }
      if (a >= k.may_run.size() || !k.may_run[a]) continue;
      auto it = by_codelet.find({k.codelet, a});
      const Rate* r = it != by_codelet.end() ? &it->second
                      : by_arch[a].pairs > 0 ? &by_arch[a]
                                             : nullptr;
      if (!r || r->pairs == 0) {
        ++counts.unknown_entries;
        continue;
      }
      const double mean_pairs = k.tasks ? static_cast<double>(k.pairs) / k.tasks : 0.0;
      ak.seconds[a] = mean_pairs * r->seconds / static_cast<double>(r->pairs);
      ++counts.estimated_entries;
      estimated = true;
    }
    if (estimated) ++counts.estimated_kinds;
    out.push_back(std::move(ak));
  }
  return out;
}

MeasuredBound measured_area_bound(const std::vector<MeasuredKind>& kinds,
                                  const std::vector<MeasuredArch>& archs) {
  MeasuredBound out;
  out.kinds = kinds.size();
  const std::vector<AreaKind> times = measured_times(kinds, archs.size(), out);
  std::vector<int> workers;
  for (const MeasuredArch& a : archs) workers.push_back(a.workers);
  const AreaSolution s = solve_area_lp(times, workers);
  out.seconds = s.seconds;
  out.reason = s.reason;
  return out;
}

}  // namespace pairhist
