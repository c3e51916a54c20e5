// The columns of a `pairhist scattering` CSV (intensity.csv, sq.csv, excess.csv) by name, for
// the scattering tests.
#pragma once

#include <doctest/doctest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_support.hpp"

namespace pairhist::test {

/// Columns of the CSV at `path` by name; the '#' lines in `comments`.
inline std::map<std::string, std::vector<double>> read_scattering_csv(
    const std::string& path, std::string* comments = nullptr) {
  std::istringstream in(read_all(path));
  std::vector<std::string> names;
  std::map<std::string, std::vector<double>> columns;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("#", 0) == 0) {
      if (comments != nullptr) *comments += line + "\n";
      continue;
    }
    std::istringstream fields(line);
    std::vector<std::string> cells;
    for (std::string cell; std::getline(fields, cell, ',');) cells.push_back(cell);
    if (names.empty()) {
      names = cells;
      continue;
    }
    REQUIRE(cells.size() == names.size());
    for (size_t c = 0; c < cells.size(); ++c) columns[names[c]].push_back(std::stod(cells[c]));
  }
  return columns;
}

}  // namespace pairhist::test
