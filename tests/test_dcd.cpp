// DcdReader against DCD files written by MDAnalysis (data/fixtures/mda_*.dcd, made by
// scripts/make-reader-fixtures.sh) and the coordinates MDAnalysis reads back from them
// (*.ref.txt, Angstrom), plus byte-swapped, cosine-cell, truncated and corrupt variants made here.
#include <doctest/doctest.h>
#include <stdlib.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "io/trajectory/dcd_reader.hpp"
#include "pairhist/errors.hpp"
#include "tests/test_paths.hpp"
#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using pairhist::InputError;
using pairhist::io::DcdReader;
using pairhist::io::TrajectoryFrame;

namespace {

using pairhist::test::contains;
using pairhist::test::fixture;
using pairhist::test::input_error_of;
using pairhist::test::read_all;
using pairhist::test::read_reference;
using pairhist::test::RefFrame;
using pairhist::test::write_all;

struct TempDir : pairhist::test::TempDir {
  TempDir() : pairhist::test::TempDir("dcd") {}
};

std::string read_to_end(const std::string& path, int64_t* frames = nullptr) {
  return pairhist::test::read_to_end_with<DcdReader>(path, frames);
}

// Compares a whole trajectory with the reference, Angstrom -> nm. The tolerance covers float32
// storage of a few-nm value.
void check_against_reference(const std::string& dcd, const std::vector<RefFrame>& ref) {
  DcdReader reader(dcd);
  TrajectoryFrame frame;
  REQUIRE(reader.natoms() * 3 == static_cast<int>(ref[0].xyz.size()));
  for (size_t f = 0; f < ref.size(); ++f) {
    CAPTURE(f);
    REQUIRE(reader.next(frame));
    CHECK(frame.step == static_cast<int64_t>(f));
    for (int k = 0; k < 9; ++k) {
      CAPTURE(k);
      CHECK(frame.box[k] == doctest::Approx(ref[f].box[k] * 0.1).epsilon(1e-6).scale(1));
      CHECK(std::fabs(frame.box[k] - ref[f].box[k] * 0.1) <= 2e-6);
    }
    REQUIRE(frame.xyz.size() == ref[f].xyz.size());
    double worst = 0;
    for (size_t i = 0; i < frame.xyz.size(); ++i) {
      worst = std::max(worst, std::fabs(frame.xyz[i] - ref[f].xyz[i] * 0.1));
    }
    CHECK(worst <= 1e-6);
  }
  CHECK_FALSE(reader.next(frame));
  CHECK(reader.frames_read() == static_cast<int64_t>(ref.size()));
}

// Byte offsets of the DCD written by MDAnalysis: header records, then per frame a unit-cell
// record and three coordinate records. Walked here independently of DcdReader.
struct Layout {
  size_t header_end = 0;
  size_t frame_bytes = 0;
  int natoms = 0;
};

uint32_t get_le32(const std::string& b, size_t at) {
  uint32_t v = 0;
  for (int k = 3; k >= 0; --k) v = (v << 8) | static_cast<unsigned char>(b[at + k]);
  return v;
}

void put_le32(std::string& b, size_t at, uint32_t v) {
  for (size_t k = 0; k < 4; ++k) b[at + k] = static_cast<char>((v >> (8 * k)) & 0xff);
}

Layout layout_of(const std::string& b) {
  Layout l;
  REQUIRE(get_le32(b, 0) == 84u);
  size_t pos = 92;  // first record
  const uint32_t title = get_le32(b, pos);
  pos += 8 + title;
  REQUIRE(get_le32(b, pos) == 4u);
  l.natoms = static_cast<int>(get_le32(b, pos + 4));
  l.header_end = pos + 12;
  l.frame_bytes = 56 + 3 * (8 + 4 * static_cast<size_t>(l.natoms));
  REQUIRE((b.size() - l.header_end) % l.frame_bytes == 0);
  return l;
}

void reverse_range(std::string& b, size_t at, size_t len) {
  std::reverse(b.begin() + static_cast<std::ptrdiff_t>(at),
               b.begin() + static_cast<std::ptrdiff_t>(at + len));
}

// The same file as a big-endian machine would have written it.
std::string to_big_endian(std::string b) {
  const Layout l = layout_of(b);
  for (size_t at = 0; at < 92; at += 4) {
    if (at != 4) reverse_range(b, at, 4);  // everything but the "CORD" signature
  }
  const size_t title_len = get_le32(b, 92);
  reverse_range(b, 92, 4);
  reverse_range(b, 96, 4);  // title count
  reverse_range(b, 96 + title_len, 4);
  for (size_t at = 100 + title_len; at < l.header_end; at += 4) reverse_range(b, at, 4);
  for (size_t f = l.header_end; f < b.size(); f += l.frame_bytes) {
    reverse_range(b, f, 4);
    for (int k = 0; k < 6; ++k) reverse_range(b, f + 4 + 8 * static_cast<size_t>(k), 8);
    reverse_range(b, f + 52, 4);
    for (size_t at = f + 56; at < f + l.frame_bytes; at += 4) reverse_range(b, at, 4);
  }
  return b;
}

double get_double(const std::string& b, size_t at) {
  double d;
  std::memcpy(&d, b.data() + at, 8);
  return d;
}

void put_double(std::string& b, size_t at, double d) {
  std::memcpy(&b[at], &d, 8);
}

}  // namespace

