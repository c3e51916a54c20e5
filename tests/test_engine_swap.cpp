// Frames handed to the engine as columns without a copy (submit_frame_columns_swap): the counts
// equal the copied frames' bit for bit, and the buffers the engine gives back are free at once.
#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <stdexcept>
#include <vector>

#include "pairhist/host_columns.hpp"
#include "tests/engine_reference.hpp"

using namespace pairhist;

namespace {

enum class Variant { all_pairs, cell_list, whole_frames };

}  // namespace

TEST_CASE("frames handed over as columns equal copied ones, the buffers given back poisoned") {
  for (const Variant variant : {Variant::all_pairs, Variant::cell_list, Variant::whole_frames})
    for (const BoxKind kind : {BoxKind::none, BoxKind::orthorhombic, BoxKind::triclinic}) {
      CAPTURE(int(variant));
      CAPTURE(box_kind_name(kind));
      // Tasks of a few milliseconds, so that a buffer given back too early is still read.
      const auto frames = test::make_frames({900, 0, 450, 1}, 14, kind);
      EngineConfig config = test::engine_config(frames, kind, 80, 0.45, Precision::single);
      config.ncpu = 2;
      config.ncuda = 0;
      config.frames_in_flight = 2;  // many more frames than ring slots
      config.algorithm =
          variant == Variant::cell_list ? Algorithm::cell_list : Algorithm::all_pairs;
      config.whole_frames = variant == Variant::whole_frames;
      const auto expected = test::reference_histograms<float>(frames, config);
      REQUIRE(test::run_engine(frames, config) == expected);  // the copying path

      HistogramEngine engine(config);
      std::vector<HostColumn> soa;
      std::vector<std::set<const float*>> seen(frames.sizes.size());
      uint64_t handed_over = 0;
      for (size_t t = 0; t < frames.xyz.size(); ++t) {
        const CoordinateBounds bounds = test::fill_columns(frames, t, soa);
        if (t % 5 == 4) {  // a copied frame now and then: the slots' columns take those too
          std::vector<const float*> ptr;
          for (const auto& s : soa) ptr.push_back(s.data());
          engine.submit_frame_columns(ptr, frames.boxes[t], &bounds);
          continue;
        }
        std::vector<const float*> before;
        for (const auto& s : soa) before.push_back(s.data());
        REQUIRE(engine.submit_frame_columns_swap(soa, frames.boxes[t], bounds));
        ++handed_over;
        REQUIRE(soa.size() == frames.sizes.size());
        // A slot's first frame gives back empty columns (the caller allocates them), the
        // others columns of the frame's sizes.
        const bool first_use = t < size_t(config.frames_in_flight);
        for (size_t s = 0; s < soa.size(); ++s) {
          REQUIRE(soa[s].size() == (first_use ? 0 : 3 * size_t(frames.sizes[s])));
          if (soa[s].empty()) continue;
          CHECK(soa[s].data() != before[s]);
          seen[s].insert(soa[s].data());
          // Whatever task still read this buffer would count NaN distances: in no bin.
          std::fill(soa[s].begin(), soa[s].end(), std::nanf(""));
        }
      }
      CHECK(engine.frames_submitted() == frames.xyz.size());
      CHECK(engine.finish() == expected);
      // The buffers circulate: the caller's first ones and the ring's, nothing new per frame.
      for (size_t s = 0; s < seen.size(); ++s)
        CHECK(seen[s].size() <= size_t(config.frames_in_flight) + 1);
      const RunActivity a = engine.activity();
      CHECK(a.frames_handed_over == handed_over);
      REQUIRE(a.feed.size() == frames.xyz.size());
      for (const FrameFeed& f : a.feed) {
        CHECK(f.begin <= f.allocated);
        CHECK(f.allocated <= f.buffers_free);
        CHECK(f.buffers_free <= f.filled);
        CHECK(f.filled <= f.submitted);
      }
    }
}

TEST_CASE("double precision copies the columns and leaves them to the caller") {
  const auto frames = test::make_frames({300, 120}, 5, BoxKind::orthorhombic);
  EngineConfig config =
      test::engine_config(frames, BoxKind::orthorhombic, 60, 0.5, Precision::double_);
  config.ncpu = 2;
  config.ncuda = 0;
  config.frames_in_flight = 2;
  HistogramEngine engine(config);
  std::vector<HostColumn> soa;
  for (size_t t = 0; t < frames.xyz.size(); ++t) {
    const CoordinateBounds bounds = test::fill_columns(frames, t, soa);
    const std::vector<HostColumn> kept = soa;
    const float* first = soa[0].data();
    CHECK_FALSE(engine.submit_frame_columns_swap(soa, frames.boxes[t], bounds));
    CHECK(soa[0].data() == first);
    CHECK(soa == kept);
  }
  CHECK(engine.finish() == test::reference_histograms<double>(frames, config));
  CHECK(engine.activity().frames_handed_over == 0);
}

TEST_CASE("columns of the wrong sizes are refused and kept; none after finish") {
  const auto frames = test::make_frames({50, 20}, 2, BoxKind::none);
  EngineConfig config = test::engine_config(frames, BoxKind::none, 40, 1.0, Precision::single);
  config.ncpu = 1;
  config.ncuda = 0;
  HistogramEngine engine(config);
  std::vector<HostColumn> soa;
  const CoordinateBounds bounds = test::fill_columns(frames, 0, soa);
  std::vector<HostColumn> fewer(soa.begin(), soa.begin() + 1);
  CHECK_THROWS_AS(engine.submit_frame_columns_swap(fewer, frames.boxes[0], bounds),
                  std::invalid_argument);
  std::vector<HostColumn> shorter = soa;
  shorter[1].pop_back();
  const float* kept = shorter[0].data();
  CHECK_THROWS_AS(engine.submit_frame_columns_swap(shorter, frames.boxes[0], bounds),
                  std::invalid_argument);
  CHECK(shorter[0].data() == kept);
  CHECK(engine.frames_submitted() == 0);
  REQUIRE(engine.submit_frame_columns_swap(soa, frames.boxes[0], bounds));
  test::fill_columns(frames, 1, soa);
  REQUIRE(engine.submit_frame_columns_swap(soa, frames.boxes[1], bounds));
  CHECK(engine.finish() == test::reference_histograms<float>(frames, config));
  const float* mine = soa[0].data();
  CHECK_THROWS_AS(engine.submit_frame_columns_swap(soa, frames.boxes[0], bounds), std::logic_error);
  CHECK(soa[0].data() == mine);
}
