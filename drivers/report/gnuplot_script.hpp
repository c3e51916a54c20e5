// The gnuplot script that `pairhist plot` feeds to gnuplot: data inline (datablocks), so no
// temporary data files are needed and the script alone reproduces the figure.
#pragma once

#include <string>
#include <vector>

#include "io/results/run_output_reader.hpp"
#include "io/scattering/scattering_writers.hpp"

namespace pairhist {

struct PlotStyle {
  std::string terminal = "pngcairo";  // "pngcairo" or "svg"
  std::string output;                 // the file gnuplot writes
  int width = 900, height = 600;      // pixels
  std::string title;                  // empty: a title made from the run
  bool coordination = false;          // n(r) on a second y axis (ignored without g(r))
};

/// A complete gnuplot script drawing, for each pair index in `pairs` (into run.pairs), g(r) as a
/// line with its block-average standard error as a shaded band when the run has one, optionally
/// n(r) dashed on the right axis; a run without g(r) gets pair counts per frame instead. Labels
/// and the title are plain text (gnuplot's enhanced mode is off, so '_' or '^' in species names
/// print as they are).
std::string gnuplot_script(const io::RunOutput& run, const std::vector<size_t>& pairs,
                           const PlotStyle& style);

/// The header line of a periodic run's scattering table (intensity, sq, excess .csv) that gives
/// the start of its reliable q range, 2 pi / r_max, in 1/nm: written by `pairhist scattering`
/// after this text (the number follows), read back by reliable_q_min().
inline constexpr const char* kReliableRange = "reliable range: q >= 2 pi / r_max = ";

/// The start of the reliable q range a table's header gives (kReliableRange); 0 where it gives
/// none (a run without a box, or a file written before it).
double reliable_q_min(const io::QTable& table);

/// A gnuplot script drawing the columns `columns` (indices into table.columns) of a
/// `pairhist scattering` output over q; `total` names its kind: "I", "S" or "dI" (an excess).
/// Every column with an error column beside it (<total>err<rest>: Ierr, Serr_A-B, dIerr) gets a
/// shaded band of +- one standard error. A table with a reliable range (a periodic run:
/// reliable_q_min() > 0) goes on linear axes, the range below 2 pi / r_max shaded grey with a
/// labelled line at its edge; so does every S(q). Otherwise an intensity goes on logarithmic axes
/// (points at q = 0 or I <= 0 are not drawn, and the title says how many were left out), an excess
/// on a logarithmic q axis. S = 1 is dotted for S(q), 0 for an intensity on a linear axis.
std::string q_table_gnuplot_script(const io::QTable& table, const std::string& source,
                                   const std::vector<size_t>& columns, const std::string& total,
                                   const PlotStyle& style);

/// The axis label for r in `length_unit` ("r (nm)", "r (Å)").
std::string r_axis_label(const std::string& length_unit);

/// `s` as a gnuplot single-quoted string literal (no escapes inside; a quote is doubled; line
/// breaks become spaces so text cannot end the command).
std::string gnuplot_quote(const std::string& s);

}  // namespace pairhist
