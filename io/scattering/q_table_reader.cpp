#include "io/scattering/q_table_reader.hpp"

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "io/common/input_path.hpp"
#include "io/common/text_lines.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {

namespace {

std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string cell; std::getline(in, cell, ',');) {
    while (!cell.empty() && (cell.back() == '\r' || cell.back() == ' ')) cell.pop_back();
    out.push_back(cell);
  }
  return out;
}

}  // namespace

bool is_q_table_csv(const std::string& path) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("#", 0) != 0)
      return line.rfind("q_per_nm", 0) == 0 || line.rfind("q_per_A", 0) == 0;
  return false;
}

QTable read_q_table_csv(const std::string& path) {
  require_input_file(path);
  std::ifstream in(path);
  if (!in) throw InputError("cannot read '" + path + "': cannot open the file");
  QTable t;
  std::vector<std::string> names;
  size_t line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    const std::string where = path + " line " + std::to_string(line_no) + ": ";
    if (line.rfind("#", 0) == 0) {
      if (names.empty()) t.comments.push_back(line.substr(line.rfind("# ", 0) == 0 ? 2 : 1));
      continue;
    }
    const std::vector<std::string> row = cells(line);
    if (names.empty()) {
      if (row.empty() || (row[0] != "q_per_nm" && row[0] != "q_per_A") || row.size() < 2)
        throw InputError(where + "expected the header q_per_nm,COLUMN,... (or q_per_A,...)");
      t.q_unit = row[0] == "q_per_A" ? "A" : "nm";
      names = row;
      for (size_t c = 1; c < names.size(); ++c) t.columns.push_back({names[c], {}});
      continue;
    }
    if (row.empty()) continue;
    if (row.size() != names.size())
      throw InputError(where + std::to_string(row.size()) + " cells, the header has " +
                       std::to_string(names.size()));
    for (size_t c = 0; c < row.size(); ++c) {
      double v = 0;
      if (row[c] == "nan" || row[c] == "-nan")
        v = std::numeric_limits<double>::quiet_NaN();
      else if (!text::parse_double(row[c], v))
        throw InputError(where + "'" + row[c] + "' is not a number");
      (c == 0 ? t.q : t.columns[c - 1].second).push_back(v);
    }
  }
  if (names.empty())
    throw InputError("cannot read '" + path + "': no q_per_nm (or q_per_A) header");
  if (t.q.empty()) throw InputError("cannot read '" + path + "': no rows");
  return t;
}

}  // namespace pairhist::io
