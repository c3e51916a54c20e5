// `pairhist run` on bad input made on the fly: non-finite coordinates, an atom count that
// changes, zero and degenerate boxes, empty selections, broken index files. Every case must give
// one error line naming the file (and frame), a non-zero exit, and keep completed intervals,
// marked incomplete, where there are any.
#include <doctest/doctest.h>
#include <hdf5.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "io/xtc/xtc_writer.hpp"
#include "tests/cli_runner.hpp"

namespace fs = std::filesystem;
using pairhist::io::TrajectoryFrame;
using pairhist::io::XtcWriter;

namespace {

using Result = pairhist::test::CliResult;
using Scratch = pairhist::test::CliScratch;

/// Two waters' worth of atoms, the first incomplete: OW HW1 HW2 OW HW1 (5 atoms, 2 residues).
const char* kGro5 =
    "five atoms\n    5\n"
    "    1SOL     OW    1   0.100   0.100   0.100\n"
    "    1SOL    HW1    2   0.200   0.100   0.100\n"
    "    1SOL    HW2    3   0.100   0.200   0.100\n"
    "    2SOL     OW    4   1.100   1.100   1.100\n"
    "    2SOL    HW1    5   1.200   1.100   1.100\n"
    "   2.00000   2.00000   2.00000\n";

TrajectoryFrame frame(int natoms, int step, std::array<float, 9> box) {
  TrajectoryFrame f;
  f.step = step;
  f.time = step;
  f.box = box;
  for (int i = 0; i < natoms; ++i) f.xyz.insert(f.xyz.end(), {0.1f + 0.3f * i, 0.5f, 0.7f});
  return f;
}

constexpr std::array<float, 9> kBox = {2, 0, 0, 0, 2, 0, 0, 0, 2};

/// Writes XTC frames, one writer per run of equal atom counts, concatenated: XTC frames are
/// self-contained, so the result is what a tool appending to the wrong file would make.
void write_xtc(const std::string& path, const std::vector<TrajectoryFrame>& frames) {
  std::ofstream out(path, std::ios::binary);
  for (size_t i = 0; i < frames.size(); ++i) {
    const std::string part = path + ".part";
    XtcWriter w(part, static_cast<int>(frames[i].xyz.size() / 3));
    w.write(frames[i]);
    w.close();
    std::ifstream in(part, std::ios::binary);
    out << in.rdbuf();
    fs::remove(part);
  }
}

int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

/// The common promises: exit status, one error line with what it must say, and for runs that
/// stopped after completed intervals, those intervals in the files marked incomplete.
void check_failure(const Result& r, const std::vector<std::string>& expect, int kept_intervals,
                   const fs::path& out) {
  INFO(r.out << r.err);
  CHECK(r.status != 0);
  CHECK(count_lines(r.err) == (kept_intervals > 0 ? 2 : 1));
  const auto pos = r.err.find("pairhist: error: ");
  REQUIRE(pos != std::string::npos);
  const std::string line = r.err.substr(pos, r.err.find('\n', pos) - pos);
  for (const auto& e : expect) CHECK(line.find(e) != std::string::npos);
  if (kept_intervals == 0) {
    CHECK_FALSE(fs::exists(out));
    return;
  }
  CHECK(r.err.find("kept " + std::to_string(kept_intervals) + " complete intervals") !=
        std::string::npos);
  const std::string h5 = (out / "pairhist.h5").string();
  REQUIRE(fs::exists(h5));
  const hid_t f = H5Fopen(h5.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(f >= 0);
  int64_t complete = -1, frames = -1;
  hid_t a = H5Aopen_by_name(f, "/pairhist", "complete", H5P_DEFAULT, H5P_DEFAULT);
  H5Aread(a, H5T_NATIVE_INT64, &complete);
  H5Aclose(a);
  a = H5Aopen_by_name(f, "/pairhist", "n_frames", H5P_DEFAULT, H5P_DEFAULT);
  H5Aread(a, H5T_NATIVE_INT64, &frames);
  H5Aclose(a);
  CHECK(complete == 0);
  CHECK(frames == kept_intervals);  // intervals of one frame
  CHECK(H5Aexists_by_name(f, "/pairhist", "stopped_by", H5P_DEFAULT) > 0);
  H5Fclose(f);
  CHECK(fs::exists(out / "rdf.csv"));
}

}  // namespace

TEST_CASE("a non-finite coordinate of a selected atom stops the run at its frame") {
  const Scratch s("bad-nonfinite");
  // 1e45 Angstrom parses as a finite double but is infinite as the float the frame holds.
  std::string xyz;
  for (int t = 0; t < 3; ++t) {
    xyz += "4\nframe\n";
    for (int i = 0; i < 4; ++i) {
      const bool bad = t == 1 && i == 2;
      xyz += std::string(i % 2 ? "H " : "O ") + (bad ? "1e45" : std::to_string(1.0 + i)) +
             " 2.0 3.0\n";
    }
  }
  s.write("traj.xyz", xyz);
  const std::string common = "run " + s.file("traj.xyz") + " --top " + s.file("traj.xyz") +
                             " --rmax 5 --nbins 5 --interval 1 ";
  const fs::path out = s.dir / "out";
  check_failure(s.run(common + "--species A=O,H -o " + out.string()),
                {"traj.xyz: frame 1: atom 3 has a non-finite coordinate"}, 1, out);
  // Atom 3 is an O: a run that selects only the H atoms never looks at it.
  const Result ok = s.run(common + "--species H=H -o " + (s.dir / "ok").string());
  INFO(ok.err);
  CHECK(ok.status == 0);
}

TEST_CASE("an atom count that changes in a later frame") {
  const Scratch s("bad-natoms");
  s.write("top.gro", kGro5);
  write_xtc(s.file("traj.xtc"), {frame(5, 0, kBox), frame(5, 1, kBox), frame(6, 2, kBox)});
  const fs::path out = s.dir / "out";
  check_failure(s.run("run " + s.file("traj.xtc") + " --top " + s.file("top.gro") +
                      " --species O=OW --rmax 0.5 --nbins 5 --interval 1 -o " + out.string()),
                {"traj.xtc", "frame 2", "atom count 6"}, 2, out);
}

TEST_CASE("zero and degenerate boxes") {
  const Scratch s("bad-box");
  s.write("top.gro", kGro5);
  const std::string args = " --top " + s.file("top.gro") + " --species O=OW --rmax 0.5 --nbins 5";
  // The box vanishes in frame 2: no longer periodic, which the run cannot follow.
  write_xtc(s.file("zero.xtc"), {frame(5, 0, kBox), frame(5, 1, kBox), frame(5, 2, {})});
  fs::path out = s.dir / "zero";
  check_failure(s.run("run " + s.file("zero.xtc") + args + " --interval 1 -o " + out.string()),
                {"zero.xtc: frame 2: box changes from orthorhombic to none"}, 2, out);
  // A flat box (b = 0) in the first frame.
  write_xtc(s.file("flat.xtc"), {frame(5, 0, {2, 0, 0, 0, 0, 0, 0, 0, 2})});
  out = s.dir / "flat";
  check_failure(s.run("run " + s.file("flat.xtc") + args + " -o " + out.string()),
                {"flat.xtc: frame 0: box has a zero or negative diagonal"}, 0, out);
  // A degenerate box after a good one, with intervals.
  write_xtc(s.file("later.xtc"), {frame(5, 0, kBox), frame(5, 1, {2, 0, 0, 0, 2, 0, 0, 0, -1})});
  out = s.dir / "later";
  check_failure(s.run("run " + s.file("later.xtc") + args + " --interval 1 -o " + out.string()),
                {"later.xtc: frame 1: box has a zero or negative diagonal"}, 1, out);
}

TEST_CASE("empty selections and broken index files") {
  const Scratch s("bad-selection");
  s.write("top.gro", kGro5);
  write_xtc(s.file("traj.xtc"), {frame(5, 0, kBox)});
  s.write("groups.ndx", "[ Empty ]\n[ Oxygens ]\n1 4\n");
  s.write("beyond.ndx", "[ Oxygens ]\n1 4\n9\n");
  const std::string base = "run " + s.file("traj.xtc") + " --top " + s.file("top.gro") +
                           " --rmax 0.5 --nbins 5 -o " + (s.dir / "out").string() + " ";
  const fs::path out = s.dir / "out";
  check_failure(s.run(base + "--species 'X=resname NOPE'"),
                {"top.gro: selection 'resname NOPE' matches no atom"}, 0, out);
  check_failure(s.run(base + "--species 'X=group Empty' --index " + s.file("groups.ndx")),
                {"top.gro: selection 'group Empty' matches no atom"}, 0, out);
  check_failure(s.run(base + "--species 'X=group Nope' --index " + s.file("groups.ndx")),
                {"no group 'Nope' in " + s.file("groups.ndx"), "Empty, Oxygens"}, 0, out);
  check_failure(s.run(base + "--species 'X=group Oxygens' --index " + s.file("beyond.ndx")),
                {"beyond.ndx: line 3: atom number 9 is outside the topology's 1-5"}, 0, out);
  check_failure(s.run(base + "--species 'X=group Oxygens'"), {"needs an index file"}, 0, out);
  check_failure(s.run(base + "--species O=OW --index " + s.file("missing.ndx")),
                {"missing.ndx: no such file"}, 0, out);
  // The good group runs.
  const Result ok = s.run(base + "--species 'X=group Oxygens' --index " + s.file("groups.ndx"));
  INFO(ok.err);
  CHECK(ok.status == 0);
  CHECK(ok.out.find("X=2") != std::string::npos);
}
