// Runs `pairhist` as a child process that a test can signal or kill at a chosen moment, and
// waits for it with a time limit, so a test fails instead of hanging on a loaded machine.
#pragma once

#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/test_paths.hpp"

namespace pairhist::test {

/// How a child ended: its exit code, or the signal that ended it.
struct ChildEnd {
  int exit_code = -1;  // -1 when ended by a signal
  int signal = 0;
  std::string out, err;
  bool exited(int code) const { return exit_code == code; }
  bool killed_by(int signo) const { return signal == signo; }
};

class Child {
 public:
  /// Starts `pairhist ARGS` with stdout and stderr going to files in `scratch`. With
  /// file_size_limit > 0, no file it writes may grow beyond that many bytes (RLIMIT_FSIZE), and
  /// writing past it fails with EFBIG instead of killing it (SIGXFSZ ignored).
  Child(const std::vector<std::string>& args, const std::string& scratch, long file_size_limit = 0)
      : Child(with_binary(args), scratch, file_size_limit, Program{}) {}
  /// Starts the program argv[0] (a path) with the arguments that follow, e.g. a launcher.
  struct Program {};
  Child(const std::vector<std::string>& argv, const std::string& scratch, long file_size_limit,
        Program)
      : out_(scratch + "/child.out"), err_(scratch + "/child.err") {
    pid_ = fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      const int o = ::open(out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int e = ::open(err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (o < 0 || e < 0) _exit(126);
      dup2(o, 1);
      dup2(e, 2);
      if (file_size_limit > 0) {
        signal(SIGXFSZ, SIG_IGN);  // an ignored signal stays ignored across exec
        const rlimit limit{static_cast<rlim_t>(file_size_limit),
                           static_cast<rlim_t>(file_size_limit)};
        setrlimit(RLIMIT_FSIZE, &limit);
      }
      std::vector<std::string> words = argv;
      std::vector<char*> c;
      for (auto& a : words) c.push_back(a.data());
      c.push_back(nullptr);
      execv(c[0], c.data());
      _exit(127);
    }
  }
  ~Child() {
    if (pid_ > 0 && !ended_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const { return pid_; }
  void signal_it(int signo) const { kill(pid_, signo); }
  bool running() {
    if (ended_) return false;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      record(status);
      return false;
    }
    return true;
  }

  /// Waits at most `seconds` for the child to end (then kills it and fails the test).
  ChildEnd wait(double seconds = 120) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (running()) {
      if (std::chrono::steady_clock::now() > deadline) {
        kill(pid_, SIGKILL);
        int status = 0;
        waitpid(pid_, &status, 0);
        record(status);
        FAIL("pairhist did not end within " << seconds << " s");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    end_.out = slurp(out_);
    end_.err = slurp(err_);
    return end_;
  }

 private:
  static std::vector<std::string> with_binary(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {pairhist_binary()};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }
  void record(int status) {
    ended_ = true;
    if (WIFEXITED(status)) end_.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) end_.signal = WTERMSIG(status);
  }
  static std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  std::string out_, err_;
  pid_t pid_ = -1;
  bool ended_ = false;
  ChildEnd end_;
};

/// Runs pairhist to its end.
inline ChildEnd run_child(const std::vector<std::string>& args, const std::string& scratch,
                          long file_size_limit = 0) {
  Child c(args, scratch, file_size_limit);
  return c.wait();
}

}  // namespace pairhist::test
