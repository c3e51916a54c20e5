// Reads back the CSV of io/scattering/scattering_writers.hpp (intensity.csv, sq.csv) for `pairhist
// plot`.
#pragma once

#include <string>

#include "io/scattering/scattering_writers.hpp"

namespace pairhist::io {

/// True if `path` is a CSV whose first line after the '#' comments starts with "q_per_nm" or
/// "q_per_A".
bool is_q_table_csv(const std::string& path);

/// The comments (without "# "), the q column (q_unit "nm" or "A", as its name says) and every
/// other column by name, in file order.
/// "nan" cells are NaN. Throws InputError naming the file and line for anything else: no header,
/// a row of the wrong length, a cell that is not a number, no rows.
QTable read_q_table_csv(const std::string& path);

}  // namespace pairhist::io
