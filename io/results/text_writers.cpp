#include "io/results/text_writers.hpp"

#include <cmath>
#include <locale>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/block_average.hpp"
#include "analysis/rdf.hpp"
#include "io/common/atomic_file.hpp"
#include "io/common/header_text.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {

namespace {

constexpr const char* kVersion = "0.1.0";

/// The text is built in memory and written in one piece (io/common/atomic_file.hpp), so a full disk
/// is reported with its cause. The classic locale keeps '.' as the decimal separator whatever
/// locale the host program has set.
std::ostringstream text_stream() {
  std::ostringstream text;
  text.imbue(std::locale::classic());
  text.precision(10);
  return text;
}

void finish(const std::ostringstream& text, const std::string& path) {
  write_bytes_atomically(path, text.str(), "the text output");
}

std::string pair_label(const HistogramResult& res, const PairHistogram& p) {
  return res.species[p.a].name + "-" + res.species[p.b].name;
}

/// Comments and grace strings are single-line; user-supplied text must not break out of them.
std::string one_line(const std::string& s, char quote_replacement = '"') {
  return header_text(s, quote_replacement);
}

void check_frames(const HistogramResult& res) {
  if (res.frame_indices.empty()) throw UsageError("nothing to write: no frames were histogrammed");
}

void write_run_comments(std::ostream& f, const HistogramResult& res) {
  f << "# frames: " << res.frame_indices.size() << " (trajectory frames "
    << res.frame_indices.front() << " to " << res.frame_indices.back() << ")\n";
  if (!res.frame_times.empty()) {
    f << "# time: " << res.frame_times.front() << " to " << res.frame_times.back() << " ps\n";
  }
  f << "# length unit: " << res.length_unit << "; " << res.nbins << " bins ";
  if (res.r_min > 0) f << "from r_min = " << res.r_min << " ";
  f << "up to r_max = " << res.r_max << " " << res.length_unit << "\n";
  f << "# box: " << res.box_kind << "; precision: " << res.precision << "\n";
  // As the HDF5 file's /pairhist attributes: a run stopped early says so in every output.
  f << "# complete = " << (res.complete ? 1 : 0) << "\n";
  if (!res.complete) f << "# stopped_by = " << one_line(res.stopped_by) << "\n";
  for (const auto& s : res.species) {
    f << "# species " << one_line(s.name) << ": " << s.count << " atoms, selection \""
      << one_line(s.selection, '\'') << "\"\n";
  }
}

/// What the normalised columns hold, for the comment lines of both text outputs.
std::string norm_description(const HistogramResult& res) {
  if (res.norm == "density")
    return "density (norm density): pairs per frame per shell volume (" + res.length_unit +
           "^-3), same-species pairs counted as ordered pairs (twice) like MDAnalysis";
  if (res.norm == "none")
    return "number (norm none): pairs per frame in the shell, same-species pairs counted as "
           "ordered pairs (twice) like MDAnalysis";
  if (res.dynamic())
    return "g (norm rdf): the radial distribution function of species whose sizes change per "
           "frame (within/around), normalised frame by frame: counts / (shell volume * sum over "
           "frames of the frame's pairs / V); species counts above are capacities";
  return "g (norm rdf): the radial distribution function, normalised with the frame average of "
         "1/V (exact under NPT)";
}

std::string exclusion_description(const HistogramResult& res) {
  std::string s = "# excluded pairs: " + res.exclude;
  for (const auto& p : res.pairs)
    if (p.excluded_pairs > 0 || p.shared_atoms > 0)
      s += "; " + one_line(pair_label(res, p)) + (res.dynamic() ? " at most " : " ") +
           std::to_string(p.excluded_pairs) + " per frame" +
           (p.shared_atoms > 0 ? " (+" + std::to_string(p.shared_atoms) + " self pairs)" : "");
  return s + "\n";
}

/// The blocks' length and Flyvbjerg and Petersen's check that they are longer than the
/// correlation time, on each pair's highest g(r) bin: its standard error over the blocks and
/// over the blocks merged in twos, fours, ...; where it rises as they merge, the blocks are too
/// short and the errors too small.
void write_block_check(std::ostringstream& f, const HistogramResult& res,
                       const std::vector<analysis::RdfCurve>& curves) {
  const std::vector<HistogramResult> blocks = analysis::block_runs(res);
  f << "# blocks: " << blocks.size() << " of " << blocks.front().frame_indices.size()
    << " frames (the last " << blocks.back().frame_indices.size()
    << "); Flyvbjerg-Petersen check, the standard error of each pair's highest bin with the "
       "blocks merged in 1s, 2s, 4s, ...:";
  for (size_t i = 0; i < res.pairs.size(); ++i) {
    size_t peak = 0;
    for (size_t k = 0; k < curves[i].g.size(); ++k)
      if (std::isfinite(curves[i].g[k]) &&
          (!std::isfinite(curves[i].g[peak]) || curves[i].g[k] > curves[i].g[peak]))
        peak = k;
    std::vector<double> per_block;
    for (const HistogramResult& b : blocks)
      per_block.push_back(analysis::compute_rdf(b, b.pairs[i]).g[peak]);
    const std::vector<double> merged = analysis::merged_block_errors(per_block);
    f << (i == 0 ? " " : "; ") << one_line(pair_label(res, res.pairs[i]));
    for (double e : merged) f << ' ' << e;
    f << (analysis::block_errors_level(merged, blocks.size()) ? " (level)"
                                                              : " (rising: blocks too short)");
  }
  f << '\n';
}

}  // namespace

