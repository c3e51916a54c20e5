// Every trajectory format cut at many offsets (every offset of the small fixtures): a cut file
// either ends in a one-line InputError that names the file and (for all but an unopenable HDF5
// container) the frame, a TruncatedFrame once a frame was whole (a run keeps those: the file ends
// inside the next), or reads fewer frames cleanly, each identical to the complete file's,
// where the format cannot tell that something is missing (text: a cut at a frame boundary, or
// only a trailing newline lost). Binary formats can end cleanly
// only at a frame boundary: at most one cut per frame count. Never a crash, a hang or a huge
// allocation (the process's address space is capped).
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "io/topology/gro_reader.hpp"
#include "io/topology/topology_reader.hpp"
#include "io/trajectory/trajectory_reader.hpp"
#include "tests/test_support.hpp"

namespace {

using pairhist::InputError;
using pairhist::io::TrajectoryFrame;
using pairhist::test::cap_address_space;
using pairhist::test::contains;
using pairhist::test::fixture;
using pairhist::test::read_all;
using pairhist::test::TempDir;
using pairhist::test::write_all;

struct Outcome {
  std::vector<TrajectoryFrame> frames;
  std::string error;  // "" for a clean end
  bool cut = false;   // the error was a TruncatedFrame
};

Outcome read_all_frames(const std::string& path) {
  Outcome out;
  try {
    const auto reader = pairhist::io::open_trajectory(path);
    TrajectoryFrame frame;
    while (reader->next(frame)) out.frames.push_back(frame);
  } catch (const InputError& e) {
    out.error = e.what();
    out.cut = dynamic_cast<const pairhist::TruncatedFrame*>(&e) != nullptr;
  }
  return out;
}

bool same_frame(const TrajectoryFrame& a, const TrajectoryFrame& b) {
  return a.xyz == b.xyz && a.box == b.box && a.step == b.step && a.time == b.time;
}

// The cuts: every offset of a file up to `every_up_to` bytes, else `samples` offsets spread over
// it plus the first and last few bytes (headers and the last frame's end).
std::vector<size_t> cuts_of(size_t size, size_t every_up_to, size_t samples) {
  std::set<size_t> cuts;
  if (size <= every_up_to) {
    for (size_t c = 0; c < size; ++c) cuts.insert(c);
  } else {
    for (size_t k = 0; k < samples; ++k) cuts.insert(k * size / samples);
    for (size_t c = 0; c < 64 && c < size; ++c) {
      cuts.insert(c);
      cuts.insert(size - 1 - c);
    }
  }
  return {cuts.begin(), cuts.end()};
}

struct Format {
  const char* fixture;
  bool binary;  // frames have a known length: a clean end only at a boundary
  bool hdf5;    // an unopenable container cannot name a frame
  size_t every_up_to;
  size_t samples;
};

void check_truncations(const Format& f) {
  cap_address_space();
  const std::string name = f.fixture;
  CAPTURE(name);
  const std::string bytes = read_all(fixture(f.fixture));
  const Outcome whole = read_all_frames(fixture(f.fixture));
  REQUIRE(whole.error.empty());
  REQUIRE(whole.frames.size() >= 2);
  TempDir tmp("cut");
  const std::string ext = std::string(f.fixture).substr(std::string(f.fixture).rfind('.'));
  std::map<size_t, int> clean_cuts_per_count;
  size_t errors = 0;
  for (size_t cut : cuts_of(bytes.size(), f.every_up_to, f.samples)) {
    CAPTURE(cut);
    // A new name per cut: the HDF5 structure walk remembers files by path, size and time.
    const std::string path = tmp.file("cut" + std::to_string(cut) + ext);
    write_all(path, bytes.substr(0, cut));
    const Outcome out = read_all_frames(path);
    if (!out.error.empty()) {
      ++errors;
      CHECK(out.error.rfind(path + ": ", 0) == 0);
      CHECK(out.error.find_first_of("\n\r") == std::string::npos);
      if (!f.hdf5 || contains(out.error, "frame ")) {
        CHECK(contains(out.error, ": frame "));
      }
      // Cut after a whole frame, the file ends inside the next: never taken for damage (a cut
      // HDF5 container cannot be opened at all).
      if (!f.hdf5 && !out.frames.empty()) CHECK(out.cut);
      REQUIRE(out.frames.size() <= whole.frames.size());
    } else {
      // A text file may lose its last newline or trailing records unnoticed, never a frame's data.
      REQUIRE(out.frames.size() <= whole.frames.size());
      if (f.binary) REQUIRE(out.frames.size() < whole.frames.size());
      ++clean_cuts_per_count[out.frames.size()];
    }
    for (size_t k = 0; k < out.frames.size(); ++k)
      CHECK(same_frame(out.frames[k], whole.frames[k]));
    std::filesystem::remove(path);
  }
  CHECK(errors > 0);
  if (f.binary) {
    for (const auto& [count, cuts] : clean_cuts_per_count) {
      CAPTURE(count);
      CHECK(cuts == 1);
    }
  }
}

}  // namespace

