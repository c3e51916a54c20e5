// Plain-text outputs of a histogram run: a CSV table for scripts and spreadsheets, and a GROMACS
// style .xvg for xmgrace.
#pragma once

#include <string>

#include "pairhist/result.hpp"

namespace pairhist::io {

/// One CSV table, written atomically. Leading '#' comment lines describe the run; then a header
/// row `r_<unit>` followed, for each pair, by `count_<A>-<B>` and, when the result has volumes,
/// `g_<A>-<B>` and `n_<A>-<B>`; then one row per bin. r is the bin centre, counts are summed over
/// all frames, n is the coordination number within the bin's upper edge. Numbers have 10
/// significant digits; counts are exact integers. Throws UsageError if there are no frames and
/// OutputError (naming `path`) if the file cannot be written.
void write_rdf_csv(const std::string& path, const HistogramResult& res);

/// g(r) of every pair as one multi-column GROMACS .xvg (xmgrace header, one legend per pair),
/// written atomically. Throws UsageError if the result has no volumes (g(r) is undefined without
/// a periodic box) or no frames, OutputError if the file cannot be written.
void write_xvg(const std::string& path, const HistogramResult& res);

}  // namespace pairhist::io
