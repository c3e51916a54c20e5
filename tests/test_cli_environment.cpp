// `pairhist run` under a hostile environment (issue 40): an unwritable or missing HOME, an
// unwritable STARPU_HOME, garbage in StarPU's, pairhist's and MPI launchers' variables. Before,
// StarPU aborted the process (exit 134) in _starpu_mkpath_and_check or starpu_get_env_number;
// now a warning names the variable and the run counts, or one error line names it.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "tests/test_support.hpp"

namespace fs = std::filesystem;
using pairhist::test::capture;
using pairhist::test::contains;
using pairhist::test::shell_quote;

namespace {

const std::string kData = pairhist::test::data_dir();

struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("pairhist-env-" + std::to_string(getpid()));
  Scratch() {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string file(const std::string& name) const { return (dir / name).string(); }
};

struct Outcome {
  int status = -1;
  std::string output;
};

/// `env ENV pairhist run` on 3 frames of the water sample into `out`; ENV is NAME=VALUE words,
/// `unset` env(1)'s -u NAME ones, TMPDIR is `tmp`. The test's own STARPU_HOME is left out unless
/// ENV sets it, so that HOME decides where StarPU keeps its models.
Outcome run_with(const std::string& env, const std::string& out, const std::string& tmp,
                 const std::string& unset = "") {
  Outcome o;
  o.status = capture("env -u STARPU_HOME -u XDG_CACHE_HOME -u STARPU_PERF_MODEL_DIR " + unset +
                         " TMPDIR=" + shell_quote(tmp) + " " + env + " " +
                         shell_quote(pairhist::test::pairhist_binary()) + " run " + kData +
                         "/spce_water.xtc -s " + kData +
                         "/spce_water.gro --species O=OW --rmax 0.5 --nbins 50 --last 2 "
                         "--ncpu 1 -q -o " +
                         shell_quote(out),
                     o.output);
  return o;
}

int lines_starting(const std::string& text, const std::string& start) {
  int n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) n += line.rfind(start, 0) == 0;
  return n;
}

}  // namespace

TEST_CASE(
    "an unwritable HOME or STARPU_HOME: a warning naming it, the models in a temporary place") {
  Scratch s;
  pairhist::test::write_all(s.file("a-file"), "not a directory\n");
  const std::string fallback = s.file("pairhist-starpu-" + std::to_string(geteuid()));
  int k = 0;
  for (const auto& [env, named] :
       {std::pair<std::string, std::string>{"HOME=/proc/pairhist-none", "HOME=/proc/pairhist-none"},
        {"HOME=" + s.file("a-file"), "HOME=" + s.file("a-file")},
        {"HOME=" + s.file("home") + " STARPU_HOME=/proc/pairhist-none",
         "STARPU_HOME=/proc/pairhist-none"},
        {"STARPU_PERF_MODEL_DIR=/proc/pairhist-none",
         "STARPU_PERF_MODEL_DIR=/proc/pairhist-none"}}) {
    CAPTURE(env);
    const std::string out = s.file("out" + std::to_string(k++));
    const Outcome r = run_with(env, out, s.dir.string());
    INFO(r.output);
    CHECK(r.status == 0);  // before: 134, StarPU's abort
    CHECK(lines_starting(r.output, "pairhist: warning: " + named +
                                       ": StarPU cannot keep its "
                                       "performance models in") == 1);
    CHECK(contains(r.output, "using " + fallback + " instead"));
    CHECK(fs::is_regular_file(out + "/rdf.csv"));
    CHECK(fs::is_directory(fallback + "/codelets"));
  }
}

TEST_CASE("a missing HOME: StarPU's own fallback, no warning") {
  Scratch s;
  const Outcome r = run_with("", s.file("out"), s.dir.string(), "-u HOME");
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK_FALSE(contains(r.output, "pairhist: warning"));
  CHECK(fs::is_directory(s.file(".starpu/sampling/codelets")));
}

