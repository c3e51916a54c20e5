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

/// A gnuplot script drawing the columns `columns` (indices into table.columns) of a
/// `pairhist scattering` output over q on a logarithmic q axis: an intensity (y_label "I(q)") on a
/// logarithmic y axis too, where points at q = 0 or I <= 0 are not drawn (the title says how many
/// were left out); a structure factor on a linear y axis (S oscillates about 1 and partials go
/// negative), with S = 1 dotted.
std::string q_table_gnuplot_script(const io::QTable& table, const std::string& source,
                                   const std::vector<size_t>& columns, bool intensity,
                                   const PlotStyle& style);

/// The axis label for r in `length_unit` ("r (nm)", "r (Å)").
std::string r_axis_label(const std::string& length_unit);

/// `s` as a gnuplot single-quoted string literal (no escapes inside; a quote is doubled; line
/// breaks become spaces so text cannot end the command).
std::string gnuplot_quote(const std::string& s);

}  // namespace pairhist
