// `pairhist run --sphere` and a dynamic species, stopped (SIGINT) and killed (SIGKILL) mid-run,
// then `--resume`d: the per-frame species counts of the frames done before the stop come from
// the checkpoint, and the resumed run's outputs (pairhist.h5 with its per-frame counts, the text
// files, the intensity of --scattering) equal an uninterrupted run's, bit for bit.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "drivers/job/checkpoint.hpp"
#include "tests/child_process.hpp"
#include "tests/run_dir_checks.hpp"
#include "tests/test_paths.hpp"
#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using pairhist::test::Child;
using pairhist::test::ChildEnd;

namespace {

constexpr int kBins = 100;
constexpr size_t kFrames = 60;

using Scratch = pairhist::test::TempDir;  // .dir, removed afterwards

/// The water sample's first kFrames frames, a block per frame (outputs rewritten after every
/// frame, so that the run lasts and a stop lands in it), on one CPU worker. `kind`: "sphere"
/// (with its intensity) or "dynamic" (a `within` species).
std::vector<std::string> run_args(const std::string& kind, const fs::path& out) {
  const std::string data = pairhist::test::data_dir();
  std::vector<std::string> a = {"run",
                                data + "/spce_water.xtc",
                                "--top",
                                data + "/spce_water.gro",
                                "--nbins",
                                std::to_string(kBins),
                                "--last",
                                std::to_string(kFrames - 1),
                                "--interval",
                                "1",
                                "--ncpu",
                                "1",
                                "--ncuda",
                                "0",
                                "--checkpoint-seconds",
                                "0.02",
                                "-q",
                                "-o",
                                out.string()};
  if (kind == "sphere") {
    for (const char* s : {"--species", "O=OW", "--species", "H=HW1,HW2", "--sphere",
                          "resid 1-5,1.2", "--scattering", "xray", "--nq", "101"})
      a.push_back(s);
  } else {
    for (const char* s :
         {"--species", "O=OW", "--species", "N=name OW and within 0.5 of resid 1", "--rmax", "1.2"})
      a.push_back(s);
  }
  return a;
}

std::vector<std::string> resumed(std::vector<std::string> args) {
  args.push_back("--resume");
  return args;
}

bool wait_for_file(Child& child, const fs::path& path) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    if (fs::exists(path)) return true;
    if (!child.running()) return fs::exists(path);
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return false;
}

/// Runs `kind` uninterrupted into dir; the wall time it took.
double reference(const std::string& kind, const fs::path& dir, const std::string& scratch) {
  const auto t0 = std::chrono::steady_clock::now();
  const ChildEnd end = pairhist::test::run_child(run_args(kind, dir), scratch);
  INFO(end.err);
  REQUIRE(end.exited(0));
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// `text` with every occurrence of `from` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

/// out and ref hold the same results, bit for bit, and out's run is finished: the same files,
/// every dataset and /pairhist attribute of pairhist.h5 (the per-frame counts among them), the
/// text files byte for byte but for the run's directory, which the intensity's header names.
void check_same(const fs::path& out, const fs::path& ref) {
  CHECK(pairhist::read_checkpoint((out / "pairhist.ckpt").string()).finished);
  CHECK(pairhist::test::check_whole_outputs(out, kBins).empty());
  std::vector<std::string> names, theirs;
  for (const auto& e : fs::directory_iterator(ref)) names.push_back(e.path().filename());
  for (const auto& e : fs::directory_iterator(out)) theirs.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  std::sort(theirs.begin(), theirs.end());
  CHECK(names == theirs);
  for (const std::string& name : names) {
    CAPTURE(name);
    if (name == "pairhist.ckpt" || !fs::exists(out / name)) continue;
    if (name.size() > 3 && name.substr(name.size() - 3) == ".h5") continue;
    CHECK(replaced(pairhist::test::file_text(out / name), out.string(), ref.string()) ==
          pairhist::test::file_text(ref / name));
  }
  const auto a = pairhist::test::h5_contents((out / "pairhist.h5").string());
  const auto b = pairhist::test::h5_contents((ref / "pairhist.h5").string());
  CHECK(a == b);
  CHECK(a.count("pairhist/frame_species_counts/O") == 1);
  CHECK(a.at("pairhist/frame_species_counts/O").size() == 8 * kFrames);
  if (a.count("pairhist/centre_distances/O") == 0) return;
  // A sphere run's blocks keep their own centre distances (for the errors of the excess).
  const std::string own = "/centre_distances/O";
  size_t blocks = 0;
  for (const auto& entry : a) {
    const std::string& name = entry.first;
    if (name.size() > own.size() && name.rfind("pairhist/", 0) != 0 &&
        name.compare(name.size() - own.size(), own.size(), own) == 0)
      ++blocks;
  }
  CHECK(blocks == kFrames);
}

}  // namespace

TEST_CASE("a sphere run and a dynamic species, stopped and resumed, end bit-identical") {
  for (const std::string kind : {"sphere", "dynamic"}) {
    CAPTURE(kind);
    Scratch s("resume-sphere-" + kind);
    const double t = reference(kind, s.dir / "reference", s.dir.string());
    std::mt19937 rng(20261127);
    int stopped_mid_run = 0;
    for (int trial = 0; trial < 3; ++trial) {
      CAPTURE(trial);
      const fs::path out = s.dir / ("run" + std::to_string(trial));
      // SIGINT (a clean stop that writes the frames done) and SIGKILL (the last checkpoint),
      // at random moments once the first block is written.
      const int signo = trial == 1 ? SIGKILL : SIGINT;
      Child child(run_args(kind, out), s.dir.string());
      REQUIRE(wait_for_file(child, out / "pairhist.h5"));
      std::this_thread::sleep_for(
          std::chrono::duration<double>(std::uniform_real_distribution<double>(0.0, 0.4)(rng) * t));
      child.signal_it(signo);
      const ChildEnd end = child.wait();
      INFO(end.err);
      if (!end.exited(0)) {
        CHECK(end.killed_by(signo));
        if (fs::exists(out / "pairhist.ckpt")) {
          const auto saved = pairhist::read_checkpoint((out / "pairhist.ckpt").string());
          if (!saved.finished && saved.state.frames() < kFrames) {
            ++stopped_mid_run;
            // The frames done keep their per-frame counts in the checkpoint.
            CHECK(saved.state.species_counts.size() == saved.state.frames());
            if (kind == "dynamic") CHECK(saved.state.frame_pairs.size() == saved.state.frames());
            if (kind == "sphere")
              for (const auto& block : saved.state.intervals) CHECK(!block.centre_counts.empty());
          }
        }
      }
      const ChildEnd rest = pairhist::test::run_child(resumed(run_args(kind, out)), s.dir.string());
      INFO(rest.err);
      REQUIRE(rest.exited(0));
      check_same(out, s.dir / "reference");
    }
    // Random moments must have stopped some runs in the middle, or this tested nothing.
    CHECK(stopped_mid_run >= 1);
  }
}
