#include "analysis/gmx_rdf.hpp"

#include <cmath>

namespace pairhist::analysis {

GmxRdfCurve gmx_rdf_curve(const std::vector<double>& half_counts, double frames, double ref_count,
                          double sel_density, double bin, GmxNorm norm, bool xy) {
  GmxRdfCurve c;
  const size_t half = half_counts.size();
  const double per_ref = frames * ref_count;
  // g at i * bin: half-bins 2i - 1 and 2i, the shell between (i - 1/2) and (i + 1/2) bins.
  double inner_volume = 0;
  for (size_t i = 0; i < (half + 1) / 2; ++i) {
    const double count = i == 0 ? half_counts[0] : half_counts[2 * i - 1] + half_counts[2 * i];
    const double outer = (i + 0.5) * bin;
    const double outer_volume =
        xy ? M_PI * outer * outer : 4.0 / 3.0 * M_PI * outer * outer * outer;
    const double shell = outer_volume - inner_volume;
    inner_volume = outer_volume;
    double v = count / per_ref;
    if (norm == GmxNorm::rdf)
      v /= shell * sel_density;
    else if (norm == GmxNorm::number_density)
      v /= shell;
    else
      v /= bin;
    c.rdf.push_back(v);
  }
  // n at (i + 1) * bin: every pair up to there.
  double sum = 0;
  for (size_t i = 0; i < half / 2; ++i) {
    sum += half_counts[2 * i] + half_counts[2 * i + 1];
    c.cn.push_back(sum / per_ref);
  }
  return c;
}

}  // namespace pairhist::analysis
