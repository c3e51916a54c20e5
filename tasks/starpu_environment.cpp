#include "tasks/starpu_environment.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <system_error>
#include <utility>

#include "pairhist/environment.hpp"
#include "pairhist/errors.hpp"

namespace fs = std::filesystem;

namespace pairhist {
namespace {

// The numeric variables StarPU 1.3.10 reads through starpu_get_env_number (directly or through
// starpu_get_env_number_default), StarPU-MPI's among them: it aborts on a value that is no whole
// number (strtol must take all of it) and asserts that it is not negative, and it keeps an int.
const std::set<std::string>& whole_number_variables() {
  static const std::set<std::string> names = {
      "STARPU_BACKOFF_MAX",
      "STARPU_BACKOFF_MIN",
      "STARPU_BUS_CALIBRATE",
      "STARPU_BUS_STATS",
      "STARPU_CALIBRATE",
      "STARPU_CALIBRATE_MINIMUM",
      "STARPU_CATCH_SIGNALS",
      "STARPU_CHECK_ENTIRE_PLATFORM",
      "STARPU_COMM_STATS",
      "STARPU_CUDA_PIPELINE",
      "STARPU_CUDA_THREAD_PER_DEV",
      "STARPU_CUDA_THREAD_PER_WORKER",
      "STARPU_DIDUSE_BARRIER",
      "STARPU_DISABLE_ASYNCHRONOUS_COPY",
      "STARPU_DISABLE_ASYNCHRONOUS_CUDA_COPY",
      "STARPU_DISABLE_ASYNCHRONOUS_MIC_COPY",
      "STARPU_DISABLE_ASYNCHRONOUS_MPI_MS_COPY",
      "STARPU_DISABLE_ASYNCHRONOUS_OPENCL_COPY",
      "STARPU_DISABLE_KERNELS",
      "STARPU_DISABLE_PINNING",
      "STARPU_DISK_SWAP_SIZE",
      "STARPU_DISPLAY_BINDINGS",
      "STARPU_ENABLE_CUDA_GPU_GPU_DIRECT",
      "STARPU_FXT_TRACE",
      "STARPU_GENERATE_TRACE",
      "STARPU_GLOBAL_ARBITER",
      "STARPU_HISTORY_MAX_ERROR",
      "STARPU_LIMIT_BANDWIDTH",
      "STARPU_LIMIT_CPU_MEM",
      "STARPU_LIMIT_CPU_NUMA_MEM",
      "STARPU_LIMIT_CUDA_MEM",
      "STARPU_LIMIT_MAX_SUBMITTED_TASKS",
      "STARPU_LIMIT_MIN_SUBMITTED_TASKS",
      "STARPU_LIMIT_OPENCL_MEM",
      "STARPU_MAIN_THREAD_BIND",
      "STARPU_MAIN_THREAD_COREID",
      "STARPU_MAIN_THREAD_CPUID",
      "STARPU_MALLOC_SIMULATION_FOLD",
      "STARPU_MAX_MEMORY_USE",
      "STARPU_MAX_PRIO",
      "STARPU_MAX_WORKERSIZE",
      "STARPU_MEMORY_STATS",
      "STARPU_MINIMUM_AVAILABLE_MEM",
      "STARPU_MINIMUM_CLEAN_BUFFERS",
      "STARPU_MIN_PRIO",
      "STARPU_MIN_WORKERSIZE",
      "STARPU_MPI_CACHE",
      "STARPU_MPI_CACHE_STATS",
      "STARPU_MPI_COOP_SENDS",
      "STARPU_MPI_DEBUG_LEVEL_MAX",
      "STARPU_MPI_DEBUG_LEVEL_MIN",
      "STARPU_MPI_DRIVER_CALL_FREQUENCY",
      "STARPU_MPI_DRIVER_TASK_FREQUENCY",
      "STARPU_MPI_FAKE_RANK",
      "STARPU_MPI_FAKE_SIZE",
      "STARPU_MPI_MASTER_NODE",
      "STARPU_MPI_NDETACHED_SEND",
      "STARPU_MPI_NOBIND",
      "STARPU_MPI_NREADY_PROCESS",
      "STARPU_MPI_PRIORITIES",
      "STARPU_MPI_THREAD_COREID",
      "STARPU_MPI_THREAD_CPUID",
      "STARPU_NCPU",
      "STARPU_NCPUS",
      "STARPU_NCUDA",
      "STARPU_NMIC",
      "STARPU_NMICTHREADS",
      "STARPU_NMPIMSTHREADS",
      "STARPU_NMPI_MS",
      "STARPU_NOPENCL",
      "STARPU_NTASKS_THRESHOLD",
      "STARPU_NTHREADS_PER_CORE",
      "STARPU_NWORKER_PER_CUDA",
      "STARPU_OPENCL_ONLY_ON_CPUS",
      "STARPU_OPENCL_ON_CPUS",
      "STARPU_OPENCL_PIPELINE",
      "STARPU_PCI_FLAT",
      "STARPU_PERF_MODEL_HOMOGENEOUS_CPU",
      "STARPU_PERF_MODEL_HOMOGENEOUS_CUDA",
      "STARPU_PERF_MODEL_HOMOGENEOUS_MIC",
      "STARPU_PERF_MODEL_HOMOGENEOUS_MPI_MS",
      "STARPU_PERF_MODEL_HOMOGENEOUS_OPENCL",
      "STARPU_PREFETCH",
      "STARPU_RAND_SEED",
      "STARPU_RESERVE_NCPU",
      "STARPU_SCHED_GRAPH_TEST_DESCENDANTS",
      "STARPU_SCHED_READY",
      "STARPU_SCHED_SORTED_ABOVE",
      "STARPU_SCHED_SORTED_BELOW",
      "STARPU_SILENT",
      "STARPU_SIMGRID",
      "STARPU_SIMGRID_CUDA_MALLOC_COST",
      "STARPU_SIMGRID_CUDA_QUEUE_COST",
      "STARPU_SIMGRID_FETCHING_INPUT_COST",
      "STARPU_SIMGRID_SCHED_COST",
      "STARPU_SIMGRID_TASK_SUBMIT_COST",
      "STARPU_SIMGRID_TRANSFER_COST",
      "STARPU_SINGLE_COMBINED_WORKER",
      "STARPU_STATS",
      "STARPU_SYNTHESIZE_ARITY_COMBINED_WORKER",
      "STARPU_TARGET_AVAILABLE_MEM",
      "STARPU_TARGET_CLEAN_BUFFERS",
      "STARPU_TASK_BREAK_ON_EXEC",
      "STARPU_TASK_BREAK_ON_POP",
      "STARPU_TASK_BREAK_ON_PUSH",
      "STARPU_TASK_BREAK_ON_SCHED",
      "STARPU_TASK_PROGRESS",
      "STARPU_TRACE_BUFFER_SIZE",
      "STARPU_USE_NUMA",
      "STARPU_WATCHDOG_CRASH",
      "STARPU_WATCHDOG_DELAY",
      "STARPU_WORKERS_GETBIND",
      "STARPU_WORKERS_NOBIND",
      "STARPU_WORKER_TREE",
  };
  return names;
}

// Those it reads through starpu_get_env_float_default: aborts unless strtof takes all of it.
const std::set<std::string>& real_number_variables() {
  static const std::set<std::string> names = {
      "STARPU_EXP_LEN_THRESHOLD", "STARPU_IDLE_POWER",  "STARPU_SCHED_ALPHA",
      "STARPU_SCHED_BETA",        "STARPU_SCHED_GAMMA", "STARPU_WINDOW_TIME_SIZE"};
  return names;
}

/// STARPU_LIMIT_CUDA_<n>_MEM, STARPU_LIMIT_OPENCL_<n>_MEM, STARPU_LIMIT_CPU_NUMA_<n>_MEM: the
/// per-device limits StarPU builds the names of.
bool per_device_limit(const std::string& name) {
  for (const char* prefix :
       {"STARPU_LIMIT_CUDA_", "STARPU_LIMIT_OPENCL_", "STARPU_LIMIT_CPU_NUMA_"}) {
    const std::string p = prefix;
    if (name.rfind(p, 0) != 0 || name.size() <= p.size() + 4) continue;
    const std::string middle = name.substr(p.size(), name.size() - p.size() - 4);
    if (name.compare(name.size() - 4, 4, "_MEM") == 0 &&
        middle.find_first_not_of("0123456789") == std::string::npos)
      return true;
  }
  return false;
}

/// What StarPU's starpu_get_env_number accepts without aborting, kept within an int: strtol
/// taking the whole text (an empty one reads as 0), not negative, at most INT_MAX.
bool whole_number_for_starpu(const char* text) {
  errno = 0;
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  return errno == 0 && *end == '\0' && v >= 0 && v <= 2147483647L;
}

/// STARPU_WORKERS_CPUID and the like: StarPU asserts that the list starts with a number, and
/// reads anything after it as more numbers (a range A-B or A- in the CPU lists).
bool id_list_for_starpu(const char* text, bool ranges) {
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  const auto separator = [](char c) { return c == ' ' || c == ',' || c == '\t'; };
  int ids = 0;
  for (const char* p = text; *p != '\0';) {
    if (separator(*p)) {
      ++p;
      continue;
    }
    if (!digit(*p)) return false;
    while (digit(*p)) ++p;
    ++ids;
    if (*p == '-') {
      if (!ranges) return false;
      ++p;
      while (digit(*p)) ++p;
    }
    if (*p != '\0' && !separator(*p)) return false;
  }
  return ids > 0;
}

bool real_number_for_starpu(const char* text) {
  char* end = nullptr;
  std::strtof(text, &end);
  return *end == '\0';
}

// StarPU 1.3's performance model version: its models are in codelets/<version>/.
constexpr const char* kCodeletSubdir = "/codelets/45/";
// StarPU keeps the model directory's paths in 256-byte buffers (perfmodel.c).
constexpr size_t kStarpuPathLimit = 255;

std::mutex g_origin_mutex;
std::string g_origin;  // where STARPU_PERF_MODEL_DIR's value came from
bool g_reserved = false;

/// Makes `dir` where missing and writes (and removes) a file in it: "" or the problem.
std::string writable_directory_problem(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return dir.string() + ": " + ec.message();
  if (!fs::is_directory(dir, ec)) return dir.string() + ": not a directory";
  const fs::path probe = dir / (".pairhist-write-check-" + std::to_string(getpid()));
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return dir.string() + ": " + std::strerror(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return "";
}

std::string origin_text(const std::string& origin) {
  return origin.empty() ? "no HOME" : origin;
}

}  // namespace

std::vector<std::string> starpu_variable_problems() {
  std::vector<std::string> problems;
  // Numbers StarPU reads without aborting but crashes or asserts on later: a CPU to bind its
  // main (or MPI) thread to that does not exist (SIGSEGV), no worker per GPU (an assertion).
  const long cpus = sysconf(_SC_NPROCESSORS_CONF);
  for (const char* name : {"STARPU_MAIN_THREAD_CPUID", "STARPU_MAIN_THREAD_COREID",
                           "STARPU_MPI_THREAD_CPUID", "STARPU_MPI_THREAD_COREID"}) {
    const char* value = env_get(name);
    if (value == nullptr || !whole_number_for_starpu(value) || cpus < 1) continue;
    if (std::strtol(value, nullptr, 10) >= cpus)
      problems.push_back(std::string(name) + "=" + excerpt(value) +
                         ": this machine has CPUs 0 to " + std::to_string(cpus - 1) +
                         " (StarPU would crash binding to it)");
  }
  if (const char* value = env_get("STARPU_NWORKER_PER_CUDA"))
    if (whole_number_for_starpu(value) && std::strtol(value, nullptr, 10) < 1)
      problems.push_back(std::string("STARPU_NWORKER_PER_CUDA=") + excerpt(value) +
                         ": StarPU takes 1 or more workers per GPU (it would abort on 0)");
  for (const auto& [name, ranges] : {std::pair<const char*, bool>{"STARPU_WORKERS_CPUID", true},
                                     {"STARPU_WORKERS_COREID", true},
                                     {"STARPU_WORKERS_CUDAID", false},
                                     {"STARPU_WORKERS_OPENCLID", false},
                                     {"STARPU_WORKERS_MICID", false}}) {
    const char* value = env_get(name);
    if (value != nullptr && !id_list_for_starpu(value, ranges))
      problems.push_back(std::string(name) + "=" + excerpt(value) +
                         (ranges ? ": StarPU takes a list of CPU numbers (\"0 2 4-7\")"
                                 : ": StarPU takes a list of device numbers (\"0 1\")") +
                         " (it would abort on this value)");
  }
  for (const std::string& name : env_names("STARPU_")) {
    const bool whole = whole_number_variables().count(name) != 0 || per_device_limit(name);
    const bool real = real_number_variables().count(name) != 0;
    if (!whole && !real) continue;
    const char* value = env_get(name.c_str());
    if (value == nullptr) continue;
    if (whole && !whole_number_for_starpu(value))
      problems.push_back(name + "=" + excerpt(value) +
                         ": StarPU takes a whole number from 0 to 2147483647 here (it would "
                         "abort on this value)");
    else if (real && !real_number_for_starpu(value))
      problems.push_back(name + "=" + excerpt(value) +
                         ": StarPU takes a number here (it would abort on this value)");
  }
  return problems;
}

PerfmodelDir starpu_perfmodel_dir() {
  if (const char* v = env_get("STARPU_PERF_MODEL_DIR"))
    return {v, std::string("STARPU_PERF_MODEL_DIR=") + v};
  for (const char* name : {"XDG_CACHE_HOME", "STARPU_HOME", "HOME"})
    if (const char* v = env_get(name))
      return {std::string(v) + "/.starpu/sampling", std::string(name) + "=" + v};
  std::string tmp = "/tmp";
  for (const char* name : {"TMPDIR", "TEMP", "TMP"})
    if (const char* v = env_get(name)) {
      tmp = v;
      break;
    }
  return {tmp + "/.starpu/sampling", ""};
}

std::string perfmodel_dir_problem(const std::string& dir) {
  if (dir.size() + std::strlen(kCodeletSubdir) > kStarpuPathLimit)
    return "longer than the " + std::to_string(kStarpuPathLimit) + " characters StarPU keeps of it";
  for (const char* sub : {"", "codelets", kCodeletSubdir, "bus"}) {
    const fs::path path = *sub ? fs::path(dir) / fs::path(sub).relative_path() : fs::path(dir);
    std::string problem = writable_directory_problem(path.lexically_normal());
    if (!problem.empty()) return problem;
  }
  return "";
}

std::string fallback_perfmodel_dir(const std::string& tmp, std::string& problem) {
  const uid_t uid = geteuid();
  const std::string mine = tmp + "/pairhist-starpu-" + std::to_string(uid);
  if (::mkdir(mine.c_str(), 0700) == 0 || errno == EEXIST) {
    // Another user's directory, or a link someone left, must not receive this user's files.
    struct stat st {};
    if (::lstat(mine.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == uid &&
        (st.st_mode & 022) == 0)
      return mine;
  }
  std::string unique = tmp + "/pairhist-starpu-XXXXXX";
  if (::mkdtemp(unique.data()) != nullptr) return unique;
  problem = tmp + ": " + std::strerror(errno);
  return "";
}

void reserve_perfmodel_dir_variable() {
  std::lock_guard<std::mutex> lock(g_origin_mutex);
  if (g_reserved) return;
  g_reserved = true;
  const PerfmodelDir found = starpu_perfmodel_dir();
  g_origin = found.origin;
  env_set("STARPU_PERF_MODEL_DIR", found.dir.c_str(), false);
}

std::string ensure_perfmodel_dir() {
  reserve_perfmodel_dir_variable();
  const char* value = env_get("STARPU_PERF_MODEL_DIR");
  const std::string dir = value ? value : "";
  const std::string problem = perfmodel_dir_problem(dir);
  if (problem.empty()) return "";
  std::string origin;
  {
    std::lock_guard<std::mutex> lock(g_origin_mutex);
    origin = origin_text(g_origin);
  }
  const char* tmp_env = env_get("TMPDIR");
  const std::string tmp = tmp_env && *tmp_env ? tmp_env : "/tmp";
  std::string fallback_problem;
  const std::string fallback = fallback_perfmodel_dir(tmp, fallback_problem);
  if (!fallback.empty()) fallback_problem = perfmodel_dir_problem(fallback);
  if (fallback.empty() || !fallback_problem.empty())
    throw UsageError(origin + ": StarPU cannot keep its performance models in " + dir + " (" +
                     problem + "), nor in a directory of " + tmp + " (" + fallback_problem +
                     "): set STARPU_PERF_MODEL_DIR to a writable directory");
  env_set("STARPU_PERF_MODEL_DIR", fallback.c_str());
  {
    std::lock_guard<std::mutex> lock(g_origin_mutex);
    g_origin = "STARPU_PERF_MODEL_DIR=" + fallback + " (pairhist's fallback)";
  }
  return origin + ": StarPU cannot keep its performance models in " + dir + " (" + problem +
         "); using " + fallback + " instead (set STARPU_PERF_MODEL_DIR or STARPU_HOME to a " +
         "writable directory to choose)";
}

}  // namespace pairhist