TEST_CASE("DcdReader matches MDAnalysis for a triclinic and an orthorhombic DCD") {
  for (const char* name : {"mda_triclinic", "mda_ortho"}) {
    CAPTURE(name);
    const std::string path = fixture(std::string(name) + ".dcd");
    const auto ref = read_reference(fixture(std::string(name) + ".ref.txt"));
    check_against_reference(path, ref);
    DcdReader reader(path);
    CHECK(reader.natoms() == 120);
    CHECK(reader.has_unit_cell());
    CHECK_FALSE(reader.byte_swapped());
  }
  // The orthorhombic box must come out with exact zeros off the diagonal.
  DcdReader reader(fixture("mda_ortho.dcd"));
  TrajectoryFrame frame;
  REQUIRE(reader.next(frame));
  CHECK(frame.box[1] == 0);
  CHECK(frame.box[3] == 0);
  CHECK(frame.box[6] == 0);
  CHECK(frame.box[7] == 0);
  CHECK(frame.box[0] == doctest::Approx(2.0));
}

TEST_CASE("DcdReader reads big-endian DCD and cells stored as cosines") {
  TempDir tmp;
  const std::string original = read_all(fixture("mda_triclinic.dcd"));
  const auto ref = read_reference(fixture("mda_triclinic.ref.txt"));

  SUBCASE("big-endian") {
    const std::string path = tmp.file("big.dcd");
    write_all(path, to_big_endian(original));
    DcdReader reader(path);
    CHECK(reader.byte_swapped());
    check_against_reference(path, ref);
  }
  SUBCASE("CHARMM-style cosines") {
    std::string b = original;
    const Layout l = layout_of(b);
    const double deg = 3.14159265358979323846 / 180;
    for (size_t f = l.header_end; f < b.size(); f += l.frame_bytes) {
      for (size_t slot : {1, 3, 4}) {  // gamma, beta, alpha
        const size_t at = f + 4 + 8 * slot;
        const double angle = get_double(b, at);
        REQUIRE(angle > 1.5);  // the writer stores degrees
        put_double(b, at, std::cos(angle * deg));
      }
    }
    const std::string path = tmp.file("cosines.dcd");
    write_all(path, b);
    check_against_reference(path, ref);
  }
}

