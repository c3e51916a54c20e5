#include "codelets/starpu/perfmodel_files.hpp"

#include <fcntl.h>
#include <starpu.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "pairhist/environment.hpp"

namespace fs = std::filesystem;

namespace pairhist::codelets {
namespace {

constexpr const char* kDamagedSuffix = ".damaged";

/// The codelet model directory StarPU would read, from the path it gives any symbol.
fs::path codelet_model_dir() {
  char path[4096];
  starpu_perfmodel_get_model_path("pairhist.any", path, sizeof(path));
  return fs::path(path).lexically_normal().parent_path();
}

enum class ModelCheck { loads, rejected, unknown };

/// Parses `file` with StarPU's own loader in a child: the parser asserts (abort) on a damaged
/// file, which must not take this process with it. A child that ends any other way (a signal
/// of its own, the time limit) says nothing about the file.
ModelCheck check_model(const fs::path& file) {
  const pid_t pid = fork();
  if (pid < 0) return ModelCheck::unknown;
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) {
      dup2(null, STDOUT_FILENO);
      dup2(null, STDERR_FILENO);
    }
    for (int signo : {SIGSEGV, SIGBUS, SIGABRT, SIGALRM}) signal(signo, SIG_DFL);
    alarm(10);
    starpu_perfmodel_initialize();
    struct starpu_perfmodel model {};
    const int ret = starpu_perfmodel_load_file(file.c_str(), &model);
    _exit(ret == 0 ? 0 : 1);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return ModelCheck::unknown;
  if (WIFEXITED(status)) return WEXITSTATUS(status) == 0 ? ModelCheck::loads : ModelCheck::rejected;
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT ? ModelCheck::rejected
                                                            : ModelCheck::unknown;
}

}  // namespace

std::vector<std::string> set_aside_damaged_perfmodels() {
  std::vector<std::string> moved;
  // Once per process, before its first starpu_init: after a starpu_shutdown StarPU's loader
  // state is stale (the child would crash in starpu_perfmodel_arch_comb_add), and this process's
  // own runs do not damage the files while it lives.
  static std::atomic<bool> checked{false};
  if (checked.exchange(true)) return moved;
  std::error_code ec;
  const fs::path dir = codelet_model_dir();
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const fs::path& file = entry.path();
    if (!entry.is_regular_file(ec) || file.extension() == kDamagedSuffix) continue;
    if (check_model(file) != ModelCheck::rejected) continue;
    const fs::path aside = file.string() + kDamagedSuffix;
    fs::rename(file, aside, ec);
    moved.push_back("StarPU performance model " + file.string() +
                    " was damaged (a run killed while StarPU saved it?)" +
                    (ec ? ": could not move it aside (" + ec.message() + ")"
                        : ": moved to " + aside.filename().string() + ", recalibrating"));
  }
  return moved;
}

BusModel stored_bus_model() {
  // StarPU's layout (perfmodel_bus.c): <models>/bus/<host>.config beside <models>/codelets/<v>/.
  const fs::path bus = codelet_model_dir().parent_path().parent_path() / "bus";
  std::string host;
  if (const char* forced = env_get("STARPU_HOSTNAME"); forced && *forced) {
    host = forced;
  } else {
    char name[256] = {};
    gethostname(name, sizeof(name) - 1);
    host = name;
    host = host.substr(0, host.find('.'));
  }
  std::error_code ec;
  return {bus.string(), fs::exists(bus / (host + ".config"), ec)};
}

}  // namespace pairhist::codelets