TEST_CASE("XTC cut at every offset") {
  check_truncations({"gmx_water30.xtc", true, false, 1 << 16, 0});
  check_truncations({"gmx_water3.xtc", true, false, 1 << 16, 0});
}

TEST_CASE("TRR cut at every offset") {
  check_truncations({"gmx_water30.trr", true, false, 1 << 16, 0});
}

TEST_CASE("DCD cut at every offset") {
  check_truncations({"mda_ortho.dcd", true, false, 1 << 16, 0});
  check_truncations({"mda_triclinic.dcd", true, false, 1 << 16, 0});
}

TEST_CASE("PDB cut at every offset") {
  check_truncations({"gmx_water30.pdb", false, false, 1 << 16, 0});
}

TEST_CASE("G96 cut at every offset") {
  check_truncations({"gmx_water30.g96", false, false, 1 << 16, 0});
  check_truncations({"gmx_nacl30_dodecahedron.g96", false, false, 1 << 16, 0});
}

TEST_CASE("XYZ cut at 2000 offsets") {
  check_truncations({"ase_plain.xyz", false, false, 0, 2000});
  check_truncations({"ase_triclinic.extxyz", false, false, 0, 2000});
}

TEST_CASE("LAMMPS dump cut at 2000 offsets") {
  check_truncations({"lmp_ortho.lammpstrj", false, false, 0, 2000});
  check_truncations({"lmp_triclinic_scaled.lammpstrj", false, false, 0, 2000});
}

TEST_CASE("H5MD cut at 200 offsets") {
  check_truncations({"h5md_fixed_box.h5md", true, true, 0, 200});
  check_truncations({"mda_h5md_nm.h5md", true, true, 0, 200});
}

TEST_CASE("CADISHI HDF5 cut at 200 offsets") {
  check_truncations({"cadishi_triclinic.h5", true, true, 0, 200});
  // A cut CADISHI file is its own topology no more: the error says why, rather than asking for
  // a topology (`run` without --top asks whether the trajectory carries species).
  TempDir tmp("cut");
  const std::string path = tmp.file("cut.h5");
  write_all(path, read_all(fixture("cadishi_triclinic.h5")).substr(0, 100));
  const std::string message =
      pairhist::test::input_error_of([&] { pairhist::io::carries_species(path); });
  CHECK(message == path + ": cannot open the HDF5 file (truncated or damaged?)");
}

TEST_CASE("GRO topology cut at every offset") {
  cap_address_space();
  const std::string bytes = read_all(fixture("gmx_water30.gro"));
  // The first frame is the topology; later frames are ignored.
  const size_t first_frame_end = bytes.find("SPC/E", 10) == std::string::npos
                                     ? bytes.size()
                                     : bytes.rfind('\n', bytes.find("SPC/E", 10)) + 1;
  const pairhist::analysis::Topology whole = pairhist::io::read_gro(fixture("gmx_water30.gro"));
  TempDir tmp("cut");
  const std::string path = tmp.file("cut.gro");
  for (size_t cut = 0; cut < first_frame_end; ++cut) {
    CAPTURE(cut);
    write_all(path, bytes.substr(0, cut));
    std::string error;
    try {
      const pairhist::analysis::Topology top = pairhist::io::read_topology(path);
      // Only the box line's last digits can go unnoticed: the topology stays the same.
      CHECK(top.atom_names == whole.atom_names);
      CHECK(top.xyz == whole.xyz);
    } catch (const InputError& e) {
      error = e.what();
    }
    if (!error.empty()) {
      CHECK(error.rfind(path + ": line ", 0) == 0);
      CHECK(error.find('\n') == std::string::npos);
    }
  }
}
