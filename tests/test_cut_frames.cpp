// A trajectory cut inside a frame (still being written) against one damaged in the middle: the
// readers throw TruncatedFrame only where the file ends inside the frame, so that a run keeps the
// frames before it, and a plain InputError where the frame is damaged and more of the file
// follows (that stays an error of the run). test_truncation.cpp cuts every offset; here the same
// frame boundary is damaged instead, in every format whose frames a run reads one by one.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "io/trajectory/trajectory_reader.hpp"
#include "tests/test_support.hpp"

namespace {

using pairhist::InputError;
using pairhist::TruncatedFrame;
using pairhist::io::TrajectoryFrame;
using pairhist::test::fixture;
using pairhist::test::read_all;
using pairhist::test::TempDir;
using pairhist::test::write_all;

struct Read {
  size_t frames = 0;
  std::string error;  // "" for a clean end
  bool cut = false;   // the error was a TruncatedFrame
};

Read read_file(const std::string& path) {
  Read out;
  try {
    const auto reader = pairhist::io::open_trajectory(path);
    TrajectoryFrame frame;
    while (reader->next(frame)) ++out.frames;
    // The error stays: a reader that failed fails again, with the same kind of error.
  } catch (const TruncatedFrame& e) {
    out.error = e.what();
    out.cut = true;
  } catch (const InputError& e) {
    out.error = e.what();
  }
  return out;
}

/// Where the first frame ends: the shortest cut that reads one whole frame cleanly (for a text
/// format, at the end of a line: a GRO box line cut in its last field still reads as a box).
size_t end_of_first_frame(const std::string& bytes, const std::string& path, bool binary) {
  for (size_t cut = 1; cut < bytes.size(); ++cut) {
    if (!binary && bytes[cut - 1] != '\n') continue;
    write_all(path, bytes.substr(0, cut));
    const Read r = read_file(path);
    if (r.error.empty() && r.frames == 1) return cut;
  }
  FAIL("no cut reads exactly one frame");
  return 0;
}

struct Format {
  const char* fixture;
  bool binary;
  // Bytes of the second frame before anything a cut can be seen in: a PDB frame's REMARK, TITLE
  // and CRYST1 records (without its atoms, a frame cut there reads as a clean end).
  size_t before_atoms;
};

const Format kFormats[] = {
    {"gmx_water30.xtc", true, 0},      {"gmx_water30.trr", true, 0},    {"mda_ortho.dcd", true, 0},
    {"gmx_water30.gro", false, 0},     {"gmx_water30.pdb", false, 400}, {"ase_plain.xyz", false, 0},
    {"lmp_ortho.lammpstrj", false, 0},
};

}  // namespace

TEST_CASE("a frame damaged with more of the file after it is an error, not a cut") {
  TempDir tmp("damaged");
  for (const Format& f : kFormats) {
    const std::string name = f.fixture;
    CAPTURE(name);
    const std::string bytes = read_all(fixture(name));
    const std::string ext = name.substr(name.rfind('.'));
    const std::string path = tmp.file("probe" + ext);
    REQUIRE(read_file(fixture(name)).frames >= 2);
    const size_t boundary = end_of_first_frame(bytes, path, f.binary);
    // Binary: the second frame's magic number or record marker overwritten; text: a line no
    // format takes where the second frame begins (an atom record too short for coordinates).
    std::string damaged = bytes;
    if (f.binary)
      damaged.replace(boundary, 4, "\xde\xad\xbe\xef");
    else
      damaged.insert(boundary, "ATOM  garbage\n");
    write_all(path, damaged);
    const Read r = read_file(path);
    INFO(r.error);
    CHECK(r.frames == 1);
    CHECK_FALSE(r.error.empty());
    CHECK(r.error.rfind(path + ": frame 1: ", 0) == 0);
    CHECK_FALSE(r.cut);

    // The same file cut inside its second frame instead: a TruncatedFrame after one frame.
    for (size_t into : {size_t{1}, size_t{17}, size_t{40}}) {
      CAPTURE(into);
      write_all(path, bytes.substr(0, boundary + f.before_atoms + into));
      const Read c = read_file(path);
      INFO(c.error);
      CHECK(c.frames == 1);
      CHECK(c.cut);
      CHECK(c.error.rfind(path + ": frame 1: ", 0) == 0);
    }
  }
}
