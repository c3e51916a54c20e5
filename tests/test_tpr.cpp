// GROMACS run inputs (.tpr) through libgromacs: the topology against the .gro and .top it was
// made from (scripts/make-tpr-fixtures.sh), the exclusions, gmx make_ndx's default groups, and
// damaged files. Built only with libgromacs and gmx (tests/CMakeLists.txt).
#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "analysis/selection.hpp"
#include "io/common/child_process.hpp"
#include "io/topology/gro_reader.hpp"
#include "io/topology/ndx_reader.hpp"
#include "io/topology/topology_reader.hpp"
#include "io/topology/tpr_reader.hpp"
#include "pairhist/errors.hpp"
#include "tests/test_support.hpp"

using namespace pairhist;

namespace {

const std::string kGro = test::data_dir() + "/nacl_dodecahedron.gro";
const std::string kTpr = test::fixture("gmx_nacl.tpr");
const std::string kNdx = test::fixture("gmx_nacl.ndx");  // gmx make_ndx of kTpr, unchanged
constexpr int kWaterAtoms = 2172, kIons = 14;

/// What the .top says of each atom name (OPLS-AA spce.itp and ions.itp shipped with GROMACS).
struct Expected {
  const char* type;
  const char* element;
  int z;
  float mass, charge;
};
Expected expected(const std::string& name) {
  if (name == "OW") return {"opls_116", "O", 8, 15.9994f, -0.8476f};
  if (name == "HW1" || name == "HW2") return {"opls_117", "H", 1, 1.008f, 0.4238f};
  if (name == "NA") return {"opls_407", "Na", 11, 22.98977f, 1.0f};
  if (name == "CL") return {"opls_401", "Cl", 17, 35.453f, -1.0f};
  FAIL("unexpected atom name " << name);
  return {};
}

std::vector<int> exclusions_of(const analysis::Topology& top, int atom) {
  const auto b = top.exclusion_offsets[static_cast<size_t>(atom)];
  const auto e = top.exclusion_offsets[static_cast<size_t>(atom) + 1];
  return {top.exclusion_atoms.begin() + b, top.exclusion_atoms.begin() + e};
}

void check_same_groups(const analysis::IndexGroups& ours, const analysis::IndexGroups& gmx) {
  REQUIRE(ours.names == gmx.names);
  for (size_t g = 0; g < gmx.names.size(); ++g) {
    INFO("group " << gmx.names[g]);
    CHECK(ours.atoms[g] == gmx.atoms[g]);
  }
}

}  // namespace

TEST_CASE("a .tpr topology: names, residues, coordinates and box as in the .gro it came from") {
  const analysis::Topology gro = io::read_gro(kGro);
  const analysis::Topology tpr = io::read_topology(kTpr);  // through the dispatch by extension
  REQUIRE(tpr.natoms() == 2200);
  CHECK(tpr.atom_names == gro.atom_names);
  CHECK(tpr.residue_names == gro.residue_names);
  CHECK(tpr.residue_numbers == gro.residue_numbers);
  REQUIRE(tpr.xyz.size() == gro.xyz.size());
  for (size_t i = 0; i < gro.xyz.size(); ++i) CHECK(tpr.xyz[i] == doctest::Approx(gro.xyz[i]));
  for (size_t k = 0; k < 9; ++k) CHECK(tpr.box[k] == doctest::Approx(gro.box[k]).epsilon(1e-6));
  CHECK(tpr.title == "NaCl in SPC/E water, rhombic dodecahedron, NVT 300 K");
}

TEST_CASE("a .tpr topology: types, elements, masses, charges and molecules as the .top says") {
  const analysis::Topology top = io::read_tpr(kTpr);
  const auto n = static_cast<size_t>(top.natoms());
  REQUIRE(top.types.size() == n);
  REQUIRE(top.elements.size() == n);
  REQUIRE(top.atomic_numbers.size() == n);
  REQUIRE(top.masses.size() == n);
  REQUIRE(top.charges.size() == n);
  REQUIRE(top.molecule_index.size() == n);
  double total_charge = 0;
  for (size_t i = 0; i < n; ++i) {
    const Expected e = expected(top.atom_names[i]);
    INFO("atom " << i << " " << top.atom_names[i]);
    CHECK(top.types[i] == e.type);
    CHECK(top.elements[i] == e.element);
    CHECK(top.atomic_numbers[i] == e.z);
    CHECK(top.masses[i] == doctest::Approx(e.mass).epsilon(1e-6));
    CHECK(top.charges[i] == doctest::Approx(e.charge).epsilon(1e-6));
    total_charge += top.charges[i];
    // Waters are molecules 0..723 of three atoms, then one molecule per ion.
    const int a = static_cast<int>(i);
    CHECK(top.molecule_index[i] == (a < kWaterAtoms ? a / 3 : kWaterAtoms / 3 + a - kWaterAtoms));
  }
  CHECK(total_charge == doctest::Approx(0).epsilon(1e-4));
  // The other readers leave what only a .tpr states empty.
  const analysis::Topology gro = io::read_gro(kGro);
  CHECK(gro.masses.empty());
  CHECK(gro.molecule_index.empty());
  CHECK(!gro.has_exclusions());
}

