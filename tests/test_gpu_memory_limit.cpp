// GPU suite: a GPU that cannot hold its tasks' data (STARPU_LIMIT_CUDA_MEM small, as a huge frame
// or a shared device would) is left out or runs one task at a time, with the same counts, and a
// run that may use nothing else says so, instead of hanging in StarPU's allocation retries.
#include <doctest/doctest.h>

#include <cstdlib>

#include "pairhist/environment.hpp"
#include "pairhist/errors.hpp"
#include "tests/engine_reference.hpp"

using namespace pairhist;

namespace {

struct Outcome {
  std::vector<std::vector<uint64_t>> counts;
  int cuda_workers = 0, cpu_workers = 0;
  std::vector<std::string> notes;
};

Outcome run(const test::RandomFrames& f, const EngineConfig& c) {
  HistogramEngine engine(c);
  Outcome o;
  o.cuda_workers = engine.cuda_workers();
  o.cpu_workers = engine.cpu_workers();
  o.notes = engine.notes();
  for (size_t t = 0; t < f.xyz.size(); ++t) {
    std::vector<const float*> xyz;
    for (const auto& s : f.xyz[t]) xyz.push_back(s.data());
    engine.submit_frame(xyz, f.boxes[t]);
  }
  o.counts = engine.finish();
  return o;
}

}  // namespace

TEST_CASE("a GPU too small for its tasks leaves the counting to what can hold them") {
  if (cuda_devices() == 0) {
    MESSAGE("no GPU: skipped (the GPU suite runs it)");
    return;
  }
  // 1M atoms: 12 MB a frame. 64 MiB holds StarPU's 32 MiB chunk and one frame, not four.
  const auto frames = test::roomy_frames({600000, 400000}, 3, BoxKind::orthorhombic, 50.0, 51.0);
  EngineConfig config =
      test::engine_config(frames, BoxKind::orthorhombic, 120, 1.0, Precision::single);
  config.algorithm = Algorithm::cell_list;
  config.frames_in_flight = 2;
  config.ncuda = 1;
  EngineConfig cpu = config;
  cpu.ncuda = 0;
  cpu.ncpu = 2;
  const auto expected = run(frames, cpu).counts;

  {
    ScopedEnv limit("STARPU_LIMIT_CUDA_MEM", "4");
    config.ncpu = 2;
    const Outcome o = run(frames, config);
    CHECK(o.cuda_workers == 0);
    CHECK(o.cpu_workers == 2);
    REQUIRE(o.notes.size() == 1);
    CHECK(o.notes[0].find("GPU 0 has 4.0 MiB allowed by STARPU_LIMIT_CUDA_MEM") == 0);
    CHECK(o.notes[0].find("counting on the CPU cores") != std::string::npos);
    CHECK(o.counts == expected);

    config.ncpu = 0;
    CHECK_THROWS_AS(run(frames, config), UsageError);
  }
  {
    ScopedEnv limit("STARPU_LIMIT_CUDA_MEM", "64");
    config.ncpu = 0;
    const Outcome o = run(frames, config);
    CHECK(o.cuda_workers == 1);
    REQUIRE(o.notes.size() == 1);
    CHECK(o.notes[0].find("one task at a time") != std::string::npos);
    CHECK(o.counts == expected);
  }
  // Without a limit the GPU keeps its two workers and nothing is said.
  const Outcome o = run(frames, config);
  CHECK(o.cuda_workers == 2);
  CHECK(o.notes.empty());
  CHECK(o.counts == expected);
}
