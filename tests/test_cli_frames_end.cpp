// Trajectories that change under a run (issue 40, item 7): a file cut inside its last frame
// (still being written) gives the frames before it, with a warning naming the frame and the
// outputs marked complete = 0, exit 0 for `rdf` (gmx rdf's "Incomplete frame") and for `run`;
// damage with more of the file after it stays an error. A box that is orthorhombic at first and
// slightly triclinic later counts every frame as a triclinic run does.
#include <doctest/doctest.h>
#include <hdf5.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "io/trajectory/trajectory_reader.hpp"
#include "io/xtc/xtc_writer.hpp"
#include "tests/run_dir_checks.hpp"
#include "tests/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using pairhist::test::contains;
using pairhist::test::pairhist_cmd;
using pairhist::test::read_all;
using pairhist::test::shell_quote;
using pairhist::test::TempDir;
using pairhist::test::write_all;

const std::string kXtc = pairhist::test::data_dir() + "/spce_water.xtc";
const std::string kGro = pairhist::test::data_dir() + "/spce_water.gro";
const std::string kSpecies = " --species O=OW --species H=HW1,HW2 --rmax 0.9 --nbins 90";

std::vector<pairhist::io::TrajectoryFrame> read_frames(const std::string& path) {
  const auto reader = pairhist::io::open_trajectory(path);
  std::vector<pairhist::io::TrajectoryFrame> frames;
  pairhist::io::TrajectoryFrame frame;
  while (reader->next(frame)) frames.push_back(frame);
  return frames;
}

/// The histogram datasets of a run's pairhist.h5 (what the counts are, not how they were read).
std::map<std::string, std::string> histograms(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& [name, bytes] : pairhist::test::h5_contents((dir / "pairhist.h5").string()))
    if (contains(name, "histograms/")) out[name] = bytes;
  return out;
}

/// The lines of a text output that hold numbers.
std::string data_of(const std::string& text) {
  std::string out, line;
  std::istringstream in(text);
  while (std::getline(in, line))
    if (!line.empty() && line[0] != '#' && line[0] != '@') out += line + "\n";
  return out;
}

}  // namespace

TEST_CASE("a trajectory cut inside its last frame: run and rdf keep the frames before it") {
  TempDir dir("cut-last");
  const std::vector<pairhist::io::TrajectoryFrame> whole = read_frames(kXtc);
  REQUIRE(whole.size() > 3);
  const int64_t last = static_cast<int64_t>(whole.size()) - 1;  // the frame the cut goes into
  const std::string bytes = read_all(kXtc);
  const std::string cut = dir.file("cut.xtc");
  write_all(cut, bytes.substr(0, bytes.size() - 100));  // a frame holds some 9 kB
  const std::string named = cut + ": frame " + std::to_string(last) + ": ";

  // run: exit 0, the warning names the file and frame, every output says it ended early.
  const std::string out = dir.file("out"), ref = dir.file("ref");
  const auto r = pairhist_cmd("run " + cut + " --top " + kGro + kSpecies + " --ncpu 2 -o " + out);
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK(contains(r.output, "warning: incomplete frame, the file ends inside it: " + named));
  CHECK(contains(r.output, "ends early"));
  CHECK(pairhist::test::h5_completion(out + "/pairhist.h5").first == 0);
  CHECK(pairhist::test::h5_completion(out + "/pairhist.h5").second.rfind(named, 0) == 0);
  for (const char* text : {"rdf.csv", "rdf.xvg", "cn.xvg"}) {
    CAPTURE(text);
    const std::string f = pairhist::test::file_text(fs::path(out) / text);
    CHECK(contains(f, "# complete = 0\n# stopped_by = " + named));
  }
  // The counts are those of the whole file's frames before the cut one.
  const auto full = pairhist_cmd("run " + kXtc + " --top " + kGro + kSpecies + " --last " +
                                 std::to_string(last - 1) + " --ncpu 2 -q -o " + ref);
  REQUIRE(full.status == 0);
  CHECK(histograms(out) == histograms(ref));
  CHECK(data_of(pairhist::test::file_text(fs::path(out) / "rdf.csv")) ==
        data_of(pairhist::test::file_text(fs::path(ref) / "rdf.csv")));
  // Nothing more to count: --resume says so.
  const auto again =
      pairhist_cmd("run " + cut + " --top " + kGro + kSpecies + " --ncpu 2 --resume -o " + out);
  CHECK(again.status == 0);
  CHECK(contains(again.output, "nothing to resume"));

  // rdf: gmx's behaviour, exit 0 with the complete frames (those up to the cut one's time).
  const std::string rdf_args = " -s " + kGro + " -ref 'name OW' -sel 'name OW' -bin 0.01 -rmax 0.9";
  const auto g = pairhist_cmd("rdf -f " + cut + rdf_args + " -o " + dir.file("cut.xvg"));
  INFO(g.output);
  REQUIRE(g.status == 0);
  CHECK(contains(g.output, "warning: incomplete frame, the file ends inside it: " + named));
  const std::string xvg = pairhist::test::file_text(dir.file("cut.xvg"));
  CHECK(contains(xvg, "# complete = 0\n# stopped_by = " + named));
  char end[32];
  std::snprintf(end, sizeof end, "%.6f", whole[static_cast<size_t>(last - 1)].time);
  const auto gref =
      pairhist_cmd("rdf -f " + kXtc + rdf_args + " -e " + end + " -o " + dir.file("ref.xvg"));
  REQUIRE(gref.status == 0);
  CHECK(data_of(xvg) == data_of(pairhist::test::file_text(dir.file("ref.xvg"))));
}