void write_rdf_csv(const std::string& path, const HistogramResult& res) {
  check_frames(res);
  const bool have_curves = analysis::can_normalise(res);
  const std::string value = analysis::normalised_name(res.norm);
  std::vector<analysis::RdfCurve> curves;
  for (const auto& p : res.pairs) {
    if (p.counts.size() != static_cast<size_t>(res.nbins)) {
      throw std::logic_error("pair histogram has " + std::to_string(p.counts.size()) +
                             " bins, expected " + std::to_string(res.nbins));
    }
    if (have_curves) curves.push_back(analysis::compute_rdf(res, p));
  }
  const std::vector<double> r = analysis::bin_centres(res.r_min, res.r_max, res.nbins);

  // Block-average errors, when the run was written in intervals, go last so the other columns
  // keep their places.
  std::vector<analysis::RdfErrors> errors;
  if (have_curves)
    for (size_t i = 0; i < res.pairs.size(); ++i)
      errors.push_back(analysis::rdf_block_errors(res, i));
  const bool have_errors = !errors.empty() && !errors[0].g.empty();

  // The column names come first: numpy.genfromtxt(names=True) takes its names from the first
  // line, '#' or not; the '#' lines after it are skipped there, by pandas.read_csv(comment='#')
  // and by every reader that skips comments.
  std::ostringstream f = text_stream();
  f << csv_field("r_" + res.length_unit);
  for (const auto& p : res.pairs) {
    const std::string label = pair_label(res, p);
    f << ',' << csv_field("count_" + label);
    if (have_curves) f << ',' << csv_field(value + "_" + label) << ',' << csv_field("n_" + label);
  }
  if (have_errors) {
    for (const auto& p : res.pairs) f << ',' << csv_field(value + "err_" + pair_label(res, p));
    for (const auto& p : res.pairs) f << ',' << csv_field("nerr_" + pair_label(res, p));
  }
  f << '\n';
  f << "# pairhist " << kVersion << "\n";
  write_run_comments(f, res);
  f << exclusion_description(res);
  f << "# r is the bin centre; count_A-B is the number of A-B pairs in the bin summed over all "
       "frames (same-species pairs counted once)\n";
  if (have_curves) {
    f << "# " << value << "_A-B is the " << norm_description(res)
      << "; n_A-B is the mean number of B atoms within the bin's upper edge of an A atom"
      << (res.r_min > 0 ? " (from r_min on)" : "") << "\n";
  } else {
    f << "# no periodic box: g(r) and coordination numbers need a volume and are not written\n";
  }
  if (have_errors)
    f << "# " << value << "err_A-B is the standard error of " << value
      << "_A-B and nerr_A-B that of n_A-B: the scatter of the " << res.intervals.size()
      << " interval blocks, each normalised as a run of its own (sqrt(var / B), var over B - 1)\n";
  if (have_errors) write_block_check(f, res, curves);
  for (int k = 0; k < res.nbins; ++k) {
    f << r[k];
    for (size_t i = 0; i < res.pairs.size(); ++i) {
      f << ',' << res.pairs[i].counts[k];
      if (have_curves) f << ',' << curves[i].g[k] << ',' << curves[i].coordination[k];
    }
    if (have_errors) {
      for (const auto& e : errors) f << ',' << e.g[static_cast<size_t>(k)];
      for (const auto& e : errors) f << ',' << e.coordination[static_cast<size_t>(k)];
    }
    f << '\n';
  }
  finish(f, path);
}

