// HostColumn memory and its pinning hooks: the readers (linked into this program) and the task
// library (libpairhist) allocate through the same hooks, so the columns the decoding threads
// fill and the engine takes over are pinned. Counting hooks stand in for CUDA's here; they are
// installed for the rest of the process, so this file runs after test_engine_swap.cpp's cases.
#include <doctest/doctest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "io/memory/species_columns.hpp"
#include "io/xtc/xtc_parallel_reader.hpp"
#include "io/xtc/xtc_reader.hpp"
#include "pairhist/host_columns.hpp"
#include "tests/engine_reference.hpp"
#include "tests/test_paths.hpp"

using namespace pairhist;

namespace {

std::mutex pinned_mutex;
std::set<const void*> pinned;  // what the counting hooks pinned and has not been unpinned
std::atomic<int> pins{0}, unpins{0};
std::atomic<size_t> last_pin_bytes{0};
std::atomic<int> pinned_untouched{0};  // pins of memory with a page not faulted in yet

/// Whether every page of [p, p + bytes) is resident: pinning fresh pages would fault them in
/// under the address-space lock that the rest of the process waits for (host/host_columns.cpp).
bool resident(const void* p, size_t bytes) {
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<uintptr_t>(p) / page * page;
  const size_t length = reinterpret_cast<uintptr_t>(p) + bytes - begin;
  std::vector<unsigned char> in((length + page - 1) / page);
  if (mincore(reinterpret_cast<void*>(begin), length, in.data()) != 0) return false;
  return std::all_of(in.begin(), in.end(), [](unsigned char c) { return (c & 1) != 0; });
}

bool count_pin(void* p, size_t bytes) {
  if (!resident(p, bytes)) ++pinned_untouched;
  std::lock_guard<std::mutex> lock(pinned_mutex);
  pinned.insert(p);
  ++pins;
  last_pin_bytes = bytes;
  return true;
}

void count_unpin(void* p, size_t) {  // also called for memory allocated before the hooks
  std::lock_guard<std::mutex> lock(pinned_mutex);
  if (pinned.erase(p) > 0) ++unpins;
}

bool unpin_nothing(void*, size_t) {
  return false;
}

bool is_pinned(const void* p) {
  std::lock_guard<std::mutex> lock(pinned_mutex);
  return pinned.count(p) > 0;
}

// The bundled water trajectory's species (O, then H) as a reader's preparation, and every frame's
// columns gathered from the serial reader's whole frames (unpinned: not counted among the pins).
struct WaterColumns {
  io::FramePreparation prep;
  std::vector<io::SpeciesColumns> expected;
};

WaterColumns water_columns(const std::string& path) {
  WaterColumns w;
  w.prep.species.resize(2);
  io::XtcReader serial(path);
  for (int a = 0; a < serial.natoms(); ++a) w.prep.species[a % 3 == 0 ? 0 : 1].push_back(a);
  w.prep.whole_frame = false;
  UnpinnedScope unpinned;
  for (io::TrajectoryFrame f; serial.next(f);) {
    w.expected.emplace_back();
    io::gather_species_columns(f.xyz.data(), w.prep.species, w.expected.back());
  }
  return w;
}

}  // namespace

TEST_CASE("HostColumn: aligned, resized without a zero fill, buffers swapped") {
  HostColumn a(1000, 1.0f);
  CHECK(reinterpret_cast<uintptr_t>(a.data()) % 64 == 0);
  a.assign(1000, 7.0f);
  a.resize(0);  // the capacity stays: growing again default-initialises, leaving the 7s
  a.resize(1000);
  CHECK(a[999] == 7.0f);
  HostColumn b(10, 2.0f);
  const float* pa = a.data();
  a.swap(b);
  CHECK(b.data() == pa);
  CHECK(a.size() == 10);
}

