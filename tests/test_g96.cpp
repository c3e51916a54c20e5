// G96Reader and read_g96_topology: gmx trjconv's .g96 trajectories
// (scripts/make-reader-fixtures.sh) against the XTC frames they came from, a triclinic box in
// GROMACS's order, a structure with names, the blocks GROMACS and GROMOS write besides, and the
// errors of malformed or truncated files, each naming file, frame and line.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "io/topology/topology_reader.hpp"
#include "io/trajectory/g96_reader.hpp"
#include "io/trajectory/trajectory_reader.hpp"
#include "pairhist/errors.hpp"
#include "tests/test_support.hpp"

namespace {

using pairhist::io::G96Reader;
using pairhist::io::TrajectoryFrame;
using pairhist::test::contains;
using pairhist::test::fixture;
using pairhist::test::input_error_of;
using pairhist::test::write_all;

std::vector<TrajectoryFrame> all_frames(const std::string& path) {
  auto reader = pairhist::io::open_trajectory(path);
  std::vector<TrajectoryFrame> frames;
  TrajectoryFrame frame;
  while (reader->next(frame)) frames.push_back(frame);
  CHECK(reader->frames_read() == static_cast<int64_t>(frames.size()));
  return frames;
}

// G96 prints the XTC's floats with 9 decimals: the float read back is the XTC's, or (below 0.016
// nm, where floats lie closer than 1e-9) within the last printed digit; XTC's own precision is
// 0.001 nm.
void check_same_coordinates(const std::vector<float>& g96, const std::vector<float>& xtc) {
  REQUIRE(g96.size() == xtc.size());
  size_t exact = 0;
  for (size_t i = 0; i < g96.size(); ++i) {
    CAPTURE(i);
    CHECK(std::fabs(g96[i] - xtc[i]) <= 1e-9);
    exact += g96[i] == xtc[i];
  }
  CHECK(exact + 3 >= g96.size());
}

// Two frames of three atoms: comments, velocities, a GROMOS block, a triclinic box, fields written
// side by side, no TIMESTEP in the second frame.
const std::string kTwoFrames =
    "TITLE\n"
    "water t=   2.50000 step= 7\n"
    "a second title line\n"
    "END\n"
    "# a comment between blocks\n"
    "TIMESTEP\n"
    "             10       0.020000\n"
    "END\n"
    "POSITION\n"
    "# a comment among the atoms\n"
    "    1 SOL   OW         1    0.126000000    1.624000000    1.679000000\n"
    "    1 SOL   HW1        2    0.190000000    1.661000000    1.747000000\n"
    "    2 SOL   HW2        3   -1234.500000000-2345.250000000    1.613000000\n"
    "END\n"
    "VELOCITY\n"
    "    1 SOL   OW         1    0.100000000   -0.200000000    0.300000000\n"
    "END\n"
    "BOX\n"
    "    1.862060000    1.862060000    1.862060000    0.000000000    0.000000000"
    "    0.100000000    0.000000000    0.200000000    0.300000000\n"
    "END\n"
    "TITLE\n"
    "\n"
    "END\n"
    "POSITIONRED\n"
    "    0.226000000    1.524000000    1.579000000\n"
    "    0.290000000    1.561000000    1.647000000\n"
    "    0.277000000    1.468000000    1.513000000\n"
    "END\n"
    "VELOCITYRED\n"
    "    0.100000000   -0.200000000    0.300000000\n"
    "END\n"
    "LATTICESHIFTS\n"
    "    0 0 0\n"
    "END\n"
    "BOX\n"
    "    2.000000000    2.100000000    2.200000000\n"
    "END\n";

}  // namespace

TEST_CASE("G96: the frames of gmx trjconv's .g96 are those of the XTC it came from") {
  const auto g96 = all_frames(fixture("gmx_water30.g96"));
  const auto xtc = all_frames(fixture("gmx_water30.xtc"));
  REQUIRE(g96.size() == 3);
  REQUIRE(xtc.size() == g96.size());
  const double times[] = {0.0, 0.3, 0.6};
  const int64_t steps[] = {0, 150, 300};
  for (size_t k = 0; k < g96.size(); ++k) {
    CAPTURE(k);
    CHECK(g96[k].time == doctest::Approx(times[k]));
    CHECK(g96[k].step == steps[k]);
    CHECK(g96[k].precision == 0);
    check_same_coordinates(g96[k].xyz, xtc[k].xyz);
    CHECK(g96[k].box == xtc[k].box);
  }
}

