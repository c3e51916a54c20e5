// `pairhist run` interrupted the ways a cluster interrupts it (SIGINT, SIGTERM, SIGUSR1, SIGKILL,
// a full disk) at random moments and during output writes, then `--resume`d: the outputs on disk
// are always whole, a stopped run's say so, and the resumed run's equal an uninterrupted run's,
// bit for bit. Also what a resume refuses, and what a new run refuses to overwrite.
#include <doctest/doctest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "drivers/job/output_lock.hpp"
#include "pairhist/engine.hpp"
#include "tests/child_process.hpp"
#include "tests/run_dir_checks.hpp"
#include "tests/test_paths.hpp"

namespace fs = std::filesystem;
using pairhist::test::Child;
using pairhist::test::ChildEnd;

namespace {

constexpr int kBins = 120;

/// A scratch directory, removed afterwards.
struct Scratch {
  explicit Scratch(const std::string& tag)
      : dir(fs::temp_directory_path() /
            ("pairhist-resume-" + tag + "-" + std::to_string(getpid()))) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  fs::path dir;
};

/// The run the tests interrupt: 50 frames of the water sample, all three pairs, blocks of
/// `interval` frames, same-residue pairs excluded (their bins are kept per frame in flight).
std::vector<std::string> run_args(const fs::path& out, int interval, const std::string& xtc = "") {
  const std::string data = pairhist::test::data_dir();
  return {"run", xtc.empty() ? data + "/spce_water.xtc" : xtc, "--top", data + "/spce_water.gro",
          "--species", "O=OW", "--species", "H=HW1,HW2", "--rmax", "1.2", "--nbins",
          std::to_string(kBins), "--last", "49", "--interval", std::to_string(interval),
          "--exclude", "residue", "--ncpu", "1",
          // On one CPU worker the counting lasts long enough for signals to land in it on any
          // machine (a GPU counted it in a blink after the start); test_resume_job stops runs
          // on GPUs.
          "--ncuda", "0", "--checkpoint-seconds", "0.05", "-q", "-o", out.string()};
}

std::vector<std::string> with(std::vector<std::string> args, const std::string& extra) {
  args.push_back(extra);
  return args;
}

/// Waits (at most `seconds`) until `path` exists or the child ended; true if it exists.
bool wait_for_file(Child& child, const fs::path& path, double seconds = 60) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (fs::exists(path)) return true;
    if (!child.running()) return fs::exists(path);
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return false;
}

/// The run never interrupted, once per interval for all test cases: its output directory, wall
/// time and when its first outputs appeared (the start, CUDA and StarPU before them can be most
/// of a short run on a GPU machine).
struct Reference {
  fs::path dir;
  double seconds = 0;
  double first_output_seconds = 0;
};
const Reference& reference(int interval) {
  static Scratch scratch("reference");
  static std::map<int, Reference> done;
  auto it = done.find(interval);
  if (it != done.end()) return it->second;
  Reference r;
  r.dir = scratch.dir / ("interval-" + std::to_string(interval));
  const auto t0 = std::chrono::steady_clock::now();
  Child child(run_args(r.dir, interval), scratch.dir.string());
  wait_for_file(child, r.dir / "pairhist.h5");
  r.first_output_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const ChildEnd end = child.wait();
  INFO(end.err);
  REQUIRE(end.exited(0));
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return done[interval] = r;
}

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

/// Resumes the run in `out` to its end and checks it against the reference.
void resume_and_compare(const fs::path& out, int interval, const fs::path& ref,
                        const std::string& scratch) {
  const ChildEnd end =
      pairhist::test::run_child(with(run_args(out, interval), "--resume"), scratch);
  INFO(end.err);
  REQUIRE(end.exited(0));
  // A finished run's checkpoint keeps only what it was computed from.
  CHECK(pairhist::read_checkpoint((out / "pairhist.ckpt").string()).finished);
  CHECK(pairhist::test::check_whole_outputs(out, kBins).empty());
  pairhist::test::check_same_outputs(out, ref);
}

}  // namespace

