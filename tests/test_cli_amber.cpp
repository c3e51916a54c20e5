// `pairhist run` on AMBER files (data/fixtures/amber/) against a brute-force float64 count over
// the same coordinates, read here without pairhist's readers: the NetCDF through libnetcdf, the
// mdcrd from its text. Species are selected by element, residue name and residue number on the
// parm7, as a user types them.
#include <doctest/doctest.h>
#include <netcdf.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "io/topology/topology_reader.hpp"
#include "tests/cli_runner.hpp"
#include "tests/double_reference.hpp"
#include "tests/h5_counts.hpp"
#include "tests/test_paths.hpp"

namespace {

using pairhist::test::CliScratch;

std::string amber(const std::string& name) {
  return pairhist::test::data_dir() + "/fixtures/amber/" + name;
}

struct Frame {
  std::vector<float> xyz;  // nm, as the readers round them: float(double(A) * 0.1)
  pairhist::BoxMatrix box{};
};

std::vector<Frame> netcdf_frames(const std::string& path) {
  int nc = 0, var = 0, dim = 0, lengths = 0;
  REQUIRE(nc_open(path.c_str(), NC_NOWRITE, &nc) == NC_NOERR);
  size_t frames = 0, atoms = 0;
  REQUIRE(nc_inq_dimid(nc, "frame", &dim) == NC_NOERR);
  nc_inq_dimlen(nc, dim, &frames);
  REQUIRE(nc_inq_dimid(nc, "atom", &dim) == NC_NOERR);
  nc_inq_dimlen(nc, dim, &atoms);
  REQUIRE(nc_inq_varid(nc, "coordinates", &var) == NC_NOERR);
  REQUIRE(nc_inq_varid(nc, "cell_lengths", &lengths) == NC_NOERR);
  std::vector<Frame> out(frames);
  std::vector<float> raw(3 * atoms);
  for (size_t f = 0; f < frames; ++f) {
    const size_t start[3] = {f, 0, 0}, count[3] = {1, atoms, 3};
    REQUIRE(nc_get_vara_float(nc, var, start, count, raw.data()) == NC_NOERR);
    for (float v : raw) out[f].xyz.push_back(static_cast<float>(static_cast<double>(v) * 0.1));
    double abc[3];
    const size_t cell_start[2] = {f, 0}, cell_count[2] = {1, 3};
    REQUIRE(nc_get_vara_double(nc, lengths, cell_start, cell_count, abc) == NC_NOERR);
    // The fixture's cell is rectangular (cell_angles 90).
    for (int k = 0; k < 3; ++k) out[f].box[4 * k] = static_cast<float>(abc[k] * 0.1);
  }
  nc_close(nc);
  return out;
}

std::vector<Frame> mdcrd_frames(const std::string& path, size_t atoms) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // title
  std::vector<Frame> out;
  std::vector<float> values;
  while (std::getline(in, line))
    for (size_t at = 0; at + 8 <= line.size(); at += 8)
      values.push_back(static_cast<float>(std::stod(line.substr(at, 8)) * 0.1));
  REQUIRE(values.size() % (3 * atoms) == 0);
  for (size_t f = 0; f < values.size() / (3 * atoms); ++f)
    out.push_back({std::vector<float>(values.begin() + static_cast<long>(3 * atoms * f),
                                      values.begin() + static_cast<long>(3 * atoms * (f + 1))),
                   {}});
  return out;
}

// The run's cumulative counts of species A with B over `frames`, the self pairs of one species
// once (i < j).
std::vector<uint64_t> brute_force(const std::vector<Frame>& frames,
                                  const std::vector<int>& frame_ids, const std::vector<int>& a,
                                  const std::vector<int>& b, bool same, double r_max, int nbins,
                                  uint64_t& near_edge) {
  std::vector<uint64_t> h(static_cast<size_t>(nbins));
  for (int f : frame_ids) {
    const Frame& fr = frames[static_cast<size_t>(f)];
    for (size_t i = 0; i < a.size(); ++i)
      for (size_t j = same ? i + 1 : 0; j < b.size(); ++j) {
        double p[3], q[3];
        for (int c = 0; c < 3; ++c) {
          p[c] = fr.xyz[3 * static_cast<size_t>(a[i]) + static_cast<size_t>(c)];
          q[c] = fr.xyz[3 * static_cast<size_t>(b[j]) + static_cast<size_t>(c)];
        }
        const double x = pairhist::test::reference_bin_position(fr.box, p, q, r_max, nbins);
        if (x > 0.5 && std::fabs(x - std::round(x)) < 1e-5) ++near_edge;  // not r = 0
        if (x < nbins) ++h[static_cast<size_t>(x)];
      }
  }
  return h;
}

std::vector<int> atoms_where(const pairhist::analysis::Topology& top,
                             const std::function<bool(size_t)>& keep) {
  std::vector<int> out;
  for (size_t i = 0; i < static_cast<size_t>(top.natoms()); ++i)
    if (keep(i)) out.push_back(static_cast<int>(i));
  return out;
}

