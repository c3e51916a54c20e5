// Frames whose species hold fewer atoms than the engine's capacities, a different number in every
// frame (dynamic selections, a cut-out around a solute), on CPU workers: every algorithm, box
// kind, precision, way of submitting and part of a frame counts exactly the frame's pairs, bit
// for bit as the reference; species without atoms get no task; wrong counts are refused.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "pairhist/errors.hpp"
#include "pairhist/frame_counts.hpp"
#include "tasks/algorithm_choice.hpp"
#include "tests/engine_reference.hpp"

using namespace pairhist;

namespace {

/// Frames in boxes of several r_max cells per axis, with random counts per frame.
test::RandomFrames varied_frames(const std::vector<int64_t>& sizes, int frames, BoxKind kind) {
  auto f = test::roomy_frames(sizes, frames, kind, 4.0, 4.6);
  test::vary_counts(f);
  return f;
}

double r_max_for(BoxKind kind, const test::RandomFrames& f) {
  double r = 0.9;
  if (kind == BoxKind::triclinic)
    for (const auto& b : f.boxes) r = std::min(r, max_minimum_image_rmax(b));
  return r;
}

template <class T>
bool same_as_reference(const test::RandomFrames& f, const EngineConfig& c,
                       const std::vector<std::vector<uint64_t>>& counts) {
  return counts == test::reference_histograms<T>(f, c);
}

}  // namespace

TEST_CASE("frames of varying sizes equal the reference: every algorithm, box and precision") {
  for (BoxKind kind : {BoxKind::none, BoxKind::orthorhombic, BoxKind::triclinic}) {
    CAPTURE(box_kind_name(kind));
    const auto frames = varied_frames({900, 300, 1, 0, 40}, 9, kind);
    for (Precision precision : {Precision::single, Precision::double_}) {
      CAPTURE(int(precision));
      EngineConfig config =
          test::engine_config(frames, kind, 90, r_max_for(kind, frames), precision);
      config.ncpu = 2;
      config.ncuda = 0;
      config.frames_in_flight = 2;  // slots reused by frames of other sizes
      const auto expected = precision == Precision::single
                                ? test::reference_histograms<float>(frames, config)
                                : test::reference_histograms<double>(frames, config);
      // The counts must tell: the capacities' frames count more pairs.
      test::RandomFrames full = frames;
      full.counts.clear();
      REQUIRE(test::reference_histograms<double>(full, config) !=
              test::reference_histograms<double>(frames, config));
      std::vector<std::vector<uint64_t>> first;
      for (Algorithm algorithm : {Algorithm::all_pairs, Algorithm::cell_list})
        for (uint64_t tile : {uint64_t(0), uint64_t(3000)}) {
          CAPTURE(algorithm_name(algorithm));
          CAPTURE(tile);
          config.algorithm = algorithm;
          config.max_pairs_per_task = tile;
          const auto counts = test::run_engine(frames, config);
          REQUIRE(counts == expected);
          if (first.empty()) first = counts;
          CHECK(counts == first);  // bit-identical between the algorithms
        }
      config.algorithm = Algorithm::all_pairs;
      config.max_pairs_per_task = 0;
      config.whole_frames = true;  // the static baseline: one task per frame
      REQUIRE(test::run_engine(frames, config) == expected);
    }
  }
}