TEST_CASE("SIGINT, SIGTERM and SIGUSR1 stop a run cleanly and --resume ends bit-identical") {
  Scratch s("signals");
  const Reference& ref = reference(7);
  // Signals land at random moments after the first interval's outputs exist.
  const double t = ref.seconds - ref.first_output_seconds;
  std::mt19937 rng(20261124);
  int stopped_mid_run = 0;
  int trial = 0;
  for (int signo : {SIGINT, SIGTERM, SIGUSR1, SIGINT}) {
    CAPTURE(signo);
    const fs::path out = s.dir / ("run" + std::to_string(trial++));
    // The last one may land before anything is written (the start, reading the topology).
    const bool early = trial == 4;
    const double delay =
        early ? std::uniform_real_distribution<double>(0.3, 1.0)(rng) * ref.first_output_seconds
              : std::uniform_real_distribution<double>(0.0, 0.6)(rng) * t;
    CAPTURE(early);
    CAPTURE(delay);
    Child child(run_args(out, 7), s.dir.string());
    if (!early) wait_for_file(child, out / "pairhist.h5");
    std::this_thread::sleep_for(std::chrono::duration<double>(delay));
    child.signal_it(signo);
    const ChildEnd end = child.wait();
    INFO(end.err);
    if (end.exited(0)) continue;  // it finished first
    CHECK(end.killed_by(signo));  // the shell sees 128 + signo
    const std::string name = signo == SIGINT ? "SIGINT" : signo == SIGTERM ? "SIGTERM" : "SIGUSR1";
    if (early && end.err.find("stopped by") == std::string::npos) {
      // It landed before `run` set its handlers (loading the libraries, a cold start): the
      // default action ended the process before it wrote anything.
      CHECK_FALSE(fs::exists(out / "pairhist.h5"));
      resume_and_compare(out, 7, ref.dir, s.dir.string());
      continue;
    }
    CHECK(end.err.find("stopped by " + name) != std::string::npos);
    CHECK(pairhist::test::check_whole_outputs(out, kBins).empty());
    if (fs::exists(out / "pairhist.h5")) {
      ++stopped_mid_run;
      CHECK(end.err.find("resume with: ") != std::string::npos);
      CHECK(end.err.find(" --resume\n") != std::string::npos);
      CHECK(fs::exists(out / "pairhist.ckpt"));
      // Every format says the run is incomplete and why.
      CHECK(pairhist::test::h5_completion((out / "pairhist.h5").string()) ==
            std::make_pair(int64_t(0), name));
      for (const char* text : {"rdf.csv", "rdf.xvg", "cn.xvg"}) {
        const std::string f = pairhist::test::file_text(out / text);
        CHECK(f.find("# complete = 0\n# stopped_by = " + name + "\n") != std::string::npos);
      }
    }
    resume_and_compare(out, 7, ref.dir, s.dir.string());
  }
  // Random moments must have caught some runs in the middle, or this tested nothing.
  CHECK(stopped_mid_run >= 2);
  INFO("reference: " << ref.seconds << " s, first outputs after " << ref.first_output_seconds);

  // A finished run says so in every format too.
  CHECK(pairhist::test::h5_completion((ref.dir / "pairhist.h5").string()) ==
        std::make_pair(int64_t(1), std::string()));
  CHECK(pairhist::test::file_text(ref.dir / "rdf.csv").find("# complete = 1\n") !=
        std::string::npos);
}

TEST_CASE(
    "SIGKILL at random moments and during output writes; --resume goes on from the last "
    "checkpoint, bit-identical") {
  Scratch s("kill");
  // One block per frame: the outputs are rewritten after every frame, so writes take much of
  // the run and random kills land in them too.
  const Reference& ref = reference(1);
  const double t = ref.seconds;
  std::mt19937 rng(7);

  SUBCASE("a chain of kills at random moments, then a resume to the end") {
    const fs::path out = s.dir / "chain";
    int killed = 0;
    bool finished = false;
    for (int k = 0; k < 4 && !finished; ++k) {
      Child child(k == 0 ? run_args(out, 1) : with(run_args(out, 1), "--resume"), s.dir.string());
      std::this_thread::sleep_for(
          std::chrono::duration<double>(std::uniform_real_distribution<double>(0.1, 0.5)(rng) * t));
      child.signal_it(SIGKILL);
      const ChildEnd end = child.wait();
      finished = end.exited(0);  // the rest of the run was shorter than the delay
      killed += end.killed_by(SIGKILL);
      // Whatever the moment, the visible files are whole (temporaries may be left).
      pairhist::test::check_whole_outputs(out, kBins);
    }
    CHECK(killed >= 2);
    if (finished)
      pairhist::test::check_same_outputs(out, ref.dir);
    else
      resume_and_compare(out, 1, ref.dir, s.dir.string());
    CHECK(pairhist::test::check_whole_outputs(out, kBins).empty());  // leftovers cleaned
  }

  SUBCASE("killed while writing each kind of file") {
    for (const std::string file : {"pairhist.h5", "rdf.csv", "pairhist.ckpt"}) {
      CAPTURE(file);
      // Not "in-pairhist.h5": -o refuses a name that looks like a file's.
      const fs::path out = s.dir / ("in-" + file + "-dir");
      Child child(run_args(out, 1), s.dir.string());
      // The writer's temporary: the kill lands while the file is being written.
      const fs::path temp = out / ("." + std::string(file) + ".tmp." + std::to_string(child.pid()));
      // Skip the first few writes so the files already exist and a torn write would show.
      bool caught = false;
      for (int write = 0; write < 4 && wait_for_file(child, temp); ++write) {
        if (write < 3) {
          while (fs::exists(temp) && child.running()) std::this_thread::yield();
          continue;
        }
        child.signal_it(SIGKILL);
        caught = true;
      }
      child.wait();
      REQUIRE(caught);
      const auto left = pairhist::test::check_whole_outputs(out, kBins);
      CHECK(left.size() <= 1);  // the killed write's temporary, if it had not been renamed yet
      resume_and_compare(out, 1, ref.dir, s.dir.string());
    }
  }
}