TEST_CASE("no writable place for StarPU's models: one error line naming the variable") {
  Scratch s;
  Outcome r;
  r.status = capture(
      "env STARPU_PERF_MODEL_DIR=/proc/pairhist-none TMPDIR=/proc/pairhist-none-either " +
          shell_quote(pairhist::test::pairhist_binary()) + " run " + kData + "/spce_water.xtc -s " +
          kData + "/spce_water.gro --species O=OW --rmax 0.5 --nbins 5 --last 1 --ncpu 1 -q -o " +
          shell_quote(s.file("out")),
      r.output);
  INFO(r.output);
  CHECK(r.status == 2);
  CHECK(lines_starting(r.output,
                       "pairhist: error: STARPU_PERF_MODEL_DIR=/proc/pairhist-none: "
                       "StarPU cannot keep its performance models") == 1);
  CHECK(contains(r.output, "set STARPU_PERF_MODEL_DIR to a writable directory"));
  CHECK_FALSE(fs::exists(s.file("out")));
}

TEST_CASE("garbage in StarPU's numeric variables: one line naming each, never an abort") {
  Scratch s;
  const Outcome r =
      run_with("HOME=" + s.dir.string() +
                   " STARPU_NCPU=abc STARPU_CALIBRATE=-1 STARPU_SCHED_ALPHA=x "
                   "STARPU_LIMIT_CUDA_0_MEM=1e3 STARPU_CUDA_PIPELINE='2 ' STARPU_SCHED=eager "
                   "STARPU_WORKERS_CPUID=abc STARPU_NWORKER_PER_CUDA=0 "
                   "STARPU_MAIN_THREAD_CPUID=100000 STARPU_MAIN_THREAD_BIND=1",
               s.file("out"), s.dir.string());
  INFO(r.output);
  // before: 134, StarPU's abort in starpu_get_env_number or an assertion; 139 for the CPU id
  CHECK(r.status == 2);
  CHECK(lines_starting(r.output, "pairhist: error: ") == 8);
  for (const char* line : {"STARPU_NCPU=abc: StarPU takes a whole number from 0 to 2147483647",
                           "STARPU_CALIBRATE=-1: StarPU takes a whole number",
                           "STARPU_SCHED_ALPHA=x: StarPU takes a number",
                           "STARPU_LIMIT_CUDA_0_MEM=1e3: StarPU takes a whole number",
                           "STARPU_CUDA_PIPELINE=2 : StarPU takes a whole number",
                           "STARPU_WORKERS_CPUID=abc: StarPU takes a list of CPU numbers",
                           "STARPU_NWORKER_PER_CUDA=0: StarPU takes 1 or more workers per GPU",
                           "STARPU_MAIN_THREAD_CPUID=100000: this machine has CPUs 0 to "})
    CHECK(contains(r.output, line));
  CHECK_FALSE(fs::exists(s.file("out")));
  // Values StarPU takes pass.
  const Outcome fine =
      run_with("HOME=" + s.dir.string() +
                   " STARPU_NCPU=1 STARPU_SCHED_ALPHA=1.5 STARPU_LIMIT_CUDA_0_MEM= "
                   "STARPU_WORKERS_CPUID='1 0' STARPU_MAIN_THREAD_CPUID=0",
               s.file("fine"), s.dir.string());
  INFO(fine.output);
  CHECK(fine.status == 0);
}

TEST_CASE("garbage in pairhist's and MPI launchers' variables: warnings, never an abort") {
  Scratch s;
  const Outcome r = run_with("HOME=" + s.dir.string() +
                                 " PAIRHIST_MPI_TIMEOUT=abc PAIRHIST_PIN_BUDGET_MB=-3 "
                                 "PAIRHIST_HDF5_PROBE_SECONDS=x",
                             s.file("out"), s.dir.string());
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(lines_starting(r.output, "pairhist: warning: PAIRHIST_") == 3);
  CHECK(fs::is_regular_file(s.file("out/rdf.csv")));
  // An MPI launcher's variables only say whether one started the process.
  const Outcome mpi = run_with(
      "HOME=" + s.dir.string() + " OMPI_COMM_WORLD_SIZE=abc OMPI_COMM_WORLD_LOCAL_SIZE=abc",
      s.file("mpi"), s.dir.string());
  INFO(mpi.output);
  CHECK(mpi.status == 0);
  CHECK(fs::is_regular_file(s.file("mpi/rdf.csv")));
}