TEST_CASE("G96: a triclinic box in GROMACS's order, frame by frame as the XTC") {
  // Atoms 1-30 of the rhombic dodecahedron sample, its first 3 frames.
  const auto g96 = all_frames(fixture("gmx_nacl30_dodecahedron.g96"));
  auto reader =
      pairhist::io::open_trajectory(pairhist::test::data_dir() + "/nacl_dodecahedron.xtc");
  REQUIRE(g96.size() == 3);
  TrajectoryFrame xtc;
  for (size_t k = 0; k < g96.size(); ++k) {
    CAPTURE(k);
    REQUIRE(reader->next(xtc));
    CHECK(g96[k].step == xtc.step);
    CHECK(g96[k].time == doctest::Approx(xtc.time));
    CHECK(g96[k].box == xtc.box);
    CHECK(g96[k].box[7] != 0);  // c has x and y components: the order matters
    check_same_coordinates(g96[k].xyz, std::vector<float>(xtc.xyz.begin(), xtc.xyz.begin() + 90));
  }
}

TEST_CASE("G96: a structure (POSITION) names its atoms as the .gro does") {
  const std::string conf = fixture("gmx_water30_conf.g96");
  const pairhist::analysis::Topology top = pairhist::io::read_topology(conf);
  const pairhist::analysis::Topology gro = pairhist::io::read_topology(fixture("gmx_water30.gro"));
  REQUIRE(top.natoms() == 30);
  CHECK(top.atom_names == gro.atom_names);
  CHECK(top.residue_names == gro.residue_names);
  CHECK(top.residue_numbers == gro.residue_numbers);
  CHECK(top.atom_names[1] == "HW1");
  CHECK(top.residue_names[29] == "SOL");
  CHECK(top.residue_numbers[29] == 10);
  CHECK(top.title == "SPC/E water, NPT 300 K t=   0.00000 step= 0");
  const auto xtc = all_frames(fixture("gmx_water30.xtc"));
  check_same_coordinates(top.xyz, xtc[0].xyz);
  CHECK(top.box == xtc[0].box);
  CHECK(pairhist::io::read_topology(conf, pairhist::io::TopologyContent::names).xyz.empty());
  // As a trajectory: its one frame.
  const auto frames = all_frames(conf);
  REQUIRE(frames.size() == 1);
  CHECK(frames[0].xyz == top.xyz);
  CHECK(pairhist::io::g96_names_atoms(conf));
  // A trajectory as gmx trjconv writes it names no atoms: no topology.
  const std::string traj = fixture("gmx_water30.g96");
  CHECK_FALSE(pairhist::io::g96_names_atoms(traj));
  CHECK(contains(input_error_of([&] { pairhist::io::read_topology(traj); }),
                 traj + ": frame 0: line 7: POSITIONRED names no atoms"));
  pairhist::test::TempDir dir("g96-top");
  const std::string bad = dir.file("resnr.g96");
  write_all(bad, "POSITION\n    x SOL   OW         1    0.246000007    0.664    0.1\nEND\n");
  CHECK(contains(input_error_of([&] { pairhist::io::read_topology(bad); }),
                 bad + ": frame 0: line 2: bad residue number '    x'"));
}

