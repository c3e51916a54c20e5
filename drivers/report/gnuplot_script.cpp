#include "drivers/report/gnuplot_script.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

namespace pairhist {

namespace {

std::string number(double v) {
  if (!std::isfinite(v)) return "NaN";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

std::string default_title(const io::RunOutput& run) {
  // The run's directory names the run better than "pairhist.h5" does.
  const std::filesystem::path p = std::filesystem::absolute(run.path).lexically_normal();
  const std::string name = p.parent_path().filename().string();
  std::string t = run.has_rdf() ? "Radial distribution functions" : "Pair-distance histograms";
  if (!name.empty()) t += " of " + name;
  if (run.n_frames > 0) t += " (" + std::to_string(run.n_frames) + " frames)";
  return t;
}

/// Lines as one double-quoted gnuplot string joined by "\n" escapes; quotes and backslashes of
/// the text are escaped so user text cannot end the string.
std::string gnuplot_lines(const std::vector<std::string>& lines) {
  std::string out = "\"";
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out += "\\n";
    for (char c : lines[i]) {
      if (c == '"' || c == '\\') out += '\\';
      out += c == '\n' || c == '\r' ? ' ' : c;
    }
  }
  return out + "\"";
}

/// The terminal, output and colour lines every plot starts with.
void preamble(std::ostringstream& s, const PlotStyle& style) {
  s << "set encoding utf8\n";
  if (style.terminal == "svg") {
    s << "set terminal svg size " << style.width << "," << style.height
      << " dynamic noenhanced font 'sans,13' background rgb 'white'\n";
  } else {
    s << "set terminal pngcairo size " << style.width << "," << style.height
      << " noenhanced font 'sans,11'\n";
  }
  s << "set output " << gnuplot_quote(style.output) << "\n";
  // Okabe-Ito colours: distinguishable with colour-vision deficiencies, readable on white.
  const char* colours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                           "#E69F00", "#56B4E9", "#000000", "#999933"};
  for (int i = 0; i < 8; ++i)
    s << "set linetype " << i + 1 << " lc rgb '" << colours[i] << "' lw 2\n";
  s << "set linetype cycle 8\n";
}

}  // namespace

std::string gnuplot_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out += "''";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out + "'";
}

std::string r_axis_label(const std::string& length_unit) {
  if (length_unit == "angstrom") return "r (Å)";
  return "r (" + length_unit + ")";
}

std::string gnuplot_script(const io::RunOutput& run, const std::vector<size_t>& pairs,
                           const PlotStyle& style) {
  const bool rdf = run.has_rdf();
  const bool errors = rdf && run.has_errors();
  const bool coordination = rdf && style.coordination;
  // Without g(r) the mean count per frame keeps runs of different lengths comparable.
  const double per_frame = run.n_frames > 0 ? 1.0 / static_cast<double>(run.n_frames) : 1.0;

  std::ostringstream s;
  s << "# pairhist plot: " << (rdf ? "g(r)" : "pair counts") << " from " << gnuplot_quote(run.path)
    << "\n";
  preamble(s, style);
  std::vector<std::string> title_lines = {style.title.empty() ? default_title(run) : style.title};
  if (errors) title_lines.push_back("shaded: ± one standard error of the interval blocks");
  if (!rdf) title_lines.push_back("no g(r): the run had no periodic box and no --volume");
  s << "set title " << gnuplot_lines(title_lines) << "\n";
  s << "set xlabel " << gnuplot_quote(r_axis_label(run.length_unit)) << "\n";
  s << "set ylabel " << gnuplot_quote(rdf ? "g(r)" : "pairs per bin and frame") << "\n";
  s << "set xrange [0:" << number(run.r_max) << "]\n";
  s << "set yrange [0:*]\n";
  s << "set grid\n";
  s << "set key top right box opaque\n";
  s << "set datafile missing 'NaN'\n";
  s << "set style fill transparent solid 0.25 noborder\n";
  if (coordination) {
    s << "set y2label 'n(r), coordination number (dashed)'\n";
    s << "set ytics nomirror\nset y2tics\nset y2range [0:*]\n";
  }

  // One datablock per pair: r, y, n, y - err, y + err.
  for (size_t i = 0; i < pairs.size(); ++i) {
    const io::RunOutputPair& p = run.pairs[pairs[i]];
    s << "$pair" << i << " << EOD\n";
    for (size_t k = 0; k < run.r.size(); ++k) {
      const double y = rdf ? p.g[k] : p.counts[k] * per_frame;
      const double err = errors ? p.g_error[k] : 0;
      s << number(run.r[k]) << ' ' << number(y) << ' '
        << number(coordination ? p.coordination[k] : 0) << ' ' << number(y - err) << ' '
        << number(y + err) << '\n';
    }
    s << "EOD\n";
  }

  s << "plot";
  const char* sep = " ";
  for (size_t i = 0; i < pairs.size(); ++i) {
    const std::string label = run.pairs[pairs[i]].label;
    const std::string block = "$pair" + std::to_string(i);
    const std::string lt = std::to_string(i + 1);
    if (errors) {
      s << sep << block << " using 1:4:5 with filledcurves lc " << lt << " notitle";
      sep = ", \\\n     ";
    }
    // Counts are a histogram: steps show the bins; g(r) reads better as a line.
    s << sep << block << " using 1:2 with " << (rdf ? "lines" : "histeps") << " lt " << lt
      << " lw 2 title " << gnuplot_quote(label);
    sep = ", \\\n     ";
    if (coordination)
      s << sep << block << " using 1:3 axes x1y2 with lines lt " << lt << " lw 1.5 dt 2 title "
        << gnuplot_quote("n " + label);
  }
  // g = 1 is the ideal-gas limit every g(r) tends to.
  if (rdf) s << sep << "1 with lines lc rgb 'gray50' dt 3 notitle";
  s << "\nunset output\n";
  return s.str();
}