// Before the next case installs the hooks: a GPU run's decoding threads begin while CUDA starts.
TEST_CASE("frames decoded while the pinning hooks are awaited: staged, then pinned when due") {
  REQUIRE_FALSE(host_pinning_installed());
  const std::string path = test::data_dir() + "/spce_water.xtc";
  const WaterColumns water = water_columns(path);
  const io::FramePreparation& prep = water.prep;
  const std::vector<io::SpeciesColumns>& expected = water.expected;
  REQUIRE(expected.size() > 10);
  auto check_frame = [&](const io::TrajectoryFrame& frame, size_t k) {
    REQUIRE(k < expected.size());
    REQUIRE(frame.columns.filled);
    REQUIRE(frame.columns.soa.size() == 2);
    for (size_t s = 0; s < 2; ++s) CHECK(frame.columns.soa[s] == expected[k].soa[s]);
    for (int c = 0; c < 3; ++c) {
      CHECK(frame.columns.lo[c] == expected[k].lo[c]);
      CHECK(frame.columns.hi[c] == expected[k].hi[c]);
    }
  };

  io::FramePreparation pending;
  pending.pending = true;
  {
    // Never settled (frames passed over before a run's first, or a host without GPUs): every
    // frame goes out in staging columns, which come back and are used again, not one set a frame.
    io::XtcParallelReader reader(path, 3, pending);
    reader.await_pinning();
    reader.set_preparation(prep);
    std::set<const float*> buffers;
    io::TrajectoryFrame frame;
    size_t k = 0;
    for (; reader.next(frame); ++k) {
      if (!frame.columns.filled) continue;  // the first frame, if claimed before the species
      check_frame(frame, k);
      buffers.insert(frame.columns.soa[0].data());
    }
    CHECK(k == expected.size());
    CHECK(buffers.size() <= size_t(2 * 3 + 2));  // the window's slots, the caller's, one more
  }
  const int before = pins;
  {
    // Fewer threads than pinned frames: with the hooks, their columns would be pinned as
    // allocated; before them, they would stay unpinned for good unless staged.
    io::XtcParallelReader reader(path, 3, pending);
    reader.record_timings();
    reader.await_pinning();
    reader.set_preparation(prep);  // as a run's pipeline: the species, then the first frame
    io::TrajectoryFrame frame;
    REQUIRE(reader.next(frame));  // whole, if claimed before the species
    if (frame.columns.filled) check_frame(frame, 0);
    for (size_t k = 1; k < 3; ++k) {  // delivered before the hooks: the staging columns
      REQUIRE(reader.next(frame));
      check_frame(frame, k);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the window fills, staged
    REQUIRE(set_host_pinning(count_pin, count_unpin));
    reader.pinning_settled();
    size_t k = 3;
    for (; reader.next(frame); ++k) {
      check_frame(frame, k);
      CAPTURE(k);
      for (size_t s = 0; s < 2; ++s) CHECK(is_pinned(frame.columns.soa[s].data()));
    }
    CHECK(k == expected.size());
    const std::vector<io::ReadingTiming> timings = reader.timings();
    REQUIRE(timings.size() == expected.size());
    CHECK(timings[1].promoted_by == -1);  // nobody promotes before the hooks but the caller
    CHECK(timings[2].promoted_by == -1);
  }
  CHECK(pins > before);
  CHECK(pins == unpins);
}

TEST_CASE("pinning hooks: installed once, used by the readers' and the engine's columns") {
  REQUIRE(set_host_pinning(count_pin, count_unpin));
  CHECK(set_host_pinning(count_pin, count_unpin));            // the same again: fine
  CHECK_FALSE(set_host_pinning(unpin_nothing, count_unpin));  // others: the first stand
  CHECK(host_pinning_installed());
  CHECK(use_pinned_host_columns());  // the application's hooks count as installed

  {
    const int before = pins;
    HostColumn c(1000);
    CHECK(pins == before + 1);
    CHECK(is_pinned(c.data()));
    CHECK(reinterpret_cast<uintptr_t>(c.data()) % 4096 == 0);
    CHECK(last_pin_bytes == 4096);     // whole pages
    HostColumn big(size_t(16) << 20);  // 64 MB: fresh pages from the system, faulted in first
    CHECK(pinned_untouched == 0);
  }
  {
    // 2 MiB and more: whole huge pages (transparent huge pages where the kernel has them).
    HostColumn c((size_t(3) << 20) / sizeof(float));
    CHECK(reinterpret_cast<uintptr_t>(c.data()) % (size_t(2) << 20) == 0);
    CHECK(last_pin_bytes == size_t(4) << 20);
    std::fill(c.begin(), c.end(), 1.5f);  // the memory is usable
    CHECK(c.back() == 1.5f);
  }
  CHECK(pins == unpins);

  // The decoding threads' columns, written straight by the decoder (io, linked in here).
  io::FramePreparation prep;
  prep.species = {{0, 3, 6}, {1, 2, 4, 5}};
  prep.whole_frame = false;
  {
    io::XtcParallelReader reader(test::data_dir() + "/spce_water.xtc", 2, prep);
    io::TrajectoryFrame frame;
    int frames = 0;
    while (reader.next(frame) && frames < 6) {
      REQUIRE(frame.columns.filled);
      for (const auto& column : frame.columns.soa) CHECK(is_pinned(column.data()));
      ++frames;
    }
    CHECK(frames == 6);
  }
  CHECK(pins == unpins);

  // The engine (libpairhist) takes pinned columns over; its slots' first frames give back none,
  // which the caller allocates through the same hooks: then no buffer is allocated any more.
  const auto frames = test::make_frames({200, 100}, 8, BoxKind::orthorhombic);
  EngineConfig config =
      test::engine_config(frames, BoxKind::orthorhombic, 50, 0.5, Precision::single);
  config.ncpu = 1;
  config.ncuda = 0;
  config.frames_in_flight = 2;
  std::vector<HostColumn> soa(2);
  {
    HistogramEngine engine(config);
    int pins_after_ring = 0;
    for (size_t t = 0; t < frames.xyz.size(); ++t) {
      CoordinateBounds b{{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
      for (size_t s = 0; s < 2; ++s) {
        const size_t n = size_t(frames.sizes[s]);
        soa[s].resize(3 * n);
        for (size_t i = 0; i < n; ++i)
          for (size_t c = 0; c < 3; ++c) {
            soa[s][c * n + i] = frames.xyz[t][s][3 * i + c];
            b.lo[c] = std::min(b.lo[c], soa[s][c * n + i]);
            b.hi[c] = std::max(b.hi[c], soa[s][c * n + i]);
          }
      }
      REQUIRE(engine.submit_frame_columns_swap(soa, frames.boxes[t], b));
      for (const auto& column : soa)
        if (!column.empty()) CHECK(is_pinned(column.data()));
      if (t == 2) pins_after_ring = pins;  // both slots in use, the caller's third buffers made
    }
    CHECK(pins == pins_after_ring);
    CHECK(engine.finish() == test::reference_histograms<float>(frames, config));
  }
  soa.clear();
  CHECK(pins == unpins);
}

TEST_CASE("more decoding threads than pinned frames: columns staged, pinned only when due") {
  REQUIRE(set_host_pinning(count_pin, count_unpin));  // as installed above, or first here
  const std::string path = test::data_dir() + "/spce_water.xtc";
  const WaterColumns water = water_columns(path);
  const io::FramePreparation& prep = water.prep;
  const std::vector<io::SpeciesColumns>& expected = water.expected;
  REQUIRE(expected.size() > size_t(3 * io::kPinnedFrames));

  // Staged all along (pinned sets bounded whatever the threads), then with the threads switched
  // between staged (more than kPinnedFrames) and direct decoding while reading.
  constexpr int kStaged = static_cast<int>(io::kPinnedFrames) + 1;
  for (const int threads : {kStaged, 3 * kStaged, -kStaged, -3 * kStaged}) {
    const bool switching = threads < 0;
    const int n = std::abs(threads);
    CAPTURE(threads);
    const int before = pins;
    {
      io::XtcParallelReader reader(path, n, prep);
      io::TrajectoryFrame frame;
      size_t k = 0;
      for (; reader.next(frame); ++k) {
        REQUIRE(k < expected.size());
        REQUIRE(frame.columns.filled);
        REQUIRE(frame.columns.soa.size() == 2);
        for (size_t s = 0; s < 2; ++s) {
          CHECK(frame.columns.soa[s] == expected[k].soa[s]);
          CHECK(is_pinned(frame.columns.soa[s].data()));
        }
        for (int c = 0; c < 3; ++c) {
          CHECK(frame.columns.lo[c] == expected[k].lo[c]);
          CHECK(frame.columns.hi[c] == expected[k].hi[c]);
        }
        if (switching && k == 5) reader.set_active_threads(2);
        if (switching && k == 10) reader.set_active_threads(n);
      }
      CHECK(k == expected.size());
      // Staged: the frames due, the caller's and those being copied; never a set per thread.
      // (Decoding directly, every frame claimed holds a pinned set, as before staging.)
      if (!switching) CHECK(pins - before <= 2 * (reader.pinned_frames() + 1 + 2));
    }
    CHECK(pins == unpins);
  }
}