TEST_CASE("a .tpr topology: GROMACS's exclusions (SPC/E: each water atom its molecule)") {
  const analysis::Topology top = io::read_tpr(kTpr);
  REQUIRE(top.has_exclusions());
  REQUIRE(top.exclusion_offsets.size() == static_cast<size_t>(top.natoms()) + 1);
  CHECK(top.exclusion_atoms.size() == static_cast<size_t>(kWaterAtoms * 3 + 2 * kIons));
  for (int w = 0; w < kWaterAtoms / 3; ++w)
    for (int k = 0; k < 3; ++k)
      CHECK(exclusions_of(top, 3 * w + k) == std::vector<int>{3 * w, 3 * w + 1, 3 * w + 2});
  for (int ion = kWaterAtoms; ion < top.natoms(); ++ion)
    CHECK(exclusions_of(top, ion) == std::vector<int>{ion});  // an ion excludes only itself
}

TEST_CASE("a .tpr's default groups are gmx make_ndx's, names ignore case, numbers count from 0") {
  const analysis::IndexGroups ours = io::read_tpr_default_groups(kTpr);
  check_same_groups(ours, io::read_ndx(kNdx, 2200));
  CHECK(ours.names ==
        std::vector<std::string>{"System", "Water", "SOL", "non-Water", "Ion", "Water_and_ions"});
  {  // and those of the gmx installed here, made now
    test::require_gmx();
    test::TempDir dir("tpr-groups");
    const std::string ndx = dir.file("fresh.ndx");
    REQUIRE(test::run_shell("echo q | " + test::shell_quote(test::gmx()) + " -quiet make_ndx -f " +
                            test::shell_quote(kTpr) + " -o " + test::shell_quote(ndx) +
                            " >/dev/null 2>&1"));
    check_same_groups(ours, io::read_ndx(ndx, 2200));
  }
  const analysis::Topology top = io::read_tpr(kTpr);
  const std::vector<int> sol = analysis::select_atoms(top, "group SOL", kTpr, &ours);
  CHECK(sol.size() == static_cast<size_t>(kWaterAtoms));
  CHECK(analysis::select_atoms(top, "group sol", kTpr, &ours) == sol);
  CHECK(analysis::select_atoms(top, "group 2", kTpr, &ours) == sol);
  CHECK(analysis::select_atoms(top, "group ion", kTpr, &ours) ==
        analysis::select_atoms(top, "resname NA CL", kTpr));
  CHECK(analysis::select_atoms(top, "group 4 and name NA", kTpr, &ours).size() == kIons);
  CHECK_THROWS_AS(analysis::select_atoms(top, "group 6", kTpr, &ours), UsageError);
  CHECK_THROWS_AS(analysis::select_atoms(top, "group Protein", kTpr, &ours), UsageError);
  // What the job asks for: default groups only for formats that have them.
  CHECK(io::has_default_groups(kTpr));
  CHECK(!io::has_default_groups(kGro));
  check_same_groups(io::read_default_groups(kTpr), ours);
}

