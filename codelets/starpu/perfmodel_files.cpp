#include "codelets/starpu/perfmodel_files.hpp"

#include <fcntl.h>
#include <starpu.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <system_error>

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

/// Parses `file` with StarPU's own loader in a child: the parser asserts (abort) on a damaged
/// file, which must not take this process with it.
bool loads_cleanly(const fs::path& file) {
  const pid_t pid = fork();
  if (pid < 0) return true;  // cannot check: let StarPU read it as it would have
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) {
      dup2(null, STDOUT_FILENO);
      dup2(null, STDERR_FILENO);
    }
    starpu_perfmodel_initialize();
    struct starpu_perfmodel model {};
    const int ret = starpu_perfmodel_load_file(file.c_str(), &model);
    _exit(ret == 0 ? 0 : 1);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return true;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

std::vector<std::string> set_aside_damaged_perfmodels() {
  std::vector<std::string> moved;
  std::error_code ec;
  const fs::path dir = codelet_model_dir();
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const fs::path& file = entry.path();
    if (!entry.is_regular_file(ec) || file.extension() == kDamagedSuffix) continue;
    if (loads_cleanly(file)) continue;
    const fs::path aside = file.string() + kDamagedSuffix;
    fs::rename(file, aside, ec);
    moved.push_back("StarPU performance model " + file.string() +
                    " was damaged (a run killed while StarPU saved it?)" +
                    (ec ? ": could not move it aside (" + ec.message() + ")"
                        : ": moved to " + aside.filename().string() + ", recalibrating"));
  }
  return moved;
}

}  // namespace pairhist::codelets
