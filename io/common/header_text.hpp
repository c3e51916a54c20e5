// User text (a species name, a selection, a command line) as it may stand in a header line of an
// output file: one line, no terminal controls. A raw line break in a selection once ended an
// .xvg comment early, and the rest of the "comment" stopped np.loadtxt on the file.
#pragma once

#include <string>
#include <string_view>

#include "pairhist/errors.hpp"

namespace pairhist::io {

/// `text` with its control characters written as \n, \r, \t or \xNN (as excerpt() writes them)
/// and each '"' replaced by `quote_replacement` (grace strings and quoted comments end at one).
inline std::string header_text(std::string_view text, char quote_replacement = '"') {
  std::string out = excerpt(text, std::string_view::npos);
  for (char& c : out)
    if (c == '"') c = quote_replacement;
  return out;
}

}  // namespace pairhist::io
