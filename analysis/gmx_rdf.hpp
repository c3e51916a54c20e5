// g(r) and n(r) as `gmx rdf` makes them (pairhist rdf), from exact pair counts in bins half as
// wide as gmx's -bin: rows of g at r = i * bin, each from the half-bins either side of it (the
// first from [0, bin/2) alone), and rows of n at the bins' upper edges r = (i + 1) * bin, so that
// pairhist's output and gmx's have the same r columns.
#pragma once

#include <cstdint>
#include <vector>

namespace pairhist::analysis {

enum class GmxNorm { rdf, number_density, none };

struct GmxRdfCurve {
  std::vector<double> rdf;  // at r = i * bin, i < (half-bins + 1) / 2
  std::vector<double> cn;   // at r = (i + 1) * bin, i < half-bins / 2
};

/// `half_counts`: ordered reference-selection pairs per half-bin [k * bin/2, (k + 1) * bin/2),
/// summed over `frames`; `ref_count`: reference atoms per frame; `sel_density`: the frames' mean
/// selection atoms per volume (gmx's <N_sel / V>; with `xy`, per x-y area). gmx rdf's
/// normalisations: rdf divides by frames, the shell volume (with `xy`, gmx rdf -xy, the ring's
/// area), ref_count and sel_density; number_density by frames, the shell volume and ref_count;
/// none by frames, the bin width and ref_count. n(r) is the running sum of the pairs per
/// reference atom and frame.
GmxRdfCurve gmx_rdf_curve(const std::vector<double>& half_counts, double frames, double ref_count,
                          double sel_density, double bin, GmxNorm norm, bool xy = false);

}  // namespace pairhist::analysis