TEST_CASE("what a run refuses: overwriting results, resuming other settings or changed input") {
  Scratch s("refuse");
  const fs::path xtc = s.dir / "traj.xtc";
  fs::copy_file(pairhist::test::data_dir() + "/spce_water.xtc", xtc);
  const fs::path out = s.dir / "out";
  const auto args = run_args(out, 5, xtc.string());
  auto run = [&](const std::vector<std::string>& a) {
    return pairhist::test::run_child(a, s.dir.string());
  };
  auto one_line_error = [](const ChildEnd& e, int code, const std::string& what) {
    INFO(e.err);
    CHECK(e.exited(code));
    CHECK(lines(e.err) == 1);
    CHECK(e.err.find("pairhist: error: ") == 0);
    CHECK(e.err.find(what) != std::string::npos);
  };

  // An interrupted run: stopped as soon as its first checkpoint is on disk.
  {
    Child child(args, s.dir.string());
    if (!wait_for_file(child, out / "pairhist.ckpt")) {
      const ChildEnd early = child.wait();
      FAIL("the run ended (exit " << early.exit_code << ", signal " << early.signal
                                  << ") before its first checkpoint: " << early.err);
    }
    child.signal_it(SIGINT);
    const ChildEnd end = child.wait();
    INFO(end.err);
    REQUIRE(end.killed_by(SIGINT));
  }
  const std::string checkpoint = pairhist::test::file_text(out / "pairhist.ckpt");
  one_line_error(run(args), 2, "holds an interrupted run");
  // Settings that change the result may not change.
  auto other = with(args, "--resume");
  other[9] = "1.1";  // --rmax
  one_line_error(run(other), 2, "--rmax differs");
  auto more = with(args, "--resume");
  more[13] = "60";  // --last
  one_line_error(run(more), 2, "--last differs");
  // Nor the input: same bytes, touched.
  const auto mtime = fs::last_write_time(xtc);
  fs::last_write_time(xtc, mtime + std::chrono::seconds(1));
  one_line_error(run(with(args, "--resume")), 2, "traj.xtc changed since the checkpoint");
  fs::last_write_time(xtc, mtime);
  // A damaged checkpoint.
  {
    std::string bad = checkpoint;
    bad[bad.size() / 2] = static_cast<char>(bad[bad.size() / 2] ^ 0x10);
    std::ofstream(out / "pairhist.ckpt", std::ios::binary) << bad;
  }
  one_line_error(run(with(args, "--resume")), 1, "not a valid pairhist checkpoint");
  std::ofstream(out / "pairhist.ckpt", std::ios::binary) << checkpoint;
  one_line_error(run(with(with(args, "--resume"), "--overwrite")), 2, "exclude each other");

  // Speed settings may change: resume on two workers with cell lists.
  auto faster = with(args, "--resume");
  faster[19] = "2";  // --ncpu
  faster.push_back("--algorithm");
  faster.push_back("cell-list");
  const ChildEnd resumed = run(faster);
  INFO(resumed.err);
  REQUIRE(resumed.exited(0));

  // A finished run is not overwritten. Resuming it does nothing (a job script may resume
  // whatever happened), but only with its own settings.
  one_line_error(run(args), 2, "holds the results of an earlier run");
  const std::string results = pairhist::test::file_text(out / "rdf.csv");
  const ChildEnd again = run(with(args, "--resume"));
  CHECK(again.exited(0));
  CHECK(again.err.find("finished results (50 frames): nothing to resume") != std::string::npos);
  CHECK(pairhist::test::file_text(out / "rdf.csv") == results);
  one_line_error(run(other), 2, "--rmax differs");
  CHECK(run(with(args, "--overwrite")).exited(0));
  // --resume where nothing was run starts afresh.
  const ChildEnd fresh = run(with(run_args(s.dir / "new", 5, xtc.string()), "--resume"));
  CHECK(fresh.exited(0));
  CHECK(fs::exists(s.dir / "new" / "pairhist.h5"));
}

