#include "text_writers.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <locale>
#include <stdexcept>
#include <string>
#include <vector>

#include "atomic_file.hpp"
#include "pairhist/errors.hpp"
#include "rdf.hpp"

namespace pairhist::io {

namespace {

constexpr const char* kVersion = "0.1.0";

/// Opens the temporary of `out` for writing. The classic locale keeps '.' as the decimal
/// separator whatever locale the host program has set.
std::ofstream open_temp(const AtomicOutput& out) {
  std::ofstream file(out.temp_path(), std::ios::out | std::ios::trunc);
  if (!file) {
    const int err = errno;
    throw OutputError("cannot create '" + out.final_path() + "': " + std::strerror(err));
  }
  file.imbue(std::locale::classic());
  file.precision(10);
  return file;
}

void finish(std::ofstream& file, AtomicOutput& out) {
  file.close();
  // The stream state covers every earlier write as well, so one check catches a full disk.
  if (!file) throw OutputError("error while writing '" + out.final_path() + "'");
  out.commit();
}

std::string pair_label(const HistogramResult& res, const PairHistogram& p) {
  return res.species[p.a].name + "-" + res.species[p.b].name;
}

/// Quotes a CSV header field if it contains a separator, quote or line break (RFC 4180), so odd
/// species names cannot shift the columns.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char c : s) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

/// Comments and grace strings are single-line; user-supplied text must not break out of them.
std::string one_line(std::string s, char quote_replacement = '"') {
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
    if (c == '"') c = quote_replacement;
  }
  return s;
}

void check_frames(const HistogramResult& res) {
  if (res.frame_indices.empty()) throw UsageError("nothing to write: no frames were histogrammed");
}

void write_run_comments(std::ofstream& f, const HistogramResult& res) {
  f << "# frames: " << res.frame_indices.size() << " (trajectory frames "
    << res.frame_indices.front() << " to " << res.frame_indices.back() << ")\n";
  if (!res.frame_times.empty()) {
    f << "# time: " << res.frame_times.front() << " to " << res.frame_times.back() << " ps\n";
  }
  f << "# length unit: " << res.length_unit << "; " << res.nbins
    << " bins up to r_max = " << res.r_max << " " << res.length_unit << "\n";
  f << "# box: " << res.box_kind << "; precision: " << res.precision << "\n";
  for (const auto& s : res.species) {
    f << "# species " << one_line(s.name) << ": " << s.count << " atoms, selection \""
      << one_line(s.selection, '\'') << "\"\n";
  }
}

}  // namespace

void write_rdf_csv(const std::string& path, const HistogramResult& res) {
  check_frames(res);
  const bool have_box = !res.volumes.empty();
  std::vector<RdfCurve> curves;
  for (const auto& p : res.pairs) {
    if (p.counts.size() != static_cast<size_t>(res.nbins)) {
      throw std::logic_error("pair histogram has " + std::to_string(p.counts.size()) +
                             " bins, expected " + std::to_string(res.nbins));
    }
    if (have_box) curves.push_back(compute_rdf(res, p));
  }
  const std::vector<double> r = bin_centres(res.r_max, res.nbins);

  AtomicOutput out(path);
  std::ofstream f = open_temp(out);
  f << "# pairhist " << kVersion << "\n";
  write_run_comments(f, res);
  f << "# r is the bin centre; count_A-B is the number of A-B pairs in the bin summed over all "
       "frames (same-species pairs counted once)\n";
  if (have_box) {
    f << "# g_A-B is the radial distribution function (normalised with the frame average of "
         "1/V); n_A-B is the mean number of B atoms within the bin's upper edge of an A atom\n";
  } else {
    f << "# no periodic box: g(r) and coordination numbers need a volume and are not written\n";
  }

  // Block-average errors, when the run was written in intervals, go last so the other columns
  // keep their places.
  std::vector<std::vector<double>> errors;
  if (have_box)
    for (size_t i = 0; i < res.pairs.size(); ++i) errors.push_back(rdf_block_error(res, i));
  const bool have_errors = !errors.empty() && !errors[0].empty();
  if (have_errors)
    f << "# gerr_A-B is the standard error of g_A-B from the scatter of the "
      << res.intervals.size() << " interval blocks\n";

  f << csv_field("r_" + res.length_unit);
  for (const auto& p : res.pairs) {
    const std::string label = pair_label(res, p);
    f << ',' << csv_field("count_" + label);
    if (have_box) f << ',' << csv_field("g_" + label) << ',' << csv_field("n_" + label);
  }
  if (have_errors)
    for (const auto& p : res.pairs) f << ',' << csv_field("gerr_" + pair_label(res, p));
  f << '\n';
  for (int k = 0; k < res.nbins; ++k) {
    f << r[k];
    for (size_t i = 0; i < res.pairs.size(); ++i) {
      f << ',' << res.pairs[i].counts[k];
      if (have_box) f << ',' << curves[i].g[k] << ',' << curves[i].coordination[k];
    }
    if (have_errors)
      for (const auto& e : errors) f << ',' << e[static_cast<size_t>(k)];
    f << '\n';
  }
  finish(f, out);
}

void write_xvg(const std::string& path, const HistogramResult& res) {
  check_frames(res);
  std::vector<RdfCurve> curves;
  for (const auto& p : res.pairs) curves.push_back(compute_rdf(res, p));
  const std::vector<double> r = bin_centres(res.r_max, res.nbins);

  AtomicOutput out(path);
  std::ofstream f = open_temp(out);
  f << "# This file was created by pairhist " << kVersion << "\n";
  write_run_comments(f, res);
  f << "# r is the bin centre\n";
  f << "@    title \"Radial distribution\"\n";
  f << "@    xaxis  label \"r (" << one_line(res.length_unit, '\'') << ")\"\n";
  f << "@    yaxis  label \"g(r)\"\n";
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
    f << "@ s" << i << " legend \"" << one_line(pair_label(res, res.pairs[i]), '\'') << "\"\n";
  }
  for (int k = 0; k < res.nbins; ++k) {
    f << r[k];
    for (const auto& c : curves) f << ' ' << c.g[k];
    f << '\n';
  }
  finish(f, out);
}

}  // namespace pairhist::io
