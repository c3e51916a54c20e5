// A q file (`pairhist scattering --q-file FILE`, `run --scattering --q-file`): the q values the
// intensities are computed at.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace pairhist::io {

/// Reads `path`: one q (in `unit`, "1/nm" or "1/A", which the messages name) per line, not negative
/// and increasing; `#`, `;` and `@` start comments (an .xvg's header is skipped), blank lines are
/// skipped. Throws InputError naming the file and line for a line of several values (`1 2 3` was
/// once read as q = 1), a value that is no number or not above the previous one, more than
/// `max_values` values, or none; and for a path that is no readable file
/// (io/common/input_path.hpp).
std::vector<double> read_q_file(const std::string& path, size_t max_values,
                                const std::string& unit = "1/nm");

}  // namespace pairhist::io
