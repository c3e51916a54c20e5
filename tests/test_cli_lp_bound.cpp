// `run --lp-bound` end to end: with no measured models the summary and the report say why there
// is no StarPU bound, while the bound from the run's own measured task times is there and below
// the makespan; after `calibrate` (same arguments) StarPU's bound is computed too.
// Every case uses its own StarPU home, so models left over by other tests or runs play no part;
// the last case damages that home's models as a killed run leaves them.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/cli_runner.hpp"
#include "tests/test_support.hpp"

using pairhist::test::CliScratch;
using pairhist::test::contains;
namespace fs = std::filesystem;

namespace {

/// StarPU's model directory pointed at the scratch directory for the scope's lifetime.
class ModelHome {
 public:
  explicit ModelHome(const CliScratch& s) {
    for (const char* name : {"STARPU_HOME", "STARPU_PERF_MODEL_DIR", "STARPU_CALIBRATE_MINIMUM"})
      if (const char* v = std::getenv(name)) saved_.emplace_back(name, v);
    setenv("STARPU_HOME", s.file("starpu").c_str(), 1);
    unsetenv("STARPU_PERF_MODEL_DIR");
    unsetenv("STARPU_CALIBRATE_MINIMUM");
  }
  ~ModelHome() {
    unsetenv("STARPU_HOME");
    for (const auto& [name, value] : saved_) setenv(name.c_str(), value.c_str(), 1);
  }

 private:
  std::vector<std::pair<std::string, std::string>> saved_;
};

/// A 9-species input (F1's shape, scaled down): row tiles of large pairs, whole pairs and groups
/// of small pairs, i.e. several task kinds per frame.
std::string synth_job(const CliScratch& s) {
  const std::string dir = s.file("in");
  REQUIRE(pairhist::test::run_shell(pairhist::test::pairhist_binary() +
                                    " synth --case F1 --n 4000 --frames 12 -q -o " + dir +
                                    " >/dev/null"));
  std::string job = dir + "/F1.xtc --top " + dir + "/F1.gro";
  for (int k = 0; k < 9; ++k) {
    const std::string sp = "S" + std::to_string(k);
    job += " --species " + sp + "=" + sp;
  }
  return job + " --rmax 300 --units angstrom --nbins 200";
}

nlohmann::json read_json(const std::string& path) {
  return nlohmann::json::parse(CliScratch::slurp(path));
}

}  // namespace

TEST_CASE("run --lp-bound without measurements says why there is no bound") {
  CliScratch s("lp-none");
  ModelHome home(s);
  const std::string job = synth_job(s);
  // eager consults no model, so nothing is measured during the run either.
  const auto r = s.run("run " + job + " --sched eager --lp-bound --verbose -o " + s.file("out") +
                       " --report " + s.file("r.json") + " --lp-file " + s.file("bound.lp"));
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  CHECK(contains(r.out, "StarPU's history bound: n/a: "));
  CHECK(contains(r.out, "task kinds have fewer than 10 measurements on every worker kind"));
  CHECK(contains(r.out, "pairhist calibrate"));
  const auto report = read_json(s.file("r.json"));
  CHECK(report["lp_bound_seconds"].is_null());
  REQUIRE(report["lp_bound_reason"].is_string());
  CHECK(contains(r.out, report["lp_bound_reason"].get<std::string>()));
  const uint64_t kinds = report["lp_task_kinds"]["total"].get<uint64_t>();
  CHECK(kinds >= 3);
  CHECK(report["lp_task_kinds"]["uncalibrated"].get<uint64_t>() == kinds);
  // The reason counts every kind, and the LP file lists each with no measurement on the CPU.
  CHECK(contains(r.out, std::to_string(kinds) + " of " + std::to_string(kinds) + " task kinds"));
  const std::string lp = CliScratch::slurp(s.file("bound.lp"));
  CHECK(contains(lp, "cpu 0!"));
  CHECK(contains(lp, "min: tmax;"));  // StarPU's LP follows the table

  // The measured bound needs no model. The run itself is a feasible point of its LP (each arch's
  // summed durations fit in workers x makespan), so the optimum cannot exceed the makespan.
  REQUIRE(report["lp_bound_measured_seconds"].is_number());
  CHECK(report["lp_bound_measured_reason"].is_null());
  const double measured = report["lp_bound_measured_seconds"].get<double>();
  const double makespan = report["makespan_seconds"].get<double>();
  MESSAGE("makespan " << makespan << " s, measured-times bound " << measured << " s");
  CHECK(measured > 0);
  CHECK(measured <= makespan * (1 + 1e-6) + 1e-6);
  // Busy time over the CPU workers: with one arch the LP optimum is exactly that sum / workers.
  double busy = 0;
  for (const auto& w : report["workers"]) busy += w["busy_seconds"].get<double>();
  CHECK(measured == doctest::Approx(busy / report["cpu_workers"].get<double>()).epsilon(1e-6));
  // Its kinds are StarPU's pools; with the cores alone nothing is estimated.
  CHECK(report["lp_measured_kinds"].get<uint64_t>() == kinds);
  CHECK(report["lp_measured_estimated_kinds"].get<uint64_t>() == 0);
  char line[64];
  std::snprintf(line, sizeof(line), "LP bound      : %.3f s from this run's measured", measured);
  CHECK(contains(r.out, line));
  CHECK(contains(r.out, "0 of " + std::to_string(kinds) + " kinds estimated"));
}

