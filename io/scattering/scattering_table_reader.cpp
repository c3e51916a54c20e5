#include "io/scattering/scattering_table_reader.hpp"

#include <cmath>
#include <fstream>
#include <locale>
#include <sstream>
#include <vector>

#include "io/common/input_path.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {

analysis::ScattererTable read_scatterer_table(const std::string& path) {
  require_input_file(path);
  std::ifstream in(path);
  if (!in) throw InputError("cannot read '" + path + "': cannot open the file");
  analysis::ScattererTable table;
  size_t line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    auto fail = [&](const std::string& what) {
      throw InputError(path + " line " + std::to_string(line_no) + ": " + what);
    };
    line = line.substr(0, line.find_first_of("#;"));
    std::istringstream fields(line);
    fields.imbue(std::locale::classic());
    std::string key;
    if (!(fields >> key)) continue;
    std::vector<double> numbers;
    for (std::string field; fields >> field;) {
      std::istringstream number(field);
      number.imbue(std::locale::classic());
      double v = 0;
      if (!(number >> v) || !(number >> std::ws).eof() || !std::isfinite(v))
        fail("'" + excerpt(field) + "' is not a number");
      numbers.push_back(v);
    }
    analysis::ScattererWeight w;
    w.source = "table " + path;
    if (numbers.size() == 1) {
      w.c = numbers[0];
    } else if (numbers.size() == 9) {
      for (size_t i = 0; i < 4; ++i) {
        w.a[i] = numbers[i];
        w.b[i] = numbers[4 + i];
      }
      w.c = numbers[8];
    } else if (numbers.size() == 11) {
      for (size_t i = 0; i < 5; ++i) {
        w.a[i] = numbers[i];
        w.b[i] = numbers[5 + i];
      }
      w.c = numbers[10];
    } else {
      fail(std::to_string(numbers.size()) + " numbers after '" + excerpt(key) +
           "': expected 1 (a constant weight), 9 (Cromer-Mann: a1 a2 a3 a4 b1 b2 b3 b4 c) or "
           "11 (Waasmaier-Kirfel: a1..a5 b1..b5 c)");
    }
    if (!table.emplace(key, w).second) fail("'" + excerpt(key) + "' is given twice");
    const std::string label = analysis::canonical_scatterer_label(key);
    if (!label.empty() && label != key) table.emplace(label, w);
  }
  return table;
}

}  // namespace pairhist::io
