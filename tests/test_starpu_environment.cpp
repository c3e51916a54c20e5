// StarPU's settings from the environment, checked before StarPU reads them
// (tasks/starpu_environment.hpp): the numeric variables StarPU would abort on, where its model
// directory is, whether it can be written, and the private fallback under TMPDIR.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "pairhist/environment.hpp"
#include "tasks/starpu_environment.hpp"

namespace fs = std::filesystem;
using namespace pairhist;

namespace {

/// A variable unset for a scope, its value (if any) restored after.
class ScopedUnset {
 public:
  explicit ScopedUnset(const char* name) : name_(name) {
    if (const char* v = env_get(name)) old_ = v, had_ = true;
    env_unset(name);
  }
  ~ScopedUnset() {
    if (had_) env_set(name_, old_.c_str());
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("pairhist-starpu-env-" + std::to_string(getpid()));
  TempDir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

bool names(const std::vector<std::string>& lines, const std::string& start) {
  for (const auto& l : lines)
    if (l.rfind(start, 0) == 0) return true;
  return false;
}

}  // namespace

TEST_CASE("StarPU's numeric variables: a line for each value StarPU would abort on") {
  CHECK(starpu_variable_problems().empty());  // the test's own environment
  {
    ScopedEnv ncpu("STARPU_NCPU", "abc"), calibrate("STARPU_CALIBRATE", "-1"),
        limit("STARPU_LIMIT_OPENCL_3_MEM", "12x"), alpha("STARPU_SCHED_ALPHA", "fast"),
        big("STARPU_PREFETCH", "99999999999"), other("STARPU_NOT_A_SETTING", "abc"),
        odd("STARPU_LIMIT_CUDA_X_MEM", "abc");
    const std::vector<std::string> p = starpu_variable_problems();
    CHECK(p.size() == 5);
    CHECK(names(p, "STARPU_NCPU=abc: StarPU takes a whole number from 0 to 2147483647"));
    CHECK(names(p, "STARPU_CALIBRATE=-1: "));
    CHECK(names(p, "STARPU_LIMIT_OPENCL_3_MEM=12x: "));
    CHECK(names(p, "STARPU_SCHED_ALPHA=fast: StarPU takes a number"));
    CHECK(names(p, "STARPU_PREFETCH=99999999999: "));
  }
  {
    // Read otherwise, then asserted or crashed on.
    ScopedEnv cpus("STARPU_WORKERS_CPUID", "abc"), cores("STARPU_WORKERS_COREID", ""),
        gpus("STARPU_WORKERS_CUDAID", "0-1"), per_gpu("STARPU_NWORKER_PER_CUDA", "0"),
        main_cpu("STARPU_MAIN_THREAD_CPUID", "99999");
    const std::vector<std::string> p = starpu_variable_problems();
    CHECK(p.size() == 5);
    CHECK(names(p, "STARPU_WORKERS_CPUID=abc: StarPU takes a list of CPU numbers"));
    CHECK(names(p, "STARPU_WORKERS_COREID=: "));
    CHECK(names(p, "STARPU_WORKERS_CUDAID=0-1: StarPU takes a list of device numbers"));
    CHECK(names(p, "STARPU_NWORKER_PER_CUDA=0: StarPU takes 1 or more"));
    CHECK(names(p, "STARPU_MAIN_THREAD_CPUID=99999: this machine has CPUs 0 to "));
  }
  ScopedEnv ncpu("STARPU_NCPU", "4"), empty("STARPU_CALIBRATE", ""),
      beta("STARPU_SCHED_BETA", "2.5"), cpus("STARPU_WORKERS_CPUID", "0 1,2 4-7 3-"),
      gpus("STARPU_WORKERS_CUDAID", "1 0"), main_cpu("STARPU_MAIN_THREAD_CPUID", "0");
  CHECK(starpu_variable_problems().empty());
}

TEST_CASE("StarPU's model directory: found as StarPU finds it, named by its variable") {
  ScopedUnset dir("STARPU_PERF_MODEL_DIR"), xdg("XDG_CACHE_HOME"), home("STARPU_HOME");
  {
    ScopedEnv h("HOME", "/home/someone");
    const PerfmodelDir d = starpu_perfmodel_dir();
    CHECK(d.dir == "/home/someone/.starpu/sampling");
    CHECK(d.origin == "HOME=/home/someone");
    ScopedEnv s("STARPU_HOME", "/data/starpu");
    CHECK(starpu_perfmodel_dir().origin == "STARPU_HOME=/data/starpu");
    ScopedEnv x("XDG_CACHE_HOME", "/cache");
    CHECK(starpu_perfmodel_dir().dir == "/cache/.starpu/sampling");
    ScopedEnv p("STARPU_PERF_MODEL_DIR", "/models");
    CHECK(starpu_perfmodel_dir().dir == "/models");
    CHECK(starpu_perfmodel_dir().origin == "STARPU_PERF_MODEL_DIR=/models");
  }
  ScopedUnset h("HOME");
  ScopedEnv t("TMPDIR", "/scratch");
  CHECK(starpu_perfmodel_dir().dir == "/scratch/.starpu/sampling");
  CHECK(starpu_perfmodel_dir().origin.empty());
}

TEST_CASE("a model directory StarPU can write: made as StarPU makes it; else the reason") {
  TempDir t;
  const fs::path models = t.path / "a" / "sampling";
  CHECK(perfmodel_dir_problem(models.string()).empty());
  CHECK(fs::is_directory(models / "codelets" / "45"));
  CHECK(fs::is_directory(models / "bus"));
  CHECK(fs::is_empty(models / "bus"));  // the file written to check it is gone
  std::ofstream(t.path / "file") << "x";
  const std::string in_file = perfmodel_dir_problem((t.path / "file" / "sampling").string());
  CHECK(in_file.find((t.path / "file").string()) != std::string::npos);
  CHECK(perfmodel_dir_problem("/proc/pairhist-none/.starpu/sampling") != "");
  CHECK(perfmodel_dir_problem("/" + std::string(250, 'x')).find("longer than") !=
        std::string::npos);
}

TEST_CASE("the fallback directory: this user's own, never a link or another's") {
  TempDir t;
  std::string problem;
  const std::string mine = fallback_perfmodel_dir(t.path.string(), problem);
  CHECK(mine == (t.path / ("pairhist-starpu-" + std::to_string(geteuid()))).string());
  struct stat st {};
  REQUIRE(::lstat(mine.c_str(), &st) == 0);
  CHECK((st.st_mode & 077) == 0);
  CHECK(fallback_perfmodel_dir(t.path.string(), problem) == mine);  // kept for the next run
  // A link planted where the directory goes, or a directory others may write, is not used.
  fs::remove(mine);
  fs::create_directories(t.path / "elsewhere");
  fs::create_directory_symlink(t.path / "elsewhere", mine);
  const std::string instead = fallback_perfmodel_dir(t.path.string(), problem);
  CHECK(instead != mine);
  CHECK(instead.rfind((t.path / "pairhist-starpu-").string(), 0) == 0);
  CHECK(fs::is_directory(fs::symlink_status(instead)));
  fs::remove(mine);
  fs::create_directory(mine);
  fs::permissions(mine, fs::perms::all);
  CHECK(fallback_perfmodel_dir(t.path.string(), problem) != mine);
  CHECK(fallback_perfmodel_dir("/proc/pairhist-none", problem).empty());
  CHECK(problem.rfind("/proc/pairhist-none: ", 0) == 0);
}