namespace {

/// One multi-column .xvg: the r column (bin centres, or with `upper_edges` the bins' upper
/// edges), then `column(curve, k)` of every pair.
void write_xvg_columns(const std::string& path, const HistogramResult& res,
                       const std::string& title, const std::string& ylabel,
                       const std::string& legend_prefix, const std::string& description,
                       bool upper_edges, double (*column)(const analysis::RdfCurve&, int)) {
  check_frames(res);
  std::vector<analysis::RdfCurve> curves;
  for (const auto& p : res.pairs) curves.push_back(analysis::compute_rdf(res, p));
  std::vector<double> r = analysis::bin_centres(res.r_min, res.r_max, res.nbins);
  if (upper_edges) {
    const std::vector<double> edges = analysis::bin_edges(res.r_min, res.r_max, res.nbins);
    r.assign(edges.begin() + 1, edges.end());
  }
  const std::string unit = one_line(res.length_unit, '\'');

  std::ostringstream f = text_stream();
  f << "# This file was created by pairhist " << kVersion << "\n";
  write_run_comments(f, res);
  f << exclusion_description(res);
  f << "# " << description << "\n";
  f << "@    title \"" << title << "\"\n";
  f << "@    xaxis  label \"r (" << unit << ")\"\n";
  f << "@    yaxis  label \"" << ylabel << "\"\n";
  f << "@TYPE xy\n";
  if (!res.pairs.empty()) {
    f << "@ view 0.15, 0.15, 0.75, 0.85\n";
    f << "@ legend on\n";
    f << "@ legend box on\n";
    f << "@ legend loctype view\n";
    f << "@ legend 0.78, 0.8\n";
    f << "@ legend length 2\n";
  }
  for (size_t i = 0; i < res.pairs.size(); ++i) {
    f << "@ s" << i << " legend \"" << legend_prefix
      << one_line(pair_label(res, res.pairs[i]), '\'') << "\"\n";
  }
  for (int k = 0; k < res.nbins; ++k) {
    f << r[k];
    for (const auto& c : curves) f << ' ' << column(c, k);
    f << '\n';
  }
  finish(f, path);
}

}  // namespace

void write_xvg(const std::string& path, const HistogramResult& res) {
  const std::string unit = one_line(res.length_unit, '\'');
  // The y axis and, outside the default rdf mode, title and legends name the normalisation.
  const bool rdf = res.norm == "rdf";
  const std::string ylabel = rdf                     ? "g(r)"
                             : res.norm == "density" ? "pair density (" + unit + "\\S-3\\N)"
                                                     : "pairs per frame";
  write_xvg_columns(path, res,
                    rdf ? "Radial distribution" : "Pair distances (norm " + res.norm + ")", ylabel,
                    rdf ? "" : analysis::normalised_name(res.norm) + " ",
                    "r is the bin centre; the columns are the " + norm_description(res), false,
                    [](const analysis::RdfCurve& c, int k) { return c.g[static_cast<size_t>(k)]; });
}

void write_cn_xvg(const std::string& path, const HistogramResult& res) {
  write_xvg_columns(path, res, "Cumulative number RDF", "number", "",
                    "r is the bin's upper edge; the columns are n(r): the mean number of B atoms "
                    "within r of an A atom (doubled pairs for A = B), as gmx rdf -cn writes it",
                    true, [](const analysis::RdfCurve& c, int k) {
                      return c.coordination[static_cast<size_t>(k)];
                    });
}

std::string csv_field(const std::string& raw) {
  const std::string s = header_text(raw);  // no line break inside a header row
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char c : s) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

}  // namespace pairhist::io