TEST_CASE("damage with frames after it, or a cut inside the first frame, stays an error") {
  TempDir dir("damaged-middle");
  const std::string bytes = read_all(kXtc);
  // The 50th frame's magic number: every frame starts with 1995 and the atom count.
  std::string head = bytes.substr(0, 8);
  size_t at = 0;
  for (int k = 0; k < 50; ++k) at = bytes.find(head, at + 1);
  REQUIRE(at != std::string::npos);
  std::string damaged = bytes;
  damaged[at] = '\x7f';
  const std::string path = dir.file("damaged.xtc");
  write_all(path, damaged);
  const auto r =
      pairhist_cmd("run " + path + " --top " + kGro + kSpecies + " --ncpu 2 -o " + dir.file("out"));
  INFO(r.output);
  CHECK(r.status == 1);
  CHECK(contains(r.output, path + ": frame 50: bad magic number"));
  CHECK_FALSE(contains(r.output, "incomplete frame"));

  const std::string first = dir.file("first.xtc");
  write_all(first, bytes.substr(0, 2000));  // nothing whole to keep
  const auto f = pairhist_cmd("rdf -f " + first + " -s " + kGro +
                              " -ref 'name OW' -sel 'name OW' -rmax 0.9 -o " + dir.file("rdf.xvg"));
  INFO(f.output);
  CHECK(f.status == 1);
  CHECK(contains(f.output, first + ": frame 0: truncated file"));
  CHECK_FALSE(fs::exists(dir.file("rdf.xvg")));
}

TEST_CASE("a box orthorhombic at first and triclinic later counts as a triclinic run") {
  TempDir dir("box-widens");
  std::vector<pairhist::io::TrajectoryFrame> frames = read_frames(kXtc);
  REQUIRE(frames.size() >= 3);
  frames.resize(3);
  // gamma = 89.95 degrees: b leans by 0.05 degrees in the x-y plane (GROMACS's lower-triangular
  // form), as a box under anisotropic pressure coupling drifts from its start.
  pairhist::io::TrajectoryFrame& skewed = frames[2];
  const double b = skewed.box[4], gamma = 89.95 * M_PI / 180;
  skewed.box[3] = static_cast<float>(b * std::cos(gamma));
  skewed.box[4] = static_cast<float>(b * std::sin(gamma));
  const auto write = [&](const std::string& path, const std::vector<int>& order) {
    pairhist::io::XtcWriter w(path, static_cast<int>(frames[0].xyz.size() / 3));
    for (int k : order) w.write(frames[static_cast<size_t>(k)]);
    w.close();
  };
  const std::string later = dir.file("later.xtc"), first = dir.file("first.xtc");
  write(later, {0, 1, 2});  // orthorhombic, orthorhombic, triclinic
  write(first, {2, 0, 1});  // the triclinic box first: a triclinic run of the same frames
  for (const char* algorithm : {"all-pairs", "cell-list"}) {
    CAPTURE(algorithm);
    const std::string common =
        " --top " + kGro + kSpecies + " --algorithm " + algorithm + " --ncpu 2 -o ";
    const std::string a = dir.file(std::string("a-") + algorithm);
    const std::string c = dir.file(std::string("c-") + algorithm);
    const auto r = pairhist_cmd("run " + later + common + a);
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(contains(r.output, later + ": frame 2: the box changes from orthorhombic to triclinic"));
    CHECK(contains(r.output, "gamma = 90, 90, 89.95"));
    CHECK(contains(r.output, "counting again from the first frame as a triclinic run"));
    REQUIRE(pairhist_cmd("run " + first + common + c + " -q").status == 0);
    const auto counts = histograms(a);
    CHECK_FALSE(counts.empty());
    CHECK(counts == histograms(c));
    CHECK(contains(pairhist::test::file_text(fs::path(a) / "rdf.csv"), "# box: triclinic"));
  }
  // gmx rdf reads it too.
  const auto g = pairhist_cmd("rdf -f " + later + " -s " + kGro +
                              " -ref 'name OW' -sel 'name OW' -rmax 0.9 -o " + dir.file("rdf.xvg"));
  INFO(g.output);
  CHECK(g.status == 0);
}