TEST_CASE("G96: comments, velocities, other blocks, fields side by side, 9-number boxes") {
  pairhist::test::TempDir dir("g96");
  const std::string path = dir.file("two.g96");
  write_all(path, kTwoFrames + "\n# trailing comment\n\n");
  G96Reader reader(path);
  CHECK(reader.natoms() == 3);
  TrajectoryFrame frame;
  REQUIRE(reader.next(frame));
  CHECK(frame.time == 0.02);  // TIMESTEP, not the title's t=
  CHECK(frame.step == 10);
  CHECK(frame.xyz[1] == 1.624f);
  CHECK(frame.xyz[6] == -1234.5f);
  CHECK(frame.xyz[7] == -2345.25f);
  CHECK(frame.xyz[8] == 1.613f);
  CHECK(frame.box[0] == 1.86206f);
  CHECK(frame.box[3] == 0.1f);  // v2(x)
  CHECK(frame.box[6] == 0.2f);  // v3(x)
  CHECK(frame.box[7] == 0.3f);  // v3(y)
  REQUIRE(reader.next(frame));
  CHECK(frame.step == 1);  // neither TIMESTEP nor t=: the frame index
  CHECK(frame.time == 0);
  CHECK(frame.xyz[0] == 0.226f);
  CHECK(frame.xyz[8] == 1.513f);
  CHECK(frame.box[4] == 2.1f);
  CHECK(frame.box[3] == 0);
  CHECK_FALSE(reader.next(frame));
  CHECK(reader.frames_read() == 2);

  // The title's time where no TIMESTEP gives one.
  write_all(path, "TITLE\nt= 1.5 step= 3\nEND\nPOSITIONRED\n 1 2 3\nEND\nBOX\n 3 3 3\nEND\n");
  const auto frames = all_frames(path);
  REQUIRE(frames.size() == 1);
  CHECK(frames[0].time == 1.5);
  CHECK(frames[0].step == 3);
  CHECK(frames[0].xyz[2] == 3);
}

