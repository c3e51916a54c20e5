// Runs a piece of work in a forked child process and streams its result back through a pipe:
// for libraries that may end the process, abort, or leave themselves locked on bad input
// (libgromacs on a damaged .tpr). Whatever happens in the child, the parent gets bytes or an
// InputError.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

namespace pairhist::io {

/// Buffered writes to a file descriptor (the child's end of the pipe).
class PipeWriter {
 public:
  explicit PipeWriter(int fd) : fd_(fd) {}
  void bytes(const void* data, size_t n);
  void flush();
  template <class T>
  void value(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes(&v, sizeof v);
  }
  template <class T>
  void vector(const std::vector<T>& v) {
    value(static_cast<uint64_t>(v.size()));
    bytes(v.data(), v.size() * sizeof(T));
  }
  void string(const std::string& s);
  void strings(const std::vector<std::string>& v);

 private:
  int fd_;
  std::vector<char> buffer_;
};

/// Buffered reads from a file descriptor (the parent's end); a short read throws InputError.
class PipeReader {
 public:
  PipeReader(int fd, std::string what) : fd_(fd), what_(std::move(what)) {}
  void bytes(void* data, size_t n);
  template <class T>
  T value() {
    static_assert(std::is_trivially_copyable_v<T>);
    T v;
    bytes(&v, sizeof v);
    return v;
  }
  template <class T>
  std::vector<T> vector() {
    std::vector<T> v(static_cast<size_t>(value<uint64_t>()));
    bytes(v.data(), v.size() * sizeof(T));
    return v;
  }
  std::string string();
  std::vector<std::string> strings();

 private:
  int fd_;
  std::string what_;
  std::vector<char> buffer_;
  size_t begin_ = 0, end_ = 0;
};

/// A piece of work a child process is asked for by name (run_child_job): its result, from its
/// arguments, written to `out`. Registered once, at static initialisation (ChildJobRegistration).
using ChildJob = void (*)(const std::vector<std::string>& args, PipeWriter& out);
struct ChildJobRegistration {
  ChildJobRegistration(const char* name, ChildJob job);
};

/// The command that serves child jobs (a program whose main() calls serve_child_job first, with
/// the words before the job's: an interpreter's): run_child_job then starts it afresh
/// (posix_spawn) instead of forking this process. A fork copies only the calling thread, and
/// the locks the others held: `pairhist run` with a .tpr topology hung in CI with its child
/// waiting for the C library's lock of exit functions, which another thread held at the fork.
/// pairhist sets /proc/self/exe, the Python module its interpreter; without a command (empty),
/// run_child_job forks.
void set_child_command(const std::vector<std::string>& command);
/// For main(), first: when the command line asks for a child job (argv[1] onwards), runs it with
/// standard output as the pipe and returns its exit status; otherwise -1.
int serve_child_job(int argc, char** argv);
int serve_child_job(const std::vector<std::string>& argv);
/// Runs the registered job `name` on `args` in a child process (a fresh one of the child command
/// where one is set, else a fork of this one) with stderr sent to /dev/null, then `read` on its
/// output here. The child reports an InputError the job throws as that same one-line message; a
/// child that ends without a result (exit, abort, signal inside a library) gives InputError
/// "`what`: ...". A job computes its whole result before writing it (so that a failure sends
/// only the error) and must not start threads that it expects to outlive it: the child ends as
/// soon as the job returns.
void run_child_job(const std::string& what, const char* name, const std::vector<std::string>& args,
                   const std::function<void(PipeReader&)>& read);

}  // namespace pairhist::io
