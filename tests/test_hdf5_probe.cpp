// The HDF5 structure walk in a child process (io/hdf5/hdf5_probe.hpp): files on which the HDF5
// library itself crashes or hangs (inputs the fuzzers found, fuzz/regressions/h5md/) are refused
// with one line, and opening HDF5 files from several threads at once, as `run` does (the
// topology loads while the trajectory opens), neither deadlocks a child nor races.
#include <doctest/doctest.h>
#include <stdlib.h>

#include <atomic>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "io/topology/topology_reader.hpp"
#include "io/trajectory/trajectory_reader.hpp"
#include "pairhist/environment.hpp"
#include "pairhist/errors.hpp"
#include "pairhist/settings.hpp"
#include "tests/test_support.hpp"

namespace {

using pairhist::test::contains;
using pairhist::test::data_dir;
using pairhist::test::fixture;
using pairhist::test::input_error_of;
using pairhist::test::read_all;
using pairhist::test::TempDir;
using pairhist::test::write_all;

/// PAIRHIST_HDF5_PROBE_SECONDS set for a scope: the settings, read once, are read again as it is
/// set and as it is restored.
class ScopedProbeSeconds {
 public:
  explicit ScopedProbeSeconds(const char* seconds) {
    env_.emplace("PAIRHIST_HDF5_PROBE_SECONDS", seconds);
    pairhist::reload_settings();
  }
  ~ScopedProbeSeconds() {
    env_.reset();
    pairhist::reload_settings();
  }

 private:
  std::optional<pairhist::ScopedEnv> env_;
};

std::string regression(const std::string& name) {
  return data_dir() + "/../fuzz/regressions/h5md/" + name;
}

int64_t frames_of(const std::string& path) {
  const auto reader = pairhist::io::open_trajectory(path);
  pairhist::io::TrajectoryFrame frame;
  int64_t n = 0;
  while (reader->next(frame)) ++n;
  return n;
}

}  // namespace

TEST_CASE("HDF5 files that crash or hang the HDF5 library are refused with one line") {
  TempDir tmp("probe");
  // Copies: the walk remembers files it has seen.
  const std::string crash = tmp.file("crash.h5md");
  write_all(crash, read_all(regression("libhdf5-group-btree-null-read.h5md")));
  std::string message = input_error_of([&] { frames_of(crash); });
  CHECK(message.rfind(crash + ": the HDF5 library crashed (signal ", 0) == 0);
  CHECK(contains(message, "reading the file's structure (damaged file?)"));

  const std::string overlap = tmp.file("overlap.h5md");
  write_all(overlap, read_all(regression("libhdf5-global-heap-memcpy-overlap.h5md")));
  CHECK(contains(input_error_of([&] { frames_of(overlap); }), overlap + ": the HDF5 library"));

  ScopedProbeSeconds limit("1");
  const std::string hang = tmp.file("hang.h5md");
  write_all(hang, read_all(regression("libhdf5-global-heap-hang.h5md")));
  message = input_error_of([&] { frames_of(hang); });
  CHECK(message == hang +
                       ": the HDF5 library did not finish reading the file's structure within "
                       "1 s (damaged file?)");
}

TEST_CASE("HDF5 files opened from several threads at once") {
  // A child forked while another thread held the HDF5 library's lock would wait forever (here:
  // until the limit below, an error the threads would report).
  ScopedProbeSeconds limit("20");
  TempDir tmp("probe");
  constexpr int kThreads = 4, kFiles = 12;
  const std::string cadishi = read_all(fixture("cadishi_triclinic.h5"));
  const std::string h5md = read_all(fixture("mda_h5md_nm.h5md"));
  std::vector<std::string> paths;
  for (int t = 0; t < kThreads; ++t)
    for (int f = 0; f < kFiles; ++f) {
      const bool as_cadishi = (t + f) % 2 == 0;
      paths.push_back(
          tmp.file(std::to_string(t) + "-" + std::to_string(f) + (as_cadishi ? ".h5" : ".h5md")));
      write_all(paths.back(), as_cadishi ? cadishi : h5md);
    }
  const int64_t cadishi_frames = frames_of(fixture("cadishi_triclinic.h5"));
  const int64_t h5md_frames = frames_of(fixture("mda_h5md_nm.h5md"));
  std::atomic<int> failures{0};
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        for (int f = 0; f < kFiles; ++f) {
          const std::string& path = paths[static_cast<size_t>(t * kFiles + f)];
          const bool as_cadishi = path.back() == '5';
          // What `run` does on two threads: the topology (CADISHI) and the frames.
          if (as_cadishi && pairhist::io::read_topology(path).natoms() != 43) ++failures;
          if (frames_of(path) != (as_cadishi ? cadishi_frames : h5md_frames)) ++failures;
        }
      } catch (const std::exception& e) {
        errors[static_cast<size_t>(t)] = e.what();
        ++failures;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (const auto& e : errors) CHECK_MESSAGE(e.empty(), e);
  CHECK(failures == 0);
}