TEST_CASE("frames with counts through every submission path, mixed with full frames") {
  for (Algorithm algorithm : {Algorithm::all_pairs, Algorithm::cell_list})
    for (Precision precision : {Precision::single, Precision::double_})
      for (BoxKind kind : {BoxKind::none, BoxKind::orthorhombic}) {
        CAPTURE(algorithm_name(algorithm));
        CAPTURE(int(precision));
        CAPTURE(box_kind_name(kind));
        auto frames = varied_frames({400, 0, 150, 60}, 16, kind);
        // Full frames in between, some submitted without counts.
        for (size_t t = 3; t < frames.counts.size(); t += 4) frames.counts[t] = frames.sizes;
        EngineConfig config = test::engine_config(frames, kind, 60, 0.45, precision);
        config.ncpu = 2;
        config.ncuda = 0;
        config.frames_in_flight = 3;
        config.algorithm = algorithm;
        HistogramEngine engine(config);
        std::vector<HostColumn> handed;
        uint64_t handed_over = 0;
        for (size_t t = 0; t < frames.xyz.size(); ++t) {
          const std::vector<int64_t>& counts = frames.counts[t];
          const bool full = counts == frames.sizes;
          std::vector<const float*> arrays;
          for (const auto& s : frames.xyz[t]) arrays.push_back(s.data());
          std::vector<std::vector<float>> soa;
          const CoordinateBounds bounds = test::fill_columns(frames, t, soa);
          std::vector<const float*> columns;
          for (const auto& s : soa) columns.push_back(s.data());
          switch (t % 5) {
            case 0:
              if (full)
                engine.submit_frame(arrays, frames.boxes[t]);
              else
                engine.submit_frame(arrays, counts, frames.boxes[t]);
              break;
            case 1:  // bounds from the caller on every other such frame
              if (full && t % 2)
                engine.submit_frame_columns(columns, frames.boxes[t], &bounds);
              else
                engine.submit_frame_columns(columns, counts, frames.boxes[t],
                                            t % 2 ? &bounds : nullptr);
              break;
            case 2: {  // the species' atoms picked from one whole frame, interleaved
              std::vector<float> whole;
              std::vector<std::vector<int>> atoms(counts.size());
              for (size_t s = 0; s < counts.size(); ++s)
                for (int64_t i = 0; i < counts[s]; ++i) {
                  atoms[s].push_back(static_cast<int>(whole.size() / 3));
                  const float* p = &frames.xyz[t][s][size_t(3 * i)];
                  whole.insert(whole.end(), p, p + 3);
                }
              engine.submit_frame_atoms(whole.data(), atoms, frames.boxes[t]);
              break;
            }
            default: {  // handed over as columns of the frame's sizes
              const CoordinateBounds b = test::fill_columns(frames, t, handed);
              if (engine.submit_frame_columns_swap(handed, frames.boxes[t], b)) ++handed_over;
              for (auto& c : handed) std::fill(c.begin(), c.end(), std::nanf(""));
            }
          }
        }
        CHECK(engine.frames_submitted() == frames.xyz.size());
        if (precision == Precision::single) {
          CHECK(handed_over > 0);
          CHECK(same_as_reference<float>(frames, config, engine.finish()));
        } else {
          CHECK(handed_over == 0);  // double precision copies
          CHECK(same_as_reference<double>(frames, config, engine.finish()));
        }
      }
}

TEST_CASE("a frame of varying sizes counted in parts, each part by its own engine, sums up") {
  auto frames = test::roomy_frames({7000, 3000, 40, 1}, 3, BoxKind::orthorhombic, 4.0, 4.4);
  // Frame 0 at the capacities, frame 1 smaller (its two large pairs still cut by rows), frame 2
  // with empty species.
  frames.counts = {frames.sizes, {6000, 2900, 7, 1}, {6100, 0, 40, 0}};
  EngineConfig base =
      test::engine_config(frames, BoxKind::orthorhombic, 120, 0.6, Precision::single);
  base.ncuda = 0;
  const auto expected = test::reference_histograms<float>(frames, base);
  for (Algorithm algorithm : {Algorithm::all_pairs, Algorithm::cell_list}) {
    CAPTURE(algorithm_name(algorithm));
    base.algorithm = algorithm;
    REQUIRE(test::run_engine(frames, base) == expected);
    for (int parts : {2, 5}) {
      CAPTURE(parts);
      std::vector<std::vector<uint64_t>> sum(expected.size(),
                                             std::vector<uint64_t>(expected[0].size(), 0));
      for (int part = 0; part < parts; ++part) {
        EngineConfig c = base;
        c.frame_parts = parts;
        c.ncpu = 1 + part % 2;
        c.max_pairs_per_task = part % 2 == 0 ? uint64_t(1) << 20 : 0;
        HistogramEngine engine(c);
        engine.set_frame_part(part);
        for (size_t t = 0; t < frames.xyz.size(); ++t) {
          std::vector<const float*> ptr;
          for (const auto& s : frames.xyz[t]) ptr.push_back(s.data());
          engine.submit_frame(ptr, frames.counts[t], frames.boxes[t]);
        }
        const auto counts = engine.finish();
        for (size_t p = 0; p < sum.size(); ++p)
          for (size_t k = 0; k < sum[p].size(); ++k) sum[p][k] += counts[p][k];
      }
      CHECK(sum == expected);
    }
  }
}

