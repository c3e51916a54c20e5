#include "io/scattering/q_file_reader.hpp"

#include <cmath>
#include <fstream>
#include <locale>
#include <sstream>

#include "io/common/input_path.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {
namespace {

/// All of `text` as a finite number, '.' the decimal point whatever the locale.
bool q_value(const std::string& text, double& value) {
  std::istringstream in(text);
  in.imbue(std::locale::classic());
  return static_cast<bool>(in >> value) && (in >> std::ws).eof() && std::isfinite(value);
}

}  // namespace

std::vector<double> read_q_file(const std::string& path, size_t max_values,
                                const std::string& unit) {
  require_input_file(path);
  std::ifstream in(path);
  if (!in) throw InputError("cannot read '" + path + "': cannot open the file");
  std::vector<double> q;
  size_t line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    const std::string where = path + " line " + std::to_string(line_no) + ": ";
    line = line.substr(0, line.find_first_of("#;@"));
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::istringstream fields(line);
    std::string first, more;
    fields >> first;
    // A line is one q, whatever else it might have meant (a row of q values, a measured curve).
    if (fields >> more)
      throw InputError(where + "'" + excerpt(line) +
                       "' holds more than one value: a q file holds one q (" + unit +
                       ") per line (of a "
                       "measured curve, its q column alone)");
    double v = 0;
    if (!q_value(first, v) || v < 0 || (!q.empty() && v <= q.back()))
      throw InputError(where + "'" + excerpt(first) + "' is not a q (" + unit +
                       ") above the previous one");
    if (q.size() == max_values)
      throw InputError(where + "more than " + std::to_string(max_values) +
                       " q values, the most a q file (or --nq) may give");
    q.push_back(v);
  }
  if (q.empty()) throw InputError(path + ": no q values");
  return q;
}

}  // namespace pairhist::io