void check_counts(const std::string& h5, const std::string& dataset,
                  const std::vector<uint64_t>& expected, uint64_t near_edge) {
  CAPTURE(dataset);
  const std::vector<uint64_t> got = pairhist::test::h5_counts(h5, dataset);
  REQUIRE(got.size() == expected.size());
  uint64_t differ = 0, total = 0;
  for (size_t k = 0; k < got.size(); ++k) {
    differ += got[k] > expected[k] ? got[k] - expected[k] : expected[k] - got[k];
    total += expected[k];
  }
  MESSAGE(dataset << ": differ " << differ << " near_edge " << near_edge);
  CHECK(total > 0);
  CHECK(differ <= near_edge);  // a pair on a bin edge may land on either side
}

}  // namespace

TEST_CASE("run on parm7 + NetCDF (box), --first 1, equals a float64 brute force, bin for bin") {
  const auto top = pairhist::io::read_topology(amber("cpptraj_traj.prmtop"));
  const auto frames = netcdf_frames(amber("cpptraj_traj.nc"));
  CliScratch s("amber-nc");
  const auto r =
      s.run("run " + amber("cpptraj_traj.nc") + " --top " + amber("cpptraj_traj.prmtop") +
            " --species 'H=element H' --species 'W=resname TRP and not element H'"
            " --first 1 --rmax 1.5 --nbins 60 -o " +
            s.file("out"));
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto h = atoms_where(top, [&](size_t i) { return top.elements[i] == "H"; });
  const auto w = atoms_where(
      top, [&](size_t i) { return top.residue_names[i] == "TRP" && top.elements[i] != "H"; });
  REQUIRE(!h.empty());
  REQUIRE(!w.empty());
  uint64_t edge = 0;
  const std::vector<int> all{1, 2};  // --first 1: frame 0 passed over
  const auto hh = brute_force(frames, all, h, h, true, 1.5, 60, edge);
  const auto hw = brute_force(frames, all, h, w, false, 1.5, 60, edge);
  MESSAGE(edge << " pairs within 1e-5 bins of an edge");
  check_counts(s.file("out/pairhist.h5"), "/2/histograms/H,H", hh, edge);
  check_counts(s.file("out/pairhist.h5"), "/2/histograms/H,W", hw, edge);
}

TEST_CASE("run on prmtop + mdcrd (no box), frames chosen, equals a float64 brute force") {
  const auto top = pairhist::io::read_topology(amber("ache.prmtop"));
  const auto frames = mdcrd_frames(amber("ache.mdcrd"), 252);
  REQUIRE(frames.size() == 11);
  CliScratch s("amber-mdcrd");
  const auto r = s.run("run " + amber("ache.mdcrd") + " --top " + amber("ache.prmtop") +
                       " --species 'C=element C' --species 'R=resid 2 to 4' --first 2 --step 3"
                       " --rmax 1.2 --nbins 47 -o " +
                       s.file("out"));
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto c = atoms_where(top, [&](size_t i) { return top.elements[i] == "C"; });
  const auto res = atoms_where(
      top, [&](size_t i) { return top.residue_numbers[i] >= 2 && top.residue_numbers[i] <= 4; });
  uint64_t edge = 0;
  const std::vector<int> chosen{2, 5, 8};
  const auto cc = brute_force(frames, chosen, c, c, true, 1.2, 47, edge);
  // Shared atoms: the run counts the ordered pairs of different atoms (docs/design.md).
  std::vector<uint64_t> cr(47);
  for (int f : chosen) {
    const auto one = brute_force(frames, {f}, c, res, false, 1.2, 47, edge);
    for (size_t k = 0; k < 47; ++k) cr[k] += one[k];
  }
  size_t shared = 0;
  for (int a : c)
    for (int b : res) shared += a == b;
  cr[0] -= 3 * shared;  // each shared atom meets itself at distance 0 once per frame
  check_counts(s.file("out/pairhist.h5"), "/8/histograms/C,C", cc, edge);
  check_counts(s.file("out/pairhist.h5"), "/8/histograms/C,R", cr, edge);
}

TEST_CASE("run: AMBER inputs that cannot work are one line") {
  CliScratch s("amber-bad");
  const auto r = s.run("run " + amber("ache.mdcrd") + " --species 'C=name C*' -o " + s.file("out"));
  CHECK(r.status != 0);
  CHECK(r.err.find("ache.mdcrd") != std::string::npos);
  s.write("topol.top", "[ moleculetype ]\nSOL 2\n");
  const auto g = s.run("run " + amber("ache.mdcrd") + " --top " + s.file("topol.top") +
                       " --species 'C=name C*' -o " + s.file("out2"));
  CHECK(g.status != 0);
  CHECK(g.err.find("a GROMACS .top is not read") != std::string::npos);
}