TEST_CASE("calibrate measures every task kind; run --lp-bound then gets a lower bound") {
  CliScratch s("lp-cal");
  ModelHome home(s);
  const std::string job = synth_job(s);
  const auto cal = s.run("calibrate " + job + " --frames 6 --passes 6");
  INFO(cal.out << cal.err);
  REQUIRE(cal.status == 0);
  CHECK(contains(cal.out, "task kinds have at least 10 measurements on every worker kind"));
  // 6 frames cannot give a kind that occurs once per frame 10 measurements: a second pass ran.
  CHECK(!contains(cal.out, " 1 pass;"));

  const auto r = s.run("run " + job + " --sched eager --lp-bound --verbose -o " + s.file("out") +
                       " --report " + s.file("r.json"));
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  CHECK(contains(r.out, "makespan / bound"));
  const auto report = read_json(s.file("r.json"));
  REQUIRE(report["lp_bound_seconds"].is_number());
  CHECK(report["lp_bound_reason"].is_null());
  CHECK(report["lp_task_kinds"]["uncalibrated"].get<uint64_t>() == 0);
  CHECK(report["lp_task_kinds"]["partly_calibrated"].get<uint64_t>() == 0);
  const double bound = report["lp_bound_seconds"].get<double>();
  const double makespan = report["makespan_seconds"].get<double>();
  MESSAGE("makespan " << makespan << " s, LP bound " << bound << " s");
  // One worker: the bound is the sum of the calibrated means, the makespan the sum of this run's
  // durations plus gaps. Calibration ran on the same (shared, noisy) cores: allow 2x either way,
  // which still catches a unit slip (ms for s) or a bound from the wrong tasks.
  CHECK(bound > 0);
  CHECK(bound <= 2 * makespan + 0.05);
  CHECK(bound >= makespan / 20);
}

TEST_CASE("a model file truncated by a killed run is moved aside and the next run recalibrates") {
  CliScratch s("lp-damaged");
  ModelHome home(s);
  const std::string job = synth_job(s);
  const std::string run = "run " + job + " --sched dmda -q --overwrite -o " + s.file("out");
  REQUIRE(s.run("calibrate " + job + " --frames 2 --passes 1").status == 0);
  const fs::path dir = fs::path(s.file("starpu")) / ".starpu/sampling/codelets";
  std::vector<fs::path> models;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) models.push_back(e.path());
  REQUIRE(!models.empty());
  // What SIGKILL leaves when it lands while StarPU rewrites the file in place.
  for (const fs::path& m : models) fs::resize_file(m, fs::file_size(m) / 2);
  const auto r = s.run(run);
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  for (const fs::path& m : models) {
    CHECK(contains(r.err, "pairhist: warning: StarPU performance model " + m.string()));
    CHECK(fs::exists(m.string() + ".damaged"));
  }
  const auto again = s.run(run);
  CHECK(again.status == 0);
  CHECK(!contains(again.err, "damaged"));  // StarPU may still say it calibrates
}
