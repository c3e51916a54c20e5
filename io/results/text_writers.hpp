// Plain-text outputs of a histogram run: a CSV table for scripts and spreadsheets, and a GROMACS
// style .xvg for xmgrace.
#pragma once

#include <string>

#include "pairhist/result.hpp"

namespace pairhist::io {

/// A CSV header field, its control characters escaped (io/common/header_text.hpp) and quoted if
/// it holds a separator or quote (RFC 4180), so that odd species names cannot shift the columns
/// or break the header row.
std::string csv_field(const std::string& s);

/// One CSV table, written atomically. The header row comes first (numpy.genfromtxt(names=True)
/// takes its names from the first line): `r_<unit>` followed, for each pair, by `count_<A>-<B>`
/// and, when the result can be normalised (analysis::can_normalise), the normalised column named
/// after res.norm (`g_<A>-<B>`, `density_<A>-<B>` or `number_<A>-<B>`) and `n_<A>-<B>`; then '#'
/// comment lines that describe the run (the mode, the pairs left out per frame); then one row
/// per bin. r is the bin centre, counts are summed over all frames, n is the coordination number
/// within the bin's upper edge. Numbers have 10 significant digits; counts are exact integers.
/// Throws UsageError if there are no frames and OutputError (naming `path`) if the file cannot
/// be written.
void write_rdf_csv(const std::string& path, const HistogramResult& res);

/// g(r) (or the res.norm quantity, named in the title, y axis and legends) of every pair as one
/// multi-column GROMACS .xvg (xmgrace header, one legend per pair), written atomically. Throws
/// UsageError if norm is rdf and the result has no volumes (g(r) is undefined without a periodic
/// box) or if there are no frames, OutputError if the file cannot be written.
void write_xvg(const std::string& path, const HistogramResult& res);

/// The running coordination numbers n(r) of every pair as a GROMACS .xvg (like `gmx rdf -cn`),
/// same header conventions and errors as write_xvg().
void write_cn_xvg(const std::string& path, const HistogramResult& res);

}  // namespace pairhist::io
