// AMBER NetCDF frames read on several threads (AmberNetcdfParallelReader, pread at the offsets
// of the NetCDF-3 header) against the serial reader (libnetcdf): on a random trajectory written
// here, every frame bit-identical for 2-5 threads, with frames chosen, on a file cut short (the
// same error at the same frame) and on cpptraj's file; and `pairhist run` counts identical with
// --decode-threads 1 and 3.
#include <doctest/doctest.h>
#include <netcdf.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "io/trajectory/amber_netcdf_parallel_reader.hpp"
#include "io/trajectory/amber_netcdf_reader.hpp"
#include "io/trajectory/trajectory_opening.hpp"
#include "pairhist/errors.hpp"
#include "tests/cli_runner.hpp"
#include "tests/h5_counts.hpp"
#include "tests/test_paths.hpp"

namespace fs = std::filesystem;
using namespace pairhist::io;

namespace {

void nc_check(int status) {
  REQUIRE_MESSAGE(status == NC_NOERR, nc_strerror(status));
}

std::string temp_path(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("pairhist_ncpar_" + std::to_string(getpid()));
  fs::create_directories(dir);
  return (dir / name).string();
}

// An AMBER trajectory of random float coordinates inside a random triclinic cell, with time and
// velocities (which the readers ignore) as AMBER writes them.
void write_trajectory(const std::string& path, int natoms, int frames, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  int nc = 0, frame = 0, atom = 0, spatial = 0, cs = 0, ca = 0;
  nc_check(nc_create(path.c_str(), NC_CLOBBER | NC_64BIT_OFFSET, &nc));
  nc_check(nc_put_att_text(nc, NC_GLOBAL, "Conventions", 5, "AMBER"));
  nc_check(nc_def_dim(nc, "frame", NC_UNLIMITED, &frame));
  nc_check(nc_def_dim(nc, "spatial", 3, &spatial));
  nc_check(nc_def_dim(nc, "atom", natoms, &atom));
  nc_check(nc_def_dim(nc, "cell_spatial", 3, &cs));
  nc_check(nc_def_dim(nc, "cell_angular", 3, &ca));
  int time = 0, coords = 0, vel = 0, lengths = 0, angles = 0;
  nc_check(nc_def_var(nc, "time", NC_FLOAT, 1, &frame, &time));
  const int xdims[3] = {frame, atom, spatial};
  nc_check(nc_def_var(nc, "coordinates", NC_FLOAT, 3, xdims, &coords));
  nc_check(nc_def_var(nc, "velocities", NC_FLOAT, 3, xdims, &vel));
  const int ldims[2] = {frame, cs}, adims[2] = {frame, ca};
  nc_check(nc_def_var(nc, "cell_lengths", NC_DOUBLE, 2, ldims, &lengths));
  nc_check(nc_def_var(nc, "cell_angles", NC_DOUBLE, 2, adims, &angles));
  nc_check(nc_enddef(nc));
  std::vector<float> x(3 * static_cast<size_t>(natoms));
  for (int f = 0; f < frames; ++f) {
    const double l[3] = {30 + 5 * u(rng), 30 + 5 * u(rng), 30 + 5 * u(rng)};
    const double a[3] = {85 + 10 * u(rng), 85 + 10 * u(rng), 85 + 10 * u(rng)};
    for (float& v : x) v = static_cast<float>(-5 + 40 * u(rng));
    const size_t s3[3] = {static_cast<size_t>(f), 0, 0},
                 c3[3] = {1, static_cast<size_t>(natoms), 3};
    const size_t s2[2] = {static_cast<size_t>(f), 0}, c2[2] = {1, 3};
    const size_t at = static_cast<size_t>(f);
    const float t = 0.5f * static_cast<float>(f) + 0.1f;
    nc_check(nc_put_vara_float(nc, coords, s3, c3, x.data()));
    nc_check(nc_put_vara_float(nc, vel, s3, c3, x.data()));
    nc_check(nc_put_vara_double(nc, lengths, s2, c2, l));
    nc_check(nc_put_vara_double(nc, angles, s2, c2, a));
    nc_check(nc_put_var1_float(nc, time, &at, &t));
  }
  nc_check(nc_close(nc));
}

struct Read {
  std::vector<TrajectoryFrame> frames;
  std::vector<int64_t> frames_read;  // after each delivered frame
  std::string error;                 // the error that ended the reading, if any
  bool cut = false;
};

Read read_all(TrajectoryReader& r) {
  Read out;
  TrajectoryFrame f;
  try {
    while (r.next(f)) {
      out.frames.push_back(f);
      out.frames_read.push_back(r.frames_read());
    }
  } catch (const pairhist::TruncatedFrame& e) {
    out.error = e.what();
    out.cut = true;
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  out.frames_read.push_back(r.frames_read());
  return out;
}

void check_same(const Read& a, const Read& b) {
  REQUIRE(a.frames.size() == b.frames.size());
  for (size_t k = 0; k < a.frames.size(); ++k) {
    INFO("frame " << k);
    CHECK(a.frames[k].xyz == b.frames[k].xyz);  // float ==: bit for bit (no NaN is read)
    CHECK(a.frames[k].box == b.frames[k].box);
    CHECK(a.frames[k].time == b.frames[k].time);
    CHECK(a.frames[k].step == b.frames[k].step);
  }
  CHECK(a.frames_read == b.frames_read);
  CHECK(a.error == b.error);
  CHECK(a.cut == b.cut);
}

std::unique_ptr<TrajectoryReader> parallel(const std::string& path, int threads,
                                           FrameChooser chooser = {}) {
  auto r = open_amber_netcdf(
      path, [&](int) { return threads; }, std::move(chooser));
  REQUIRE(dynamic_cast<AmberNetcdfParallelReader*>(r.get()) != nullptr);
  return r;
}

}  // namespace

TEST_CASE("NetCDF on threads: every frame bit-identical to the serial reader") {
  const std::string path = temp_path("random.nc");
  write_trajectory(path, 301, 37, 20261202);
  AmberNetcdfReader serial(path);
  const Read want = read_all(serial);
  REQUIRE(want.frames.size() == 37);
  REQUIRE(want.error.empty());
  for (int threads : {2, 3, 5}) {
    INFO(threads << " threads");
    auto r = parallel(path, threads);
    CHECK(r->natoms() == 301);
    check_same(want, read_all(*r));
    CHECK(r->reading_figures().threads == threads);
  }
  // open_trajectory_threaded picks it for --decode-threads > 1, the serial one for 1.
  CHECK(dynamic_cast<AmberNetcdfParallelReader*>(open_trajectory_threaded(path, 4).get()));
  CHECK(dynamic_cast<AmberNetcdfReader*>(open_trajectory_threaded(path, 1).get()));
  // A file AMBER tools wrote (cpptraj).
  const std::string cpptraj = pairhist::test::data_dir() + "/fixtures/amber/cpptraj_traj.nc";
  AmberNetcdfReader cpptraj_serial(cpptraj);
  check_same(read_all(cpptraj_serial), read_all(*parallel(cpptraj, 2)));
}

TEST_CASE("NetCDF on threads: chosen frames, the same frame again, and the end as the serial one") {
  const std::string path = temp_path("chosen.nc");
  write_trajectory(path, 50, 40, 7);
  // Frames 3, 3 again, 8, 13, ... below 30, then the end; the chooser sees what the serial one
  // sees.
  auto make_chooser = [](std::vector<int64_t>& asked) {
    return [&asked, again = true](int64_t next) mutable -> int64_t {
      asked.push_back(next);
      if (next == 4 && again) return again = false, kFrameAgain;
      const int64_t wanted = std::max<int64_t>(next, 3);
      const int64_t f = wanted + (5 - (wanted - 3) % 5) % 5;
      return f < 30 ? f : -1;
    };
  };
  std::vector<int64_t> asked_serial, asked_parallel;
  AmberNetcdfReader serial(path);
  serial.choose_frames(make_chooser(asked_serial));
  const Read want = read_all(serial);
  CHECK(want.frames.size() == 7);  // 3, 3 again, 8, 13, 18, 23, 28
  auto r = parallel(path, 3, make_chooser(asked_parallel));
  CHECK(r->chooses_frames());
  check_same(want, read_all(*r));
  CHECK(asked_parallel == asked_serial);
  // Beyond the file's frames: the end, frames_read() the frame count.
  auto beyond = parallel(path, 2, [](int64_t next) { return next + 100; });
  TrajectoryFrame f;
  CHECK_FALSE(beyond->next(f));
  CHECK(beyond->frames_read() == 40);
  CHECK_FALSE(beyond->next(f));
}

TEST_CASE("NetCDF on threads: a file cut short gives the serial reader's error at its frame") {
  const std::string path = temp_path("whole.nc");
  write_trajectory(path, 120, 12, 99);
  const auto size = fs::file_size(path);
  for (uintmax_t keep : {size - 1, size - 3000, size / 2}) {
    INFO("kept " << keep << " of " << size << " bytes");
    const std::string cut = temp_path("cut.nc");
    fs::copy_file(path, cut, fs::copy_options::overwrite_existing);
    fs::resize_file(cut, keep);
    AmberNetcdfReader serial(cut);
    const Read want = read_all(serial);
    CHECK(want.cut);
    CHECK(want.error.find(cut + ": frame ") == 0);
    for (int threads : {2, 4}) check_same(want, read_all(*parallel(cut, threads)));
  }
  // A reader left with frames unread stops its threads.
  auto early = parallel(path, 4);
  TrajectoryFrame f;
  REQUIRE(early->next(f));
}

TEST_CASE("run on a NetCDF trajectory: the same counts with 1 and 3 reading threads") {
  const std::string path = temp_path("run.nc");
  // 84 atoms: cpptraj_traj.prmtop's.
  write_trajectory(path, 84, 25, 42);
  const std::string top = pairhist::test::data_dir() + "/fixtures/amber/cpptraj_traj.prmtop";
  pairhist::test::CliScratch s("ncpar");
  std::vector<std::vector<uint64_t>> counts;
  for (int threads : {1, 3}) {
    const std::string out = s.file("out" + std::to_string(threads));
    const auto r = s.run("run " + path + " --top " + top +
                         " --species 'H=element H' --species 'X=not element H' --rmax 1.0"
                         " --nbins 50 --decode-threads " +
                         std::to_string(threads) + " -o " + out);
    INFO(r.err);
    REQUIRE(r.status == 0);
    for (const char* pair : {"H,H", "H,X", "X,X"})
      counts.push_back(
          pairhist::test::h5_counts(out + "/pairhist.h5", std::string("/24/histograms/") + pair));
  }
  REQUIRE(counts.size() == 6);
  for (size_t k = 0; k < 3; ++k) CHECK(counts[k] == counts[k + 3]);
  uint64_t total = 0;
  for (uint64_t c : counts[1]) total += c;
  CHECK(total > 0);
}
