// Text outputs of `pairhist scattering`: a table of curves over q (intensities, partials, weights)
// as CSV for scripts and as a GROMACS-style .xvg for xmgrace, both written atomically.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace pairhist::io {

struct QTable {
  std::vector<std::string> comments;  // one line each, written as "# ..." at the top
  std::string title, y_label;         // for the .xvg
  std::vector<double> q;              // in 1/q_unit
  std::string q_unit = "nm";          // nm or A: the CSV's first column is q_per_nm or q_per_A
  std::vector<std::pair<std::string, std::vector<double>>> columns;  // name, one value per q
};

/// CSV: the comments, a header row `q_per_nm,<names...>` (`q_per_A` for q_unit "A"), one row per
/// q (10 significant digits).
/// Throws std::logic_error if a column's length differs from q's, OutputError naming `path` if
/// the file cannot be written.
void write_q_table_csv(const std::string& path, const QTable& table);

/// .xvg: the comments, an xmgrace header (title, axes, one legend per column), then the first
/// `n_columns` columns (all if larger) over q. Same errors as write_q_table_csv.
void write_q_table_xvg(const std::string& path, const QTable& table, size_t n_columns);

}  // namespace pairhist::io
