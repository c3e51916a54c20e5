// `pairhist plot`: draws the g(r) (or, for runs without a box, the pair counts) of a finished run,
// or the I(q) or S(q) that `pairhist scattering` wrote, with gnuplot, as PNG or SVG.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace pairhist {

struct PlotOptions {
  std::string input;   // run output directory, its pairhist.h5 or rdf.csv; intensity.csv, sq.csv
  std::string output;  // .png or .svg; empty: rdf.png next to the input
  std::vector<std::string> pairs;  // "A-B" labels (either order); empty: every pair
  bool coordination = false;
  std::string title;  // empty: made from the run
  int width = 900, height = 600;
  bool overwrite = false;  // replace an existing plot without keeping a backup #NAME.N#
};

struct PlotResult {
  std::string output;              // the file written
  std::vector<std::string> pairs;  // labels drawn (column names for I(q), S(q))
  bool counts_only = false;        // the run had no g(r): counts per frame were drawn
  std::string quantity;            // "g(r)", "pair counts", "I(q)" or "S(q)"
  std::vector<std::string> notes;  // about the run's file (io::RunOutput::notes)
};

/// Reads the run, writes the plot atomically with gnuplot (the program in $PAIRHIST_GNUPLOT, or
/// `gnuplot` on PATH). Throws UsageError for bad options (extension, unknown pair, size),
/// InputError for an unreadable run, OutputError if gnuplot is missing or fails (its last message
/// included) or the file cannot be written.
PlotResult plot_run(const PlotOptions& options);

/// Adds the `plot` subcommand to app.
void add_plot_command(CLI::App& app);

}  // namespace pairhist
