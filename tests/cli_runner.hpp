// Runs the pairhist binary in a scratch directory and captures its exit status and output.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>

#include "tests/test_paths.hpp"

namespace pairhist::test {

struct CliResult {
  int status = -1;
  std::string out, err;
};

/// A scratch directory (removed afterwards) to run `pairhist` in.
class CliScratch {
 public:
  explicit CliScratch(const std::string& tag)
      : dir(std::filesystem::temp_directory_path() /
            ("pairhist-" + tag + "-" + std::to_string(getpid()))) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~CliScratch() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  CliScratch(const CliScratch&) = delete;
  CliScratch& operator=(const CliScratch&) = delete;

  std::string file(const std::string& name) const { return (dir / name).string(); }

  /// Runs `pairhist ARGS --ncpu 1` (ARGS a shell string).
  CliResult run(const std::string& args) const {
    const std::string cmd =
        pairhist_binary() + " " + args + " --ncpu 1 >" + file("stdout") + " 2>" + file("stderr");
    const int raw = std::system(cmd.c_str());
    CliResult r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    r.out = slurp(file("stdout"));
    r.err = slurp(file("stderr"));
    return r;
  }

  void write(const std::string& name, const std::string& text) const {
    std::ofstream(file(name)) << text;
  }

  static std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  std::filesystem::path dir;
};

}  // namespace pairhist::test