double reliable_q_min(const io::QTable& table) {
  for (const std::string& line : table.comments) {
    const size_t at = line.find(kReliableRange);
    if (at == std::string::npos) continue;
    const double q = std::strtod(line.c_str() + at + std::strlen(kReliableRange), nullptr);
    if (q > 0 && std::isfinite(q)) return q;
  }
  return 0;
}

std::string q_table_gnuplot_script(const io::QTable& table, const std::string& source,
                                   const std::vector<size_t>& columns, const std::string& total,
                                   const PlotStyle& style) {
  // A periodic run's curves (S(q), the cut-sphere I(q), their excess) go on linear axes, the
  // range below 2 pi / r_max shaded; a cluster's intensity spans decades in q and I: log axes.
  const double q_min = reliable_q_min(table);
  const bool log_x = total != "S" && q_min == 0;
  const bool log_y = total == "I" && q_min == 0;
  // Each column's error column, <total>err<rest> beside <total><rest>, where the table has it.
  std::vector<const std::vector<double>*> errors;
  for (size_t c : columns) {
    const std::string& name = table.columns[c].first;
    const std::string err = total + "err" + name.substr(total.size());
    errors.push_back(nullptr);
    for (const auto& col : table.columns)
      if (col.first == err) errors.back() = &col.second;
  }
  const bool bands =
      std::any_of(errors.begin(), errors.end(), [](auto* e) { return e != nullptr; });

  std::ostringstream s;
  s << "# pairhist plot: " << total << "(q) from " << gnuplot_quote(source) << "\n";
  preamble(s, style);
  // A log axis has no place for q = 0 or, for I, values <= 0 (cross partials): they are left out
  // and counted.
  size_t left_out = 0, drawn = 0;
  std::ostringstream data;
  data << "$q << EOD\n";
  for (size_t i = 0; i < table.q.size(); ++i) {
    const bool q_shown = !log_x || table.q[i] > 0;
    data << number(q_shown ? table.q[i] : NAN);
    for (size_t k = 0; k < columns.size(); ++k) {
      const double v = table.columns[columns[k]].second[i];
      const bool show = q_shown && std::isfinite(v) && (!log_y || v > 0);
      (show ? drawn : left_out) += 1;
      const double e = errors[k] ? (*errors[k])[i] : NAN;
      const double lo = v - e, hi = v + e;
      data << ' ' << number(show ? v : NAN) << ' ' << number(show && (!log_y || lo > 0) ? lo : NAN)
           << ' ' << number(show ? hi : NAN);
    }
    data << '\n';
  }
  data << "EOD\n";
  std::vector<std::string> title_lines = {
      style.title.empty() ? (table.title.empty() ? std::string("Scattering") : table.title)
                          : style.title};
  if (bands) title_lines.push_back("shaded: ± one standard error of the interval blocks");
  if (q_min > 0) {
    char short_q[32];
    std::snprintf(short_q, sizeof short_q, "%.3g", q_min);
    title_lines.push_back(std::string("grey: q < 2π / r_max = ") + short_q +
                          " /nm, where the cut at r_max decides the curve (not reliable)");
  }
  if (left_out > 0)
    title_lines.push_back(std::to_string(left_out) + " of " + std::to_string(left_out + drawn) +
                          " points not drawn (" + (log_x ? "q = 0, " : "") +
                          (log_y ? "I <= 0, " : "") + "not a number)");
  s << "set title " << gnuplot_lines(title_lines) << "\n";
  s << "set xlabel 'q (" << (table.q_unit == "A" ? "A" : "nm") << "^-1)'\n";
  s << "set ylabel " << gnuplot_quote(table.y_label) << "\n";
  if (log_x) s << "set logscale x\n";
  if (log_y) s << "set logscale y\nset format y '%g'\n";
  if (!log_x) s << "set xrange [0:*]\n";
  if (q_min > 0) {
    s << "set object 1 rect from graph 0, graph 0 to first " << number(q_min)
      << ", graph 1 behind fillcolor rgb 'gray85' fillstyle solid 0.6 noborder\n";
    s << "set arrow 1 from first " << number(q_min) << ", graph 0 to first " << number(q_min)
      << ", graph 1 nohead dt 2 lc rgb 'gray40'\n";
    s << "set label 1 " << gnuplot_quote("2π/r_max") << " at first " << number(q_min)
      << ", graph 0.04 left offset 0.5,0 textcolor rgb 'gray30'\n";
  }
  s << "set grid\nset key top right box opaque\nset datafile missing 'NaN'\n";
  s << "set style fill transparent solid 0.25 noborder\n";
  s << data.str();
  s << "plot";
  const char* sep = " ";
  for (size_t i = 0; i < columns.size(); ++i) {
    if (!errors[i]) continue;
    s << sep << "$q using 1:" << 3 * i + 3 << ":" << 3 * i + 4 << " with filledcurves lc " << i + 1
      << " notitle";
    sep = ", \\\n     ";
  }
  for (size_t i = 0; i < columns.size(); ++i) {
    s << sep << "$q using 1:" << 3 * i + 2 << " with lines lt " << i + 1 << " lw "
      << (i == 0 ? 2.5 : 1.5) << " title " << gnuplot_quote(table.columns[columns[i]].first);
    sep = ", \\\n     ";
  }
  if (total == "S") s << sep << "1 with lines lc rgb 'gray50' dt 3 notitle";
  if (total == "dI" || (total == "I" && !log_y))
    s << sep << "0 with lines lc rgb 'gray50' dt 3 notitle";
  s << "\nunset output\n";
  return s.str();
}

}  // namespace pairhist