TEST_CASE("truncated DCD files report the last complete frame") {
  TempDir tmp;
  const std::string bytes = read_all(fixture("mda_triclinic.dcd"));
  const Layout l = layout_of(bytes);
  const std::string path = tmp.file("cut.dcd");
  const size_t frame2 = l.header_end + 2 * l.frame_bytes;

  for (size_t cut : {frame2 + 1, frame2 + 30, frame2 + 200, frame2 + l.frame_bytes - 1}) {
    CAPTURE(cut);
    write_all(path, bytes.substr(0, cut));
    int64_t frames = 0;
    const std::string msg = read_to_end(path, &frames);
    CHECK(frames == 2);
    CHECK(contains(msg, path + ": frame 2: "));
    CHECK(contains(msg, "truncated"));
    CHECK(contains(msg, "(last complete frame is 1)"));
    CHECK(msg.find('\n') == std::string::npos);
  }
  SUBCASE("cut at a frame boundary is a clean end") {
    write_all(path, bytes.substr(0, frame2));
    int64_t frames = 0;
    CHECK(read_to_end(path, &frames).empty());
    CHECK(frames == 2);
  }
  SUBCASE("cut inside the header") {
    write_all(path, bytes.substr(0, 150));
    const std::string msg = read_to_end(path);
    CHECK(contains(msg, "frame 0:"));
    CHECK(contains(msg, "no complete frame"));
  }
  SUBCASE("the error is sticky") {
    write_all(path, bytes.substr(0, l.header_end + l.frame_bytes + 10));
    DcdReader reader(path);
    TrajectoryFrame frame;
    REQUIRE(reader.next(frame));
    const std::string first = input_error_of([&] { reader.next(frame); });
    CHECK(contains(first, "frame 1:"));
    CHECK(input_error_of([&] { reader.next(frame); }) == first);
  }
}

TEST_CASE("DcdReader rejects files that are not supported DCD trajectories") {
  TempDir tmp;
  std::string bytes = read_all(fixture("mda_triclinic.dcd"));
  const Layout l = layout_of(bytes);
  const std::string path = tmp.file("bad.dcd");

  SUBCASE("missing file") {
    const std::string missing = tmp.file("nope.dcd");
    CHECK(contains(input_error_of([&] { DcdReader r(missing); }), missing));
  }
  SUBCASE("wrong first marker") {
    put_le32(bytes, 0, 85);
    write_all(path, bytes);
    const std::string msg = input_error_of([&] { DcdReader r(path); });
    CHECK(contains(msg, path));
    CHECK(contains(msg, "not a DCD"));
  }
  SUBCASE("no CORD signature") {
    bytes[4] = 'V';
    write_all(path, bytes);
    CHECK(contains(input_error_of([&] { DcdReader r(path); }), "CORD"));
  }
  SUBCASE("text garbage") {
    write_all(path, "ITEM: TIMESTEP\n0\nITEM: NUMBER OF ATOMS\n");
    CHECK(contains(input_error_of([&] { DcdReader r(path); }), "not a DCD"));
  }
  SUBCASE("empty file") {
    write_all(path, "");
    CHECK(contains(input_error_of([&] { DcdReader r(path); }), "empty"));
  }
  SUBCASE("fixed atoms are refused") {
    put_le32(bytes, 8 + 4 * 8, 10);
    write_all(path, bytes);
    CHECK(contains(input_error_of([&] { DcdReader r(path); }), "fixed atoms"));
  }
  SUBCASE("corrupt record marker in frame 3") {
    put_le32(bytes, l.header_end + 3 * l.frame_bytes + 56, 12345);
    write_all(path, bytes);
    int64_t frames = 0;
    const std::string msg = read_to_end(path, &frames);
    CHECK(frames == 3);
    CHECK(contains(msg, "frame 3:"));
    CHECK(contains(msg, "x coordinates"));
    CHECK(contains(msg, "last complete frame is 2)"));
  }
  SUBCASE("NaN coordinate") {
    const float nan = std::nanf("");
    std::memcpy(&bytes[l.header_end + l.frame_bytes + 60], &nan, 4);
    write_all(path, bytes);
    CHECK(contains(read_to_end(path), "frame 1: non-finite coordinate"));
  }
}