TEST_CASE("species without atoms get no task; frames of the capacities cost what they did") {
  auto frames = test::make_frames({600, 200, 50}, 6, BoxKind::orthorhombic);
  EngineConfig config =
      test::engine_config(frames, BoxKind::orthorhombic, 50, 1.0, Precision::single);
  config.ncpu = 2;
  config.ncuda = 0;
  config.max_pairs_per_task = 4000;
  for (Algorithm algorithm : {Algorithm::all_pairs, Algorithm::cell_list}) {
    CAPTURE(algorithm_name(algorithm));
    config.algorithm = algorithm;
    const auto tasks_of = [&](const test::RandomFrames& f) {
      HistogramEngine engine(config);
      for (size_t t = 0; t < f.xyz.size(); ++t) {
        std::vector<const float*> ptr;
        for (const auto& s : f.xyz[t]) ptr.push_back(s.data());
        if (f.counts.empty())
          engine.submit_frame(ptr, f.boxes[t]);
        else
          engine.submit_frame(ptr, f.counts[t], f.boxes[t]);
      }
      CHECK(engine.finish() == test::reference_histograms<float>(f, config));
      return engine.tasks_submitted();
    };
    const uint64_t fixed = tasks_of(frames);
    CHECK(fixed > 0);
    // The same frames with counts equal to the capacities: the same tasks.
    frames.counts.assign(frames.xyz.size(), frames.sizes);
    CHECK(tasks_of(frames) == fixed);
    // No atoms at all: no task (the all-pairs planner submits nothing for empty pairs).
    frames.counts.assign(frames.xyz.size(), {0, 0, 0});
    CHECK(tasks_of(frames) == 0);
    // One atom in each species: only the cross pairs have pairs.
    frames.counts.assign(frames.xyz.size(), {1, 1, 1});
    CHECK(tasks_of(frames) > 0);
    frames.counts.clear();
  }
}

