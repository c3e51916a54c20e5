// Species selections: the plain atom-name list and the expression language.
#include <doctest/doctest.h>

#include <string>

#include "pairhist/errors.hpp"
#include "selection.hpp"

using namespace pairhist;

namespace {

/// Two waters and two ions: atoms 1..8 in .gro numbering.
io::Topology small_topology() {
  io::Topology t;
  t.atom_names = {"OW", "HW1", "HW2", "OW", "HW1", "HW2", "NA", "CL"};
  t.residue_names = {"SOL", "SOL", "SOL", "SOL", "SOL", "SOL", "NA", "CL"};
  t.residue_numbers = {1, 1, 1, 2, 2, 2, 3, 4};
  return t;
}

std::vector<int> sel(const std::string& text) {
  return io::select_atoms(small_topology(), text, "top.gro");
}

}  // namespace

TEST_CASE("plain atom-name lists and globs") {
  CHECK(sel("OW") == std::vector<int>{0, 3});
  CHECK(sel("HW1,HW2") == std::vector<int>{1, 2, 4, 5});
  CHECK(sel(" HW* ") == std::vector<int>{1, 2, 4, 5});
  CHECK(sel("NA,CL") == std::vector<int>{6, 7});
}

TEST_CASE("expressions: keywords, ranges, boolean operators, parentheses") {
  CHECK(sel("name OW") == std::vector<int>{0, 3});
  CHECK(sel("resname SOL and name H*") == std::vector<int>{1, 2, 4, 5});
  CHECK(sel("resid 2") == std::vector<int>{3, 4, 5});
  CHECK(sel("resid 1-2 and not name OW") == std::vector<int>{1, 2, 4, 5});
  CHECK(sel("resid 2:3") == std::vector<int>{3, 4, 5, 6});
  CHECK(sel("index 1 7-8") == std::vector<int>{0, 6, 7});
  CHECK(sel("name OW or (resname NA CL and not resid 4)") == std::vector<int>{0, 3, 6});
  CHECK(sel("not resname SOL") == std::vector<int>{6, 7});
  CHECK(sel("all").size() == 8);
  // and binds tighter than or
  CHECK(sel("name NA or name OW and resid 1") == std::vector<int>{0, 6});
}

TEST_CASE("bad selections: one-line errors naming the selection") {
  CHECK_THROWS_AS(sel("name"), UsageError);
  CHECK_THROWS_AS(sel("resid x"), UsageError);
  CHECK_THROWS_AS(sel("resid 5-2"), UsageError);
  CHECK_THROWS_AS(sel("(name OW"), UsageError);
  CHECK_THROWS_AS(sel("name OW )"), UsageError);
  CHECK_THROWS_AS(sel("name OW and"), UsageError);
  CHECK_THROWS_AS(sel(""), UsageError);
  try {
    sel("name XX");
    FAIL("expected an error");
  } catch (const InputError& e) {
    const std::string msg = e.what();
    CHECK(msg.find("top.gro") != std::string::npos);
    CHECK(msg.find("name XX") != std::string::npos);
  }
  try {
    sel("resid 1 and (name OW");
    FAIL("expected an error");
  } catch (const UsageError& e) {
    CHECK(std::string(e.what()).find("resid 1 and (name OW") != std::string::npos);
  }
}