TEST_CASE("damaged .tpr files give one line naming the file, and the process goes on") {
  test::TempDir dir("tpr-bad");
  const std::string bytes = test::read_all(kTpr);
  auto error_of = [&](const std::string& name, const std::string& content) {
    const std::string path = dir.file(name);
    test::write_all(path, content);
    const std::string msg = test::input_error_of([&] { io::read_topology(path); });
    INFO(msg);
    CHECK(test::contains(msg, path + ": "));
    CHECK(msg.find('\n') == std::string::npos);
    CHECK(test::input_error_of([&] { io::read_tpr_default_groups(path); }) == msg);
    return msg;
  };
  // Truncated anywhere: in the header, in the topology, in the coordinates.
  for (size_t keep : {size_t{0}, size_t{10}, size_t{100}, bytes.size() / 3, bytes.size() / 2,
                      bytes.size() - 100, bytes.size() - 1}) {
    CAPTURE(keep);
    error_of("cut.tpr", bytes.substr(0, keep));
  }
  // Garbled: text, the file's opening (version string), the header's sizes, the body.
  error_of("text.tpr", "this is not a run input file\n");
  std::string garbled = bytes;
  for (size_t k = 0; k < 16; ++k) garbled[k] = '\xff';
  error_of("garbled.tpr", garbled);
  // A file generation newer than this libgromacs reads.
  garbled = bytes;
  garbled[0x33] = '\x7f';  // header: string, precision, version, generation (big-endian int)
  CHECK(test::contains(error_of("new.tpr", garbled), "version"));
  // Damage inside the body: libgromacs may crash on it (the reading process does, we don't).
  int refused = 0;
  for (size_t at = 120; at + 16 < bytes.size(); at += bytes.size() / 37) {
    garbled = bytes;
    for (size_t k = at; k < at + 16; ++k) garbled[k] = '\xff';
    const std::string path = dir.file("garbled.tpr");
    test::write_all(path, garbled);
    CAPTURE(at);
    // A damaged byte may land where any value is valid (a coordinate); what matters is that
    // anything else is one InputError line, never an exit or a crash.
    try {
      io::read_tpr(path);
    } catch (const InputError& e) {
      ++refused;
      CHECK(test::contains(e.what(), path + ": "));
      CHECK(std::string(e.what()).find('\n') == std::string::npos);
    }
  }
  CHECK(refused > 0);
  CHECK(test::contains(test::input_error_of([] { io::read_tpr("/nonexistent/x.tpr"); }),
                       "/nonexistent/x.tpr: no such file"));
}

TEST_CASE("a .tpr whose body is not a multiple of 4 bytes reads (XDR pads the opaque body)") {
  // grompp of the fixture's inputs with titles 0..3 characters longer: the body's size then
  // takes every value modulo 4 (its strings are not padded inside the body).
  test::require_gmx();
  test::TempDir dir("tpr-pad");
  const std::string data = test::data_dir();
  std::string top = test::read_all(data + "/nacl-inputs/topol.top");
  const std::string title = "NaCl in SPC/E water";
  const size_t at = top.find(title, top.find("[ system ]"));
  REQUIRE(at != std::string::npos);
  for (int extra = 0; extra < 4; ++extra) {
    CAPTURE(extra);
    std::string mine = top;
    mine.insert(at + title.size(), std::string(static_cast<size_t>(extra), 'x'));
    test::write_all(dir.file("topol.top"), mine);
    const std::string tpr = dir.file("pad.tpr");
    REQUIRE(test::run_shell("cd " + test::shell_quote(dir.file("")) + " && " +
                            test::shell_quote(test::gmx()) + " -quiet grompp -f " +
                            test::shell_quote(data + "/nacl-inputs/nvt.mdp") + " -c " +
                            test::shell_quote(kGro) + " -p topol.top -o pad.tpr >grompp.log 2>&1"));
    const analysis::Topology t = io::read_topology(tpr);
    CHECK(t.natoms() == kWaterAtoms + 2 * kIons);
  }
}

namespace {
void nothing_at_exit() {}
}  // namespace

TEST_CASE("a .tpr read while another thread registers exit functions: a fresh child, no hang") {
  // A forked child inherits the C library's lock of exit functions as another thread held it at
  // the fork, and libgromacs's reading registers one: `pairhist run` with a .tpr topology hung
  // in CI that way. pairhist's children start afresh (io::set_child_command). Here another
  // thread holds that lock much of the time; each read must come back (ctest's timeout ends a
  // hang).
  const analysis::Topology alone = io::read_topology(kTpr);
  io::set_child_command({test::pairhist_binary()});
  std::atomic<bool> stop{false};
  std::thread registering([&] {
    for (int k = 0; k < 2000000 && !stop; ++k) std::atexit(nothing_at_exit);
  });
  for (int k = 0; k < 10; ++k) {
    const analysis::Topology top = io::read_topology(kTpr);
    CHECK(top.atom_names.size() == alone.atom_names.size());
    CHECK(top.xyz == alone.xyz);
  }
  stop = true;
  registering.join();
  io::set_child_command({});
}