TEST_CASE("counts beyond the capacities or of the wrong number are refused, nothing submitted") {
  const auto frames = test::make_frames({30, 20}, 1, BoxKind::none);
  EngineConfig config = test::engine_config(frames, BoxKind::none, 10, 7.0, Precision::single);
  config.ncpu = 1;
  config.ncuda = 0;
  HistogramEngine engine(config);
  std::vector<const float*> ptr = {frames.xyz[0][0].data(), frames.xyz[0][1].data()};
  const BoxMatrix box = frames.boxes[0];
  CHECK_THROWS_AS(engine.submit_frame(ptr, {31, 20}, box), std::invalid_argument);
  CHECK_THROWS_AS(engine.submit_frame(ptr, {-1, 20}, box), std::invalid_argument);
  CHECK_THROWS_AS(engine.submit_frame(ptr, {30}, box), std::invalid_argument);
  CHECK_THROWS_AS(engine.submit_frame_columns(ptr, {30, 21}, box), std::invalid_argument);
  std::vector<std::vector<int>> atoms = {std::vector<int>(31, 0), {}};
  CHECK_THROWS_AS(engine.submit_frame_atoms(frames.xyz[0][0].data(), atoms, box),
                  std::invalid_argument);
  std::vector<HostColumn> soa(2);
  soa[0].resize(3 * 31);
  CHECK_THROWS_AS(engine.submit_frame_columns_swap(soa, box, {}), std::invalid_argument);
  soa[0].resize(3 * 30 - 1);  // not whole atoms
  CHECK_THROWS_AS(engine.submit_frame_columns_swap(soa, box, {}), std::invalid_argument);
  CHECK(soa[0].size() == 3 * 30 - 1);  // kept
  CHECK(engine.frames_submitted() == 0);
  engine.submit_frame(ptr, {30, 0}, box);
  CHECK(engine.frames_submitted() == 1);
  const auto counts = engine.finish();
  uint64_t total = 0;
  for (uint64_t v : counts[0]) total += v;
  CHECK(total == 30 * 29 / 2);  // r_max 7 spans the points: every pair of species 0 counted
  for (size_t p = 1; p < counts.size(); ++p)
    for (uint64_t v : counts[p]) CHECK(v == 0);
  config.species_sizes = {30, -1};
  CHECK_THROWS_AS(HistogramEngine{config}, UsageError);
}

TEST_CASE("FrameCountSums hold the pairs the engine counts and what g(r) normalises by") {
  // No box, r_max beyond every distance: each pair lands in a bin, so the histograms sum to the
  // frames' pairs.
  auto frames = test::make_frames({80, 50, 1, 20}, 7, BoxKind::none);
  test::vary_counts(frames);
  EngineConfig config = test::engine_config(frames, BoxKind::none, 16, 7.0, Precision::double_);
  config.ncpu = 2;
  config.ncuda = 0;
  const auto counts = test::run_engine(frames, config);
  FrameCountSums sums, first, rest;
  for (size_t t = 0; t < frames.counts.size(); ++t) {
    const double volume = 2.0 + static_cast<double>(t);
    sums.add_frame(frames.counts[t], volume);
    (t < 3 ? first : rest).add_frame(frames.counts[t], volume);
  }
  REQUIRE(sums.pairs.size() == counts.size());
  const auto pairs = species_pairs(4);
  for (size_t p = 0; p < counts.size(); ++p) {
    CAPTURE(p);
    uint64_t total = 0;
    for (uint64_t v : counts[p]) total += v;
    CHECK(total == sums.pairs[p]);
    double per_volume = 0;
    for (size_t t = 0; t < frames.counts.size(); ++t)
      per_volume +=
          static_cast<double>(pairs_in_frame(frames.counts[t], pairs[p].first, pairs[p].second)) /
          (2.0 + static_cast<double>(t));
    CHECK(sums.pairs_per_volume[p] == doctest::Approx(per_volume).epsilon(1e-12));
  }
  uint64_t atoms0 = 0;
  for (const auto& c : frames.counts) atoms0 += static_cast<uint64_t>(c[0]);
  CHECK(sums.atoms[0] == atoms0);
  CHECK(sums.frames == frames.counts.size());
  first.add(rest);
  CHECK(first.frames == sums.frames);
  CHECK(first.atoms == sums.atoms);
  CHECK(first.pairs == sums.pairs);
  for (size_t s = 0; s < sums.atoms.size(); ++s)
    CHECK(first.atoms_per_volume[s] == doctest::Approx(sums.atoms_per_volume[s]));
  // Without a volume the per-volume sums leave the frame out.
  FrameCountSums no_box;
  no_box.add_frame({3, 2});
  CHECK(no_box.pairs == std::vector<uint64_t>{3, 6, 1});
  CHECK(no_box.pairs_per_volume == std::vector<double>{0, 0, 0});
  CHECK_THROWS_AS(no_box.add_frame({3}), std::invalid_argument);
}
