// GroTrajectoryReader: the multi-frame .gro fixture (gmx trjconv, scripts/make-reader-fixtures.sh)
// against its XTC twin, GROMACS's title times, triclinic boxes, and the errors of malformed or
// truncated files, each naming file, frame and line.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "io/trajectory/gro_trajectory_reader.hpp"
#include "io/trajectory/trajectory_reader.hpp"
#include "pairhist/errors.hpp"
#include "tests/test_support.hpp"

namespace {

using pairhist::io::GroTrajectoryReader;
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

// Two frames of three atoms, a triclinic box, no "t=" in the titles.
const std::string kTwoFrames =
    "water\n"
    "    3\n"
    "    1SOL     OW    1   0.126   1.624   1.679\n"
    "    1SOL    HW1    2   0.190   1.661   1.747\n"
    "    1SOL    HW2    3   0.177   1.568   1.613\n"
    "   1.86206   1.86206   1.86206   0.00000   0.00000   0.10000   0.00000   0.20000   0.30000\n"
    "water\n"
    "    3\n"
    "    1SOL     OW    1   0.226   1.524   1.579   0.1000  -0.2000   0.3000\n"
    "    1SOL    HW1    2   0.290   1.561   1.647   0.1000  -0.2000   0.3000\n"
    "    1SOL    HW2    3   0.277   1.468   1.513   0.1000  -0.2000   0.3000\n"
    "   2.00000   2.10000   2.20000\n";

}  // namespace

TEST_CASE("GRO trajectory: the frames of gmx trjconv's .gro are those of its XTC twin") {
  const auto gro = all_frames(fixture("gmx_water30.gro"));
  const auto xtc = all_frames(fixture("gmx_water30.xtc"));
  REQUIRE(gro.size() == 3);
  REQUIRE(xtc.size() == gro.size());
  const double times[] = {0.0, 0.3, 0.6};
  const int64_t steps[] = {0, 150, 300};
  for (size_t k = 0; k < gro.size(); ++k) {
    CAPTURE(k);
    CHECK(gro[k].time == doctest::Approx(times[k]));
    CHECK(gro[k].step == steps[k]);
    CHECK(gro[k].precision == 0);
    REQUIRE(gro[k].xyz.size() == 90);
    REQUIRE(xtc[k].xyz.size() == 90);
    // XTC decodes 0.001 nm steps as a float product, GRO rounds the decimal: one ulp apart at most.
    for (size_t i = 0; i < 90; ++i)
      CHECK(std::fabs(gro[k].xyz[i] - xtc[k].xyz[i]) <=
            4e-7 * std::fmax(1, std::fabs(xtc[k].xyz[i])));
    // GRO writes the box with 5 decimals.
    for (size_t i = 0; i < 9; ++i) CHECK(std::fabs(gro[k].box[i] - xtc[k].box[i]) <= 6e-6);
  }
}

TEST_CASE("GRO trajectory: frames without t=, a triclinic box, velocities, trailing blank lines") {
  pairhist::test::TempDir dir("gro-traj");
  const std::string path = dir.file("two.gro");
  write_all(path, kTwoFrames + "\n  \n");
  GroTrajectoryReader reader(path);
  CHECK(reader.natoms() == 3);
  TrajectoryFrame frame;
  REQUIRE(reader.next(frame));
  CHECK(frame.time == 0);
  CHECK(frame.step == 0);
  CHECK(frame.xyz[1] == 1.624f);
  CHECK(frame.box[0] == 1.86206f);
  CHECK(frame.box[3] == 0.1f);  // v2(x)
  CHECK(frame.box[6] == 0.2f);  // v3(x)
  CHECK(frame.box[7] == 0.3f);  // v3(y)
  REQUIRE(reader.next(frame));
  CHECK(frame.step == 1);
  CHECK(frame.xyz[0] == 0.226f);
  CHECK(frame.xyz[8] == 1.513f);
  CHECK(frame.box[4] == 2.1f);
  CHECK(frame.box[3] == 0);
  CHECK_FALSE(reader.next(frame));
  CHECK(reader.frames_read() == 2);
}

TEST_CASE("GRO trajectory: bad and truncated files name file, frame and line") {
  pairhist::test::TempDir dir("gro-traj-bad");
  auto error_of = [&](const std::string& name, const std::string& bytes) {
    const std::string path = dir.file(name);
    write_all(path, bytes);
    const std::string message = input_error_of([&] {
      GroTrajectoryReader reader(path);
      TrajectoryFrame frame;
      while (reader.next(frame)) {
      }
    });
    CHECK(contains(message, path + ": frame "));
    return message;
  };
  const size_t second = kTwoFrames.find("water", 1);
  // Cut inside the second frame's atom lines.
  CHECK(contains(
      error_of("cut.gro", kTwoFrames.substr(0, second + 57)),
      "frame 1: line 10: truncated file: 1 of 3 atom lines present (last complete frame is 0)"));
  // No box line at the end.
  const size_t box2 = kTwoFrames.rfind("   2.00000");
  CHECK(contains(error_of("nobox.gro", kTwoFrames.substr(0, box2)),
                 "frame 1: line 12: file ends before the box line (last complete frame is 0)"));
  // A frame of another size.
  std::string fewer = kTwoFrames;
  fewer.replace(second + 6, 5, "    2");
  CHECK(contains(error_of("fewer.gro", fewer),
                 "frame 1: line 8: atom count 2 differs from 3 in the first frame"));
  std::string bad = kTwoFrames;
  bad.replace(bad.find("0.190"), 5, "0.1x0");
  CHECK(contains(error_of("bad.gro", bad),
                 "frame 0: line 4: bad x coordinate '   0.1x0' (no complete frame)"));
  CHECK(contains(error_of("count.gro", "t\nmany\n"), "frame 0: line 2: bad atom count 'many'"));
  CHECK(contains(error_of("empty.gro", ""), "empty file"));
}
