// Species selections: the plain atom-name list and the expression language.
#include <doctest/doctest.h>

#include <string>

#include "analysis/selection.hpp"
#include "io/topology/gro_reader.hpp"
#include "pairhist/errors.hpp"
#include "tests/small_topology.hpp"
#include "tests/test_paths.hpp"

using namespace pairhist;

namespace {

using test::small_topology;

std::vector<int> sel(const std::string& text) {
  return analysis::select_atoms(small_topology(), text, "top.gro");
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

TEST_CASE("GROMACS ranges 'A to B' equal the numbers spelled out") {
  CHECK(sel("resid 1 to 3") == sel("resid 1 2 3"));
  CHECK(sel("resid 1 to 3") == std::vector<int>{0, 1, 2, 3, 4, 5, 6});
  CHECK(sel("resid 2 to 2") == sel("resid 2"));
  CHECK(sel("index 2 to 4 8") == sel("index 2 3 4 8"));
  CHECK(sel("index 1 3 to 4 7-8") == std::vector<int>{0, 2, 3, 6, 7});
  CHECK(sel("index 1 to 2 5 to 6") == std::vector<int>{0, 1, 4, 5});
  // As gmx 2022 (`gmx select`: "atomnr 5 to 3 7" is atoms 3 4 5 7), a reversed range is read
  // in order.
  CHECK(sel("index 5 to 3 7") == std::vector<int>{2, 3, 4, 6});
  CHECK(sel("resid 3 to 1") == sel("resid 1 to 3"));
  CHECK(sel("resid 1 to 2 and name OW") == std::vector<int>{0, 3});
  CHECK(sel("not resid 2 to 4") == std::vector<int>{0, 1, 2});
  CHECK(sel("(resid 1 to 2)") == std::vector<int>{0, 1, 2, 3, 4, 5});
}

TEST_CASE("'A to B' on the bundled water topology: the spelled-out lists gmx users wrote") {
  const analysis::Topology top = io::read_gro(test::data_dir() + "/spce_water.gro");
  const auto pick = [&](const std::string& text) {
    return analysis::select_atoms(top, text, "spce_water.gro");
  };
  const auto spelled = [](const std::string& keyword, int lo, int hi) {
    std::string text = keyword;
    for (int k = lo; k <= hi; ++k) text += " " + std::to_string(k);
    return text;
  };
  CHECK(pick("resid 1 to 10") == pick(spelled("resid", 1, 10)));
  CHECK(pick("resid 1 to 10").size() == 30);
  CHECK(pick("resid 5 to 8 12") == pick(spelled("resid", 5, 8) + " 12"));
  CHECK(pick("index 1 to 100") == pick(spelled("index", 1, 100)));
  // gmx's own names of the same numbers (gmx select picks atoms 4-9 for each of these).
  CHECK(pick("resnr 2 to 3") == pick("resid 2 to 3"));
  CHECK(pick("atomnr 4 to 9") == pick("index 4 to 9"));
  CHECK(pick("resid 2 to 3") == pick("index 4 to 9"));
  CHECK(pick("name OW and resid 11 to 40") == pick("name OW and " + spelled("resid", 11, 40)));
}

TEST_CASE("bad 'A to B' ranges: one-line errors") {
  const auto message = [](const std::string& text) {
    try {
      sel(text);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const auto has = [](const std::string& m, const std::string& part) {
    return m.find(part) != std::string::npos && m.find('\n') == std::string::npos;
  };
  CHECK(has(message("resid 1 to"), "needs a number after 'to'"));
  CHECK(has(message("resid 1 to and name OW"), "needs a number after 'to'"));
  CHECK(has(message("resid to 5"), "needs a number before it"));
  CHECK(has(message("index 1 to 2 to 3"), "one 'to' per range"));
  CHECK(has(message("index 1 to x"), "'x' is not a number after '1 to'"));
  CHECK(has(message("index 1-2 to 4"), "'1-2' is not a number before 'to'"));
  CHECK(has(message("index 1 to 99999999999999999999"), "is not a number after"));
  CHECK(has(message("resid 1 to to 3"), "needs a number after 'to'"));
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

namespace {

std::string usage_error_of(const analysis::Topology& top, const std::string& text,
                           const std::string& path) {
  try {
    analysis::select_atoms(top, text, path);
  } catch (const UsageError& e) {
    return e.what();
  }
  FAIL("expected a UsageError for '" << text << "'");
  return "";
}

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("element: case-insensitive globs over the symbols the topology states") {
  analysis::Topology t = small_topology();
  t.elements = {"O", "H", "H", "O", "H", "H", "Na", "Cl"};
  auto el = [&](const std::string& text) { return analysis::select_atoms(t, text, "top.pdb"); };
  CHECK(el("element O") == std::vector<int>{0, 3});
  CHECK(el("element o") == std::vector<int>{0, 3});
  CHECK(el("element Na Cl") == std::vector<int>{6, 7});
  CHECK(el("element NA cl") == std::vector<int>{6, 7});
  CHECK(el("element C*") == std::vector<int>{7});  // Cl, not Na
  CHECK(el("element ?") == std::vector<int>{0, 1, 2, 3, 4, 5});
  CHECK(el("element O and resname SOL and resid 2") == std::vector<int>{3});
  CHECK(el("not element H O") == std::vector<int>{6, 7});
  CHECK(el("(element H) or name NA") == std::vector<int>{1, 2, 4, 5, 6});
  // The element is not the name: name NA is sodium here, but no atom has element "N".
  CHECK_THROWS_AS(el("element N"), InputError);
}

TEST_CASE("type: globs over LAMMPS-style atom types, case-sensitive like names") {
  analysis::Topology t = small_topology();
  t.types = {"1", "2", "2", "1", "2", "2", "3", "10"};
  auto ty = [&](const std::string& text) {
    return analysis::select_atoms(t, text, "dump.lammpstrj");
  };
  CHECK(ty("type 1") == std::vector<int>{0, 3});
  CHECK(ty("type 1?") == std::vector<int>{7});
  CHECK(ty("type 3 10") == std::vector<int>{6, 7});
  CHECK(ty("type 2 and resid 2") == std::vector<int>{4, 5});
}

TEST_CASE("element/type where the topology lacks them: one-line UsageError naming the file") {
  analysis::Topology gro = small_topology();  // no elements, no types, as read_gro gives
  std::string msg = usage_error_of(gro, "element O", "data/x.gro");
  CHECK(has(msg, "data/x.gro"));
  CHECK(has(msg, "'element O'"));
  CHECK(has(msg, "'name'"));
  CHECK_FALSE(has(msg, "'type'"));
  CHECK(msg.find('\n') == std::string::npos);
  msg = usage_error_of(gro, "type 1", "data/x.gro");
  CHECK(has(msg, "data/x.gro"));
  CHECK(has(msg, "'name'"));
  CHECK_FALSE(has(msg, "'element'"));

  analysis::Topology lmp = small_topology();
  lmp.types = lmp.atom_names;
  msg = usage_error_of(lmp, "name OW or element O", "run.lammpstrj");
  CHECK(has(msg, "run.lammpstrj"));
  CHECK(has(msg, "'type'"));

  analysis::Topology pdb = small_topology();
  pdb.elements = {"O", "H", "H", "O", "", "H", "Na", ""};
  msg = usage_error_of(pdb, "element H", "x.pdb");
  CHECK(has(msg, "x.pdb"));
  CHECK(has(msg, "atom 5 (HW1)"));  // the first atom without one, 1-based
  CHECK(has(msg, "'name'"));
  msg = usage_error_of(pdb, "type 1", "x.pdb");
  CHECK(has(msg, "'element'"));

  // A .tpr's virtual sites (TIP4P's MW: mass 0, no atomic number) are no element: never
  // selected, no error. An atom with mass and no element still is one.
  analysis::Topology tip4p = small_topology();
  tip4p.elements = {"O", "H", "H", "", "H", "H", "Na", "Cl"};
  tip4p.masses = {16, 1, 1, 0, 1, 1, 23, 35.5};
  CHECK(analysis::select_atoms(tip4p, "element O H", "x.tpr") == std::vector<int>{0, 1, 2, 4, 5});
  CHECK(analysis::select_atoms(tip4p, "not element O H", "x.tpr") == std::vector<int>{3, 6, 7});
  tip4p.masses[3] = 16;
  CHECK(has(usage_error_of(tip4p, "element O", "x.tpr"), "atom 4 (OW)"));

  // Malformed use is still an error of the expression, whatever the topology.
  CHECK_THROWS_AS(sel("element"), UsageError);
  CHECK_THROWS_AS(sel("type and name OW"), UsageError);
}

TEST_CASE("hostile selections (found by fuzzing): bounded nesting, no pointer past a token") {
  // 100,000 levels of parentheses or `not` exhausted the stack of the recursive parser.
  const std::string deep = std::string(100000, '(') + "all" + std::string(100000, ')');
  const std::string message = usage_error_of(small_topology(), deep, "top.gro");
  CHECK(has(message, "nested deeper than 200 levels"));
  CHECK(message.size() < 400);  // the selection is shown cut short
  std::string nots;
  for (int k = 0; k < 100000; ++k) nots += "not ";
  CHECK(has(usage_error_of(small_topology(), nots + "all", "top.gro"), "nested deeper"));
  // 200 levels are fine.
  CHECK(sel(std::string(100, '(') + "not " + std::string(99, '(') + "name NA" +
            std::string(199, ')')) == std::vector<int>{0, 1, 2, 3, 4, 5, 7});
  // A range token whose number ends at a character that is not a separator.
  CHECK(has(usage_error_of(small_topology(), "index 13\xff", "top.gro"), "is not a number"));
  CHECK(has(usage_error_of(small_topology(), "resid 99999999999999999999", "top.gro"),
            "is not a number"));
}

TEST_CASE("selections echoed in errors stay on one line") {
  const std::string message = usage_error_of(small_topology(), "name OW\nand", "top.gro");
  CHECK(has(message, "name OW\\nand"));
  CHECK(message.find('\n') == std::string::npos);
}

TEST_CASE("excerpt: control characters escaped, long text cut") {
  CHECK(excerpt("plain") == "plain");
  CHECK(excerpt("a\nb\rc\td\x1b") == "a\\nb\\rc\\td\\x1b");
  CHECK(excerpt(std::string(100, 'x'), 10) == std::string(10, 'x') + "...");
  CHECK(excerpt("\xc3\x85ngstr\xc3\xb6m") == "\xc3\x85ngstr\xc3\xb6m");  // UTF-8 passes
}

namespace {

/// The UsageError or InputError message of a selection that must fail.
std::string error_of(const std::string& text, const analysis::IndexGroups* groups = nullptr) {
  try {
    analysis::select_atoms(small_topology(), text, "top.gro", groups);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a bare word where a keyword belongs is an error saying what was meant, never a name") {
  // Before issue 25 each of these selected the OW atoms, read as a list of names.
  CHECK_THROWS_AS(sel("nam OW"), UsageError);
  CHECK(error_of("nam OW").find("did you mean 'name'?") != std::string::npos);
  CHECK(error_of("atomname OW").find("did you mean 'name'?") != std::string::npos);
  CHECK(error_of("resnam SOL").find("did you mean 'resname'?") != std::string::npos);
  CHECK(error_of("resnum 1").find("did you mean 'resid'?") != std::string::npos);
  const std::string foo = error_of("foo OW");
  CHECK(foo.find("selection 'foo OW': unknown keyword 'foo' (keywords: name,") == 0);
  // Names without keywords: the spelling that works.
  CHECK(error_of("NA or CL").find("write 'name NA or name CL'") != std::string::npos);
  CHECK(error_of("name OW or CL").find("e.g. 'name CL'") != std::string::npos);
  CHECK(error_of("name OW or SOL").find("e.g. 'resname SOL'") != std::string::npos);
  // The list offered is the names given, not an example's.
  CHECK(error_of("HW1 or HW2").find("one list without spaces (HW1,HW2)") != std::string::npos);
  // A name of the topology is a name, however near a keyword: OW is one edit from 'or', but
  // 'OW HW1' meant the atoms OW and HW1.
  const std::string ow = error_of("OW HW1");
  CHECK(ow.find("write 'name OW or name HW1', or the names as one list without spaces (OW,HW1)") !=
        std::string::npos);
  CHECK(ow.find("did you mean 'or'") == std::string::npos);
  CHECK(error_of("OW and resid 1")
            .find("'OW' is not a keyword: a value needs its keyword, e.g. "
                  "'name OW'") != std::string::npos);
  // A misspelling that names nothing in the topology is still one.
  CHECK(error_of("nme OW").find("did you mean 'name'?") != std::string::npos);
  // The short forms stay: one word of comma-separated globs (spaces only next to commas).
  CHECK(sel("HW1, HW2") == std::vector<int>{1, 2, 4, 5});
  CHECK(sel("NA ,CL") == std::vector<int>{6, 7});
}

TEST_CASE("a name list matching no atom but a residue or a group says which keyword to use") {
  const std::string sol = error_of("SOL");
  CHECK(sol.find("matches no atom (as atom names; did you mean 'resname SOL'?)") !=
        std::string::npos);
  analysis::IndexGroups groups;
  groups.path = "index.ndx";
  groups.names = {"Water"};
  groups.atoms = {{0, 1, 2, 3, 4, 5}};
  CHECK(error_of("Water", &groups).find("did you mean 'group Water'?") != std::string::npos);
  CHECK(error_of("name OW or Water", &groups).find("e.g. 'group Water'") != std::string::npos);
  CHECK(error_of("XX").find("matches no atom") != std::string::npos);
  CHECK(error_of("XX").find("did you mean") == std::string::npos);
  // Names are case-sensitive, as in gmx: a name in another case says which was meant.
  CHECK(error_of("sol").find("names are case-sensitive: did you mean 'resname SOL'?") !=
        std::string::npos);
  CHECK(error_of("ow").find("names are case-sensitive: did you mean 'OW'?") != std::string::npos);
}
