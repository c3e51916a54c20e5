// Frames per second of AMBER NetCDF reading, serial (libnetcdf) and on threads (pread):
//   bench_netcdf_read FILE.nc [ATOMS FRAMES] [THREADS...]
// writes FILE.nc first where it does not exist (random float coordinates, a box, time), then
// reads every frame with each thread count (1: AmberNetcdfReader), best of 3 passes over the
// page-cached file, and prints one JSON line per count with the frames' checksum (equal for all).
#include <netcdf.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "io/trajectory/amber_netcdf_parallel_reader.hpp"

namespace {

void check(int status) {
  if (status != NC_NOERR) {
    std::fprintf(stderr, "bench_netcdf_read: %s\n", nc_strerror(status));
    std::exit(1);
  }
}

void write_trajectory(const std::string& path, int natoms, int frames) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(0, 60);
  int nc = 0, frame = 0, atom = 0, spatial = 0, cs = 0, ca = 0, time = 0, coords = 0, l = 0, a = 0;
  check(nc_create(path.c_str(), NC_CLOBBER | NC_64BIT_OFFSET, &nc));
  check(nc_put_att_text(nc, NC_GLOBAL, "Conventions", 5, "AMBER"));
  check(nc_def_dim(nc, "frame", NC_UNLIMITED, &frame));
  check(nc_def_dim(nc, "spatial", 3, &spatial));
  check(nc_def_dim(nc, "atom", natoms, &atom));
  check(nc_def_dim(nc, "cell_spatial", 3, &cs));
  check(nc_def_dim(nc, "cell_angular", 3, &ca));
  check(nc_def_var(nc, "time", NC_FLOAT, 1, &frame, &time));
  const int xdims[3] = {frame, atom, spatial}, ldims[2] = {frame, cs}, adims[2] = {frame, ca};
  check(nc_def_var(nc, "coordinates", NC_FLOAT, 3, xdims, &coords));
  check(nc_def_var(nc, "cell_lengths", NC_DOUBLE, 2, ldims, &l));
  check(nc_def_var(nc, "cell_angles", NC_DOUBLE, 2, adims, &a));
  check(nc_enddef(nc));
  std::vector<float> x(3 * static_cast<size_t>(natoms));
  const double lengths[3] = {60, 60, 60}, angles[3] = {90, 90, 90};
  for (int f = 0; f < frames; ++f) {
    for (float& v : x) v = u(rng);
    const size_t s3[3] = {static_cast<size_t>(f), 0, 0},
                 c3[3] = {1, static_cast<size_t>(natoms), 3};
    const size_t s2[2] = {static_cast<size_t>(f), 0}, c2[2] = {1, 3}, at = static_cast<size_t>(f);
    const float t = static_cast<float>(f);
    check(nc_put_vara_float(nc, coords, s3, c3, x.data()));
    check(nc_put_vara_double(nc, l, s2, c2, lengths));
    check(nc_put_vara_double(nc, a, s2, c2, angles));
    check(nc_put_var1_float(nc, time, &at, &t));
  }
  check(nc_close(nc));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_netcdf_read FILE.nc [ATOMS FRAMES] [THREADS...]\n");
    return 2;
  }
  const std::string path = argv[1];
  const int natoms = argc > 3 ? std::atoi(argv[2]) : 100000;
  const int frames = argc > 3 ? std::atoi(argv[3]) : 100;
  std::vector<int> counts;
  for (int k = 4; k < argc; ++k) counts.push_back(std::atoi(argv[k]));
  if (counts.empty()) counts = {1, 2};
  if (!std::filesystem::exists(path)) write_trajectory(path, natoms, frames);
  for (int threads : counts) {
    double best = 1e300, checksum = 0;
    int64_t read = 0;
    for (int pass = 0; pass < 3; ++pass) {
      const auto start = std::chrono::steady_clock::now();
      auto reader = pairhist::io::open_amber_netcdf(path, [&](int) { return threads; });
      pairhist::io::TrajectoryFrame frame;
      checksum = 0;
      read = 0;
      while (reader->next(frame)) {
        ++read;
        for (size_t i = 0; i < frame.xyz.size(); i += 997) checksum += frame.xyz[i];
      }
      best = std::min(
          best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::printf(
        "{\"threads\":%d,\"atoms\":%d,\"frames\":%lld,\"seconds\":%.4f,\"frames_per_s\":%.1f,"
        "\"checksum\":%.6f}\n",
        threads, natoms, static_cast<long long>(read), best, static_cast<double>(read) / best,
        checksum);
  }
  return 0;
}