TEST_CASE(
    "a full disk ends the run with one clean error and no damaged file; --resume after "
    "making room ends bit-identical") {
  Scratch s("diskfull");
  const Reference& ref = reference(1);
  const fs::path disk = s.dir / "disk";
  fs::create_directories(disk);
  // A small tmpfs where we may mount one (root), else a file-size limit on the process.
  const bool mounted = ::mount("tmpfs", disk.c_str(), "tmpfs", 0, "size=200k") == 0;
  const std::string how =
      mounted ? "full disk: a 200 KiB tmpfs" : "full disk: RLIMIT_FSIZE of 60 KiB (no mount)";
  MESSAGE(how);
  struct Unmount {
    bool mounted;
    fs::path dir;
    ~Unmount() {
      if (mounted) ::umount2(dir.c_str(), MNT_DETACH);
    }
  } unmount{mounted, disk};
  const fs::path out = disk / "out";
  const ChildEnd end =
      pairhist::test::run_child(run_args(out, 1), s.dir.string(), mounted ? 0 : 60 * 1024);
  INFO(end.err);
  CHECK(end.exited(1));
  CHECK(lines(end.err) == 1);
  CHECK(end.err.find("pairhist: error: ") == 0);
  CHECK(end.err.find(mounted ? "No space left on device" : "File too large") != std::string::npos);
  CHECK(end.err.find("--resume") != std::string::npos);
  // Nothing torn, nothing left behind; the checkpoint holds the frames done.
  CHECK(pairhist::test::check_whole_outputs(out, kBins).empty());
  REQUIRE(fs::exists(out / "pairhist.ckpt"));
  const auto saved = pairhist::read_checkpoint((out / "pairhist.ckpt").string());
  CHECK(saved.state.frames() > 0);
  CHECK(saved.state.frames() < 50);

  if (mounted) REQUIRE(::mount("tmpfs", disk.c_str(), "tmpfs", MS_REMOUNT, "size=8m") == 0);
  resume_and_compare(out, 1, ref.dir, s.dir.string());
}

TEST_CASE(
    "a GPU task that cannot count ends the run with one clean error, earlier intervals kept") {
  if (pairhist::cuda_devices() == 0) {
    MESSAGE("no GPU: skipped (the GPU suite runs it)");
    return;
  }
  Scratch s("gpu-failure");
  const fs::path out = s.dir / "run";
  // Every task on the GPU (no CPU worker), and each of frame 20 fails as a launch without
  // device memory would: intervals 0-6 and 7-13 are complete before it.
  std::vector<std::string> args = run_args(out, 7);
  for (size_t k = 0; k + 1 < args.size(); ++k) {
    if (args[k] == "--ncuda") args[k + 1] = "1";
    if (args[k] == "--ncpu") args[k + 1] = "0";
  }
  setenv("PAIRHIST_TEST_FAIL_CUDA_FRAME", "20", 1);
  const ChildEnd end = pairhist::test::run_child(args, s.dir.string());
  unsetenv("PAIRHIST_TEST_FAIL_CUDA_FRAME");
  INFO(end.err);
  CHECK(end.exited(1));
  CHECK(end.err.find("pairhist: error: " + pairhist::test::data_dir() +
                     "/spce_water.xtc: frame 20: GPU ") != std::string::npos);
  CHECK(end.err.find("out of memory") != std::string::npos);
  CHECK(pairhist::test::check_whole_outputs(out, kBins).empty());
  CHECK(pairhist::read_checkpoint((out / "pairhist.ckpt").string()).state.frames() == 14);
  CHECK(pairhist::test::file_text(out / "rdf.csv").find("# complete = 0\n") != std::string::npos);
}

TEST_CASE("a run into a directory another run is writing is refused; afterwards it runs") {
  Scratch s("lock");
  const Reference& ref = reference(7);
  const fs::path out = s.dir / "run";
  {
    // This process holds the directory as a running pairhist would (same lock, same file).
    const pairhist::OutputLock other(out.string());
    for (const bool resume : {false, true}) {  // a job script started twice; a resume
      CAPTURE(resume);
      const ChildEnd second = pairhist::test::run_child(
          resume ? with(run_args(out, 7), "--resume") : run_args(out, 7), s.dir.string());
      INFO(second.err);
      CHECK(second.exited(2));
      CHECK(second.err.find("another pairhist run is writing into " + out.string() + " (pid " +
                            std::to_string(getpid()) + " on host ") != std::string::npos);
      CHECK(lines(second.err) == 1);
      CHECK(fs::exists(out / ".pairhist.lock"));  // the holder's, untouched
    }
  }
  CHECK_FALSE(fs::exists(out));  // the holder created it and left it empty: removed
  const ChildEnd end = pairhist::test::run_child(run_args(out, 7), s.dir.string());
  INFO(end.err);
  REQUIRE(end.exited(0));
  pairhist::test::check_same_outputs(out, ref.dir);
  CHECK_FALSE(fs::exists(out / ".pairhist.lock"));
}
