// The %FLAG sections of an AMBER parm7/prmtop file, split by their Fortran %FORMAT lines
// (ambermd.org/prmtop.pdf): the text layer under read_parm7.
#pragma once

#include <string>
#include <vector>

namespace pairhist::io {

/// One section of a parm7 file: its %FLAG name, the values of its data lines split by its
/// %FORMAT (strings for an 'a' format, else numbers as written) and the line of its %FLAG.
struct Parm7Section {
  std::string flag;
  char kind = 0;  // 'a' text, 'i' integer, 'e' real (E, F, D, G formats)
  std::vector<std::string> values;
  long long line = 0;
};

/// Splits parm7 text into its sections (a test and the fuzz harness use it directly); throws
/// InputError naming `path` and the line.
std::vector<Parm7Section> parse_parm7_sections(const std::string& text, const std::string& path);

}  // namespace pairhist::io
