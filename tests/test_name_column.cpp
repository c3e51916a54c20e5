// Per-atom text columns stored as ids into a table of distinct values (analysis/name_column).
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "analysis/name_column.hpp"
#include "analysis/selection.hpp"

using pairhist::analysis::NameColumn;

TEST_CASE("a name column reads back what was stored, each distinct value kept once") {
  std::mt19937 rng(std::random_device{}());
  std::vector<std::string> values;
  for (int i = 0; i < 5000; ++i) {
    // Runs of repeats (as in a file) and a tail of many distinct values.
    const int pick = i < 4000 ? static_cast<int>(rng() % 7) : i;
    values.push_back(pick == 6 ? std::string() : "N" + std::to_string(pick));
  }
  NameColumn column(values);
  REQUIRE(column.size() == values.size());
  CHECK(column == values);
  CHECK(column.to_vector() == values);
  std::vector<std::string> sorted = column.distinct();
  std::sort(sorted.begin(), sorted.end());
  CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
  for (size_t i = 0; i < values.size(); ++i)
    REQUIRE(column.distinct()[column.ids()[i]] == values[i]);

  NameColumn pushed;
  for (const auto& v : values) pushed.push_back(v);
  CHECK(pushed == column);
  pushed.set(3, "changed");
  CHECK(pushed[3] == "changed");
  CHECK(pushed != column);
  CHECK(pushed.contains("changed"));
  CHECK_FALSE(pushed.contains("N999999"));
}

TEST_CASE("a column made from ids is checked, and interns further values against its table") {
  NameColumn column({"OW", "HW1"}, {0, 1, 1, 0});
  CHECK(column == std::vector<std::string>{"OW", "HW1", "HW1", "OW"});
  column.push_back("HW1");
  column.push_back("NA");
  CHECK(column.distinct() == std::vector<std::string>{"OW", "HW1", "NA"});
  CHECK(column.back() == "NA");
  CHECK_THROWS_AS(NameColumn({"OW"}, {0, 1}), std::logic_error);
  column.assign(3, "CL");
  CHECK(column == std::vector<std::string>{"CL", "CL", "CL"});
}

TEST_CASE("a value only a replaced atom had is no longer a value of the column") {
  NameColumn column = {"OW", "HW1", "NA"};
  column.set(2, "OW");
  CHECK_FALSE(column.contains("NA"));
  pairhist::analysis::Topology t;
  t.atom_names = column;
  t.residue_names = {"SOL", "SOL", "SOL"};
  t.residue_numbers = {1, 1, 1};
  // "NA" is no atom's name now: a bare word is no hint for 'name NA'.
  CHECK(pairhist::analysis::select_atoms(t, "name OW", "t.gro") == std::vector<int>{0, 2});
}
