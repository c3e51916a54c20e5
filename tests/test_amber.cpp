// AMBER readers against files AMBER tools wrote (data/fixtures/amber/, README.md there): parm7
// contents against MDAnalysis 2.4.2's reading of the same files, NetCDF and ASCII coordinates
// against the values stored (read here with an independent path: the file's text, or libnetcdf
// for files this test writes with random contents), boxes, frame choice and damaged files.
#include <doctest/doctest.h>
#include <netcdf.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "io/topology/parm7_reader.hpp"
#include "io/topology/topology_reader.hpp"
#include "io/trajectory/amber_mdcrd_reader.hpp"
#include "io/trajectory/amber_netcdf_reader.hpp"
#include "io/trajectory/trajectory_topology.hpp"
#include "io/trajectory/unit_cell.hpp"
#include "pairhist/errors.hpp"
#include "tests/test_paths.hpp"

namespace fs = std::filesystem;
using pairhist::InputError;
using pairhist::TruncatedFrame;
using namespace pairhist::io;

namespace {

std::string amber(const std::string& name) {
  return pairhist::test::data_dir() + "/fixtures/amber/" + name;
}

std::string temp_path(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("pairhist_amber_" + std::to_string(getpid()));
  fs::create_directories(dir);
  return (dir / name).string();
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

double sum(const std::vector<float>& v) {
  double s = 0;
  for (float x : v) s += x;
  return s;
}

// The atom pairs AMBER excludes (EXCLUDED_ATOMS_LIST: per atom the later atoms, 1-based, 0 for
// none), both ways.
std::set<std::pair<int, int>> amber_exclusions(const std::string& path) {
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<long long> counts, list;
  for (const auto& s : parse_parm7_sections(text, path)) {
    if (s.flag == "NUMBER_EXCLUDED_ATOMS")
      for (const auto& v : s.values) counts.push_back(std::stoll(v));
    if (s.flag == "EXCLUDED_ATOMS_LIST")
      for (const auto& v : s.values) list.push_back(std::stoll(v));
  }
  std::set<std::pair<int, int>> out;
  size_t k = 0;
  for (size_t i = 0; i < counts.size(); ++i)
    for (long long c = 0; c < counts[i]; ++c, ++k)
      if (list[k] > 0) {
        out.emplace(static_cast<int>(i), static_cast<int>(list[k] - 1));
        out.emplace(static_cast<int>(list[k] - 1), static_cast<int>(i));
      }
  return out;
}

std::set<std::pair<int, int>> our_exclusions(const Topology& top) {
  std::set<std::pair<int, int>> out;
  for (int i = 0; i < top.natoms(); ++i)
    for (int64_t k = top.exclusion_offsets[static_cast<size_t>(i)];
         k < top.exclusion_offsets[static_cast<size_t>(i) + 1]; ++k)
      if (top.exclusion_atoms[static_cast<size_t>(k)] != i)
        out.emplace(i, top.exclusion_atoms[static_cast<size_t>(k)]);
  return out;
}

void nc_check(int status) {
  REQUIRE_MESSAGE(status == NC_NOERR, nc_strerror(status));
}

}  // namespace

TEST_CASE("parm7: atoms, residues, masses, charges, elements as MDAnalysis reads them") {
  struct Known {
    const char* file;
    int atoms, residues;
    double mass, charge;
    const char *name2, *type0, *resname1, *element0;
  };
  // MDAnalysis 2.4.2: n_atoms, n_residues, masses.sum(), charges.sum(), names, types, resnames,
  // elements (ache.prmtop has no ATOMIC_NUMBER: its elements come from the masses here).
  for (const Known& k : {Known{"ache.prmtop", 252, 14, 1865.132, 1.0, "H2", "N3", "GLU", "N"},
                         Known{"cpptraj_traj.prmtop", 84, 5, 657.656, -2.0, "H2", "N3", "ASP", "N"},
                         Known{"tz2.parm7", 223, 13, 1623.838, 2.0, "H2", "N3", "TRP", "N"},
                         Known{"ace_mbondi3.parm7", 6, 1, 43.044, 0.0, "HH32", "HC", "ACE", "H"}}) {
    CAPTURE(k.file);
    const Topology top = read_topology(amber(k.file));
    CHECK(top.natoms() == k.atoms);
    CHECK(top.residue_numbers.back() == k.residues);
    CHECK(sum(top.masses) == doctest::Approx(k.mass).epsilon(1e-6));
    CHECK(sum(top.charges) == doctest::Approx(k.charge).scale(1).epsilon(1e-4));
    CHECK(top.atom_names[2] == k.name2);
    CHECK(top.types[0] == k.type0);
    CHECK(top.elements[0] == k.element0);
    const auto second = std::find_if(top.residue_numbers.begin(), top.residue_numbers.end(),
                                     [](int r) { return r == 2; });
    if (k.residues > 1)
      CHECK(top.residue_names[static_cast<size_t>(second - top.residue_numbers.begin())] ==
            k.resname1);
    CHECK(top.molecule_index.back() == 0);  // one molecule each (MDAnalysis: one fragment)
    // Exclusions from the bonds (within three bonds) are the force field's own list.
    CHECK(our_exclusions(top) == amber_exclusions(amber(k.file)));
  }
  const Topology ace = read_topology(amber("ace_mbondi3.parm7"));
  CHECK(ace.masses[4] == doctest::Approx(12.01));
  CHECK(ace.charges[4] == doctest::Approx(0.5972).epsilon(1e-6));
}

TEST_CASE("parm7: damaged files are one line naming the file, line and section") {
  std::ifstream in(amber("ace_mbondi3.parm7"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string bad = temp_path("bad.parm7");
  auto with = [&](const std::string& contents) {
    std::ofstream(bad, std::ios::binary) << contents;
    return message_of([&] { read_topology(bad); });
  };
  // One atom name fewer than POINTERS says.
  std::string short_names = text;
  short_names.replace(short_names.find("HH31"), 4, "");
  const std::string m1 = with(short_names);
  CHECK(m1.find(bad + ": line ") == 0);
  CHECK(m1.find("%FLAG ATOM_NAME has 5 values, 6 expected") != std::string::npos);
  CHECK(with("just some text\n").find("not a parm7 topology") != std::string::npos);
  std::string no_mass = text;
  no_mass.replace(no_mass.find("%FLAG MASS"), 10, "%FLAG MAZZ");
  CHECK(with(no_mass).find("no %FLAG MASS section") != std::string::npos);
  std::string bad_format = text;
  bad_format.replace(bad_format.find("%FORMAT(5E16.8)"), 15, "%FORMAT(5Q16.8)");
  CHECK(with(bad_format).find("unsupported %FORMAT") != std::string::npos);
  CHECK(with("").find("empty file") != std::string::npos);
  CHECK(std::string(message_of([] { read_topology(temp_path("x.top")); })).find("no such file") !=
        std::string::npos);
}

TEST_CASE("NetCDF trajectory: coordinates, box and frames as stored") {
  AmberNetcdfReader r(amber("cpptraj_traj.nc"));
  CHECK(r.natoms() == 84);
  CHECK(r.frames() == 3);
  CHECK(r.has_box());
  TrajectoryFrame f;
  REQUIRE(r.next(f));
  REQUIRE(r.next(f));
  // scipy.io.netcdf_file's reading of frame 1.
  CHECK(f.xyz[0] == static_cast<float>(static_cast<double>(19.485346f) * 0.1));
  CHECK(f.xyz[83 * 3 + 2] == static_cast<float>(static_cast<double>(66.6929f) * 0.1));
  CHECK(f.box[0] == static_cast<float>(72.61201815 * 0.1));
  CHECK(f.box[4] == static_cast<float>(77.19579926 * 0.1));
  CHECK(f.box[8] == static_cast<float>(79.96552101 * 0.1));
  CHECK(f.box[1] == 0);
  CHECK(f.box[3] == 0);
  CHECK(f.box[6] == 0);
  REQUIRE(r.next(f));
  CHECK_FALSE(r.next(f));
  CHECK(r.frames_read() == 3);

  // Velocities and forces present, no box, time.
  auto ace = open_trajectory(amber("ace_mbondi3.nc"));
  REQUIRE(ace->next(f));
  REQUIRE(ace->next(f));
  CHECK(f.time == 10.0);
  CHECK(f.xyz[0] == static_cast<float>(static_cast<double>(-0.29661477f) * 0.1));
  CHECK(f.box == std::array<float, 9>{});

  // A chooser reads only the frames it names.
  AmberNetcdfReader chosen(amber("ace_mbondi3.nc"));
  std::vector<int64_t> asked;
  chosen.choose_frames([&](int64_t next) {
    asked.push_back(next);
    return next == 0 ? int64_t{7} : int64_t{-1};
  });
  REQUIRE(chosen.next(f));
  CHECK(chosen.frames_read() == 8);
  CHECK_FALSE(chosen.next(f));
  CHECK(asked == std::vector<int64_t>{0, 8});
}

TEST_CASE("NetCDF: a file cut short keeps its whole frames; not AMBER is one line") {
  const std::string cut = temp_path("cut.nc");
  {
    std::ifstream in(amber("cpptraj_traj.nc"), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(cut, std::ios::binary) << bytes.substr(0, 3500);  // inside frame 2
  }
  AmberNetcdfReader r(cut);
  TrajectoryFrame f;
  REQUIRE(r.next(f));
  REQUIRE(r.next(f));
  const std::string m = message_of([&] { r.next(f); });
  CHECK(m.find(cut + ": frame 2: truncated file") == 0);
  CHECK_THROWS_AS(r.next(f), TruncatedFrame);

  const std::string other = temp_path("other.nc");
  int nc = 0;
  nc_check(nc_create(other.c_str(), NC_CLOBBER | NC_64BIT_OFFSET, &nc));
  nc_check(nc_put_att_text(nc, NC_GLOBAL, "Conventions", 2, "CF"));
  nc_check(nc_close(nc));
  CHECK(message_of([&] { AmberNetcdfReader x(other); }).find("Conventions") != std::string::npos);
  const std::string text = temp_path("text.nc");
  std::ofstream(text) << "not netcdf\n";
  CHECK(message_of([&] { AmberNetcdfReader x(text); }).find(text + ": not a NetCDF-3 file") == 0);
}

TEST_CASE("NetCDF restart: random double coordinates and a triclinic cell read back") {
  std::mt19937_64 rng(20261202);
  std::uniform_real_distribution<double> u(-30, 30);
  const int n = 97;
  std::vector<double> xyz(3 * n);
  for (double& v : xyz) v = u(rng);
  const double lengths[3] = {41.5 + u(rng) / 10, 41.5, 41.5};
  const double angles[3] = {109.4712206, 109.4712206, 109.4712206};  // truncated octahedron
  const std::string path = temp_path("random.ncrst");
  int nc = 0, atom = 0, spatial = 0, cs = 0, ca = 0, coords = 0, vl = 0, va = 0, time = 0;
  nc_check(nc_create(path.c_str(), NC_CLOBBER | NC_64BIT_OFFSET, &nc));
  nc_check(nc_put_att_text(nc, NC_GLOBAL, "Conventions", 12, "AMBERRESTART"));
  nc_check(nc_def_dim(nc, "atom", n, &atom));
  nc_check(nc_def_dim(nc, "spatial", 3, &spatial));
  nc_check(nc_def_dim(nc, "cell_spatial", 3, &cs));
  nc_check(nc_def_dim(nc, "cell_angular", 3, &ca));
  const int cdims[2] = {atom, spatial};
  nc_check(nc_def_var(nc, "coordinates", NC_DOUBLE, 2, cdims, &coords));
  nc_check(nc_def_var(nc, "cell_lengths", NC_DOUBLE, 1, &cs, &vl));
  nc_check(nc_def_var(nc, "cell_angles", NC_DOUBLE, 1, &ca, &va));
  nc_check(nc_def_var(nc, "time", NC_DOUBLE, 0, nullptr, &time));
  nc_check(nc_enddef(nc));
  nc_check(nc_put_var_double(nc, coords, xyz.data()));
  nc_check(nc_put_var_double(nc, vl, lengths));
  nc_check(nc_put_var_double(nc, va, angles));
  const double t = 1234.5;
  nc_check(nc_put_var_double(nc, time, &t));
  nc_check(nc_close(nc));

  auto r = open_trajectory(path);
  REQUIRE(r->natoms() == n);
  TrajectoryFrame f;
  REQUIRE(r->next(f));
  for (size_t k = 0; k < xyz.size(); ++k) CHECK(f.xyz[k] == static_cast<float>(xyz[k] * 0.1));
  CHECK(f.time == t);
  std::array<double, 9> box;
  for (size_t k = 0; k < 9; ++k) box[k] = f.box[k];
  const auto cell = cell_from_box(box);
  CHECK(cell[0] == doctest::Approx(lengths[0] * 0.1).epsilon(1e-6));
  for (int k = 3; k < 6; ++k)
    CHECK(cell[static_cast<size_t>(k)] == doctest::Approx(109.4712206).epsilon(1e-5));
  CHECK_FALSE(r->next(f));
}

TEST_CASE("mdcrd: frames, box lines, the atom count from the topology") {
  // ache.mdcrd (MDAnalysis): 252 atoms, 11 frames, no box.
  state_trajectory_topology(amber("ache.mdcrd"), amber("ache.prmtop"));
  auto r = open_trajectory(amber("ache.mdcrd"));
  CHECK(r->natoms() == 252);
  TrajectoryFrame f;
  int frames = 0;
  while (r->next(f)) {
    if (frames == 1) {
      CHECK(f.xyz[0] == static_cast<float>(32.462 * 0.1));
      CHECK(f.xyz[251 * 3 + 2] == static_cast<float>(-14.288 * 0.1));
    }
    CHECK(f.box == std::array<float, 9>{});
    ++frames;
  }
  CHECK(frames == 11);

  // keep.10.11.crd (cpptraj): 41 atoms, 5 frames, each with a box line of three lengths.
  AmberMdcrdReader boxed(amber("keep.10.11.crd"), 41);
  frames = 0;
  while (boxed.next(f)) ++frames;
  CHECK(frames == 5);
  CHECK(boxed.has_box());
  AmberMdcrdReader first(amber("keep.10.11.crd"), 41);
  REQUIRE(first.next(f));
  CHECK(f.box[0] == static_cast<float>(35.263 * 0.1));
  CHECK(f.box[4] == static_cast<float>(41.846 * 0.1));
  CHECK(f.box[8] == static_cast<float>(36.169 * 0.1));
  CHECK(f.xyz[40 * 3] == static_cast<float>(21.891 * 0.1));

  // A wrong atom count, no topology: one line each.
  AmberMdcrdReader wrong(amber("ache.mdcrd"), 251);
  const std::string m = message_of([&] { wrong.next(f); });
  CHECK(m.find(amber("ache.mdcrd") + ": frame ") == 0);
  CHECK(m.find("atom count 251") != std::string::npos);
  const std::string lone = temp_path("lone.mdcrd");
  fs::copy_file(amber("ache.mdcrd"), lone, fs::copy_options::overwrite_existing);
  CHECK(message_of([&] { open_trajectory(lone); }).find("does not state its atom count") !=
        std::string::npos);
}

TEST_CASE("ASCII restarts: coordinates, time and box") {
  auto r = open_trajectory(amber("tz2.box.rst7"));  // cpptraj, with a box line
  CHECK(r->natoms() == 223);
  TrajectoryFrame f;
  REQUIRE(r->next(f));
  CHECK(f.box[0] == static_cast<float>(22.1039996 * 0.1));
  CHECK(f.box[8] == static_cast<float>(24.6260004 * 0.1));
  CHECK_FALSE(r->next(f));
  auto ace = open_trajectory(amber("test.inpcrd"));  // MDAnalysis: 5 atoms, time 30 ps
  REQUIRE(ace->next(f));
  CHECK(ace->natoms() == 5);
  CHECK(f.time == 30.0);
  CHECK(f.xyz[0] == static_cast<float>(6.6528795 * 0.1));
  CHECK(f.box == std::array<float, 9>{});
  const std::string cut = temp_path("cut.rst7");
  std::ofstream(cut) << "title\n    5\n   1.0000000   2.0000000   3.0000000\n";
  CHECK(message_of([&] { open_trajectory(cut); }).find("truncated file") != std::string::npos);
}
