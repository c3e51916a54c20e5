// GROMACS index files and the `group` selection keyword, on an index file made by gmx make_ndx.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "analysis/selection.hpp"
#include "io/topology/gro_reader.hpp"
#include "io/topology/ndx_reader.hpp"
#include "pairhist/errors.hpp"
#include "tests/test_support.hpp"

using namespace pairhist;

namespace {

const std::string kGro = test::data_dir() + "/spce_water.gro";
const std::string kNdx = test::fixture("spce_water.ndx");

/// The InputError message of reading `text` as an index file for `natoms` atoms.
std::string ndx_error(const std::string& text, int natoms = 10) {
  test::TempDir dir("ndx");
  const std::string path = dir.file("bad.ndx");
  test::write_all(path, text);
  return test::input_error_of([&] { io::read_ndx(path, natoms); });
}

}  // namespace

TEST_CASE("an index file written by gmx make_ndx: groups as GROMACS lists them") {
  const analysis::Topology top = io::read_gro(kGro);
  const analysis::IndexGroups g = io::read_ndx(kNdx, top.natoms());
  CHECK(g.names == std::vector<std::string>{"OW", "r_1-3"});
  const std::vector<int>* ow = g.find("OW");
  REQUIRE(ow != nullptr);
  // make_ndx's "a OW" is what our name selection picks, atom for atom.
  CHECK(*ow == analysis::select_atoms(top, "name OW", kGro));
  CHECK(ow->size() == 884);
  CHECK(*g.find("r_1-3") == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8});
  CHECK(g.find("System") == nullptr);
}

TEST_CASE("the group keyword combines with the rest of the language") {
  const analysis::Topology top = io::read_gro(kGro);
  const analysis::IndexGroups g = io::read_ndx(kNdx, top.natoms());
  CHECK(analysis::select_atoms(top, "group r_1-3 and not name OW", kGro, &g) ==
        std::vector<int>{1, 2, 4, 5, 7, 8});
  CHECK(analysis::select_atoms(top, "group OW r_1-3", kGro, &g).size() == 884 + 6);
  CHECK(analysis::select_atoms(top, "group OW", kGro, &g) ==
        analysis::select_atoms(top, "OW", kGro));
  CHECK(analysis::select_atoms(top, "not group OW and resid 1", kGro, &g) ==
        std::vector<int>{1, 2});

  // Unknown group: the message names the index file and the groups it has.
  try {
    analysis::select_atoms(top, "group Protein", kGro, &g);
    FAIL("expected an error");
  } catch (const UsageError& e) {
    const std::string msg = e.what();
    CHECK(test::contains(msg, "Protein"));
    CHECK(test::contains(msg, kNdx));
    CHECK(test::contains(msg, "OW, r_1-3"));
    CHECK(msg.find('\n') == std::string::npos);
  }
  CHECK_THROWS_AS(analysis::select_atoms(top, "group OW", kGro), UsageError);  // no index file
  CHECK_THROWS_AS(analysis::select_atoms(top, "group", kGro, &g), UsageError);
}

TEST_CASE("index file errors: one line naming file and line") {
  CHECK(test::contains(ndx_error("[ A ]\n1 2 3\n[ B\n4\n"),
                       "bad.ndx: line 3: malformed group header"));
  CHECK(test::contains(ndx_error("[ A ] x\n1\n"), "line 1: malformed group header"));
  CHECK(test::contains(ndx_error("[ ]\n1\n"), "line 1: malformed group header"));
  CHECK(test::contains(ndx_error("[ A ]\n1 2\n3 4x\n"), "line 3: '4x' is not an atom number"));
  CHECK(test::contains(ndx_error("[ A ]\n1 2\n\n 11\n"),
                       "line 4: atom number 11 is outside the topology's 1-10"));
  CHECK(test::contains(ndx_error("[ A ]\n0\n"), "line 2: atom number 0 is outside"));
  CHECK(test::contains(ndx_error("1 2\n[ A ]\n"), "line 1: atom numbers before the first"));
  CHECK(test::contains(ndx_error("\n\n"), "bad.ndx: no [ group ]"));
  for (const std::string& msg : {ndx_error("[ A ]\n-3\n"), ndx_error("[ A\n")})
    CHECK(msg.find('\n') == std::string::npos);
  CHECK(test::contains(test::input_error_of([] { io::read_ndx("/nonexistent/x.ndx", 3); }),
                       "/nonexistent/x.ndx"));
  // Empty groups and "[name]" without spaces are valid.
  test::TempDir dir("ndx");
  test::write_all(dir.file("ok.ndx"), "[Empty]\n[ B ]\n  3   1\n");
  const analysis::IndexGroups g = io::read_ndx(dir.file("ok.ndx"), 3);
  CHECK(g.names == std::vector<std::string>{"Empty", "B"});
  CHECK(g.find("Empty")->empty());
  CHECK(*g.find("B") == std::vector<int>{2, 0});
}