TEST_CASE("G96: bad and truncated files name file, frame and line") {
  pairhist::test::TempDir dir("g96-bad");
  auto error_of = [&](const std::string& name, const std::string& bytes) {
    const std::string path = dir.file(name);
    write_all(path, bytes);
    const std::string message = input_error_of([&] {
      G96Reader reader(path);
      TrajectoryFrame frame;
      while (reader.next(frame)) {
      }
    });
    CHECK(contains(message, path + ": frame "));
    CHECK(message.find('\n') == std::string::npos);
    return message;
  };
  const size_t second = kTwoFrames.find("TITLE", 1);
  // Cut inside the second frame's atom lines (line 28 is missing).
  CHECK(contains(error_of("cut.g96", kTwoFrames.substr(0, kTwoFrames.find("    0.290"))),
                 "frame 1: line 26: truncated file: 1 of 3 atom lines present (last complete "
                 "frame is 0)"));
  CHECK(contains(error_of("cut0.g96", kTwoFrames.substr(0, kTwoFrames.find("    1 SOL   HW1"))),
                 "frame 0: line 12: truncated file: it ends inside the POSITION block after 1 "
                 "atom lines (no complete frame)"));
  // Cut between the positions and the box, or inside the box.
  const size_t box2 = kTwoFrames.rfind("BOX");
  CHECK(contains(error_of("nobox.g96", kTwoFrames.substr(0, kTwoFrames.rfind("LATTICE"))),
                 "frame 1: line 32: truncated file: it ends before the BOX block (last complete "
                 "frame is 0)"));
  CHECK(contains(error_of("cutbox.g96", kTwoFrames.substr(0, box2 + 4)),
                 "frame 1: line 36: truncated file: it ends inside the BOX block"));
  CHECK(contains(error_of("cutend.g96", kTwoFrames.substr(0, kTwoFrames.size() - 4)),
                 "frame 1: line 37: truncated file: it ends inside the BOX block"));
  CHECK(contains(error_of("title.g96", kTwoFrames.substr(0, second + 6)),
                 "frame 1: line 22: truncated file: it ends inside the TITLE block"));
  CHECK(contains(error_of("timeonly.g96", "TIMESTEP\n 1 0.5\nEND\n"),
                 "frame 0: line 4: truncated file: it ends before the POSITION block"));
  // A frame of another size, without a box the first frame has, a misplaced block.
  std::string fewer = kTwoFrames;
  fewer.erase(fewer.find("    0.290"), 46);
  CHECK(contains(error_of("fewer.g96", fewer), "frame 1: line 27: atom count 2 differs from 3"));
  std::string more = kTwoFrames;
  more.insert(more.find("    0.290"), "    0.1 0.2 0.3\n");
  CHECK(contains(error_of("more.g96", more),
                 "frame 1: line 28: more than 3 atom lines, the first frame's count"));
  std::string unboxed = kTwoFrames;
  unboxed.erase(box2, std::string::npos);
  unboxed += "TITLE\n\nEND\n";
  CHECK(contains(error_of("unboxed.g96", unboxed),
                 "frame 1: line 35: no BOX block before the next frame's TITLE block"));
  CHECK(contains(error_of("boxless.g96", "POSITIONRED\n 1 2 3\nEND\nPOSITIONRED\n 4 5 6\nEND\n"),
                 "frame 0: line 4: no BOX block before the next frame's POSITIONRED block"));
  CHECK(contains(error_of("early.g96", "TITLE\nx\nEND\nBOX\n 1 1 1\nEND\n"),
                 "frame 0: line 4: BOX block before the POSITION block"));
  CHECK(contains(error_of("twotimes.g96", "TIMESTEP\n 1 0.5\nEND\nTIMESTEP\n 1 0.5\nEND\n"),
                 "frame 0: line 4: TIMESTEP block before this frame's POSITION block"));
  // Malformed lines.
  std::string bad = kTwoFrames;
  bad.replace(bad.find("0.190000000"), 11, "0.19x000000");
  CHECK(contains(error_of("bad.g96", bad), "frame 0: line 12: bad x coordinate '0.19x000000'"));
  CHECK(contains(error_of("short.g96", "POSITION\n    1 SOL   OW\nEND\n"),
                 "frame 0: line 2: atom line too short (14 characters, the coordinates start in "
                 "column 25) (no complete frame)"));
  CHECK(contains(error_of("two.g96", "POSITIONRED\n 1.0 2.0\nEND\n"),
                 "line 2: atom line without its z coordinate"));
  CHECK(contains(error_of("four.g96", "POSITIONRED\n 1.0 2.0 3.0 4.0\nEND\n"),
                 "line 2: unexpected '4.0' after the coordinates"));
  CHECK(contains(error_of("box4.g96", "POSITIONRED\n 1 2 3\nEND\nBOX\n 1 2 3 4\nEND\n"),
                 "frame 0: line 5: BOX line must hold 3 or 9 numbers, found 4"));
  CHECK(contains(error_of("step.g96", "TIMESTEP\n x 0.5\nEND\n"), "line 2: bad step 'x'"));
  CHECK(contains(error_of("stray.g96", "POSITIONRED\n 1 2 3\nEND\n 3.0 3.0 3.0\n"),
                 "frame 0: line 4: '3.0 3.0 3.0' where a block (TITLE, TIMESTEP, POSITION, "
                 "BOX, ...) begins (no complete frame)"));
  CHECK(contains(error_of("none.g96", "POSITIONRED\nEND\n"),
                 "frame 0: line 2: no atoms in the POSITIONRED block"));
  CHECK(contains(error_of("nul.g96", std::string("POSITIONRED\n 1 2\0 3\n", 20)),
                 "line 2: a NUL byte: not a text file"));
  CHECK(contains(error_of("empty.g96", "# nothing\n"),
                 "frame 0: no POSITION or POSITIONRED block, not a G96 structure"));
}

TEST_CASE("G96 structure cut at every offset: the names and coordinates, or one line") {
  const std::string conf = fixture("gmx_water30_conf.g96");
  const std::string bytes = pairhist::test::read_all(conf);
  const pairhist::analysis::Topology whole = pairhist::io::read_topology(conf);
  pairhist::test::TempDir tmp("g96-cut");
  const std::string path = tmp.file("cut.g96");
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    CAPTURE(cut);
    write_all(path, bytes.substr(0, cut));
    const std::string error = input_error_of([&] {
      const pairhist::analysis::Topology top = pairhist::io::read_topology(path);
      // Cut inside the box's END line: the structure whole.
      CHECK(top.atom_names == whole.atom_names);
      CHECK(top.xyz == whole.xyz);
      CHECK(top.box == whole.box);
    });
    if (!error.empty()) {
      CHECK(error.rfind(path + ": frame 0: ", 0) == 0);
      CHECK(error.find('\n') == std::string::npos);
    }
  }
}
