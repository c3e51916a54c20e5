#include "io/common/child_process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <stdexcept>

#include "pairhist/errors.hpp"

namespace pairhist::io {

namespace {

constexpr size_t kBufferBytes = size_t{1} << 16;
constexpr char kResult = 'R', kError = 'E';

bool write_all(int fd, const char* data, size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    data += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

}  // namespace

void PipeWriter::bytes(const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  if (buffer_.size() + n > kBufferBytes) {
    flush();
    if (n > kBufferBytes) {
      if (!write_all(fd_, p, n)) ::_exit(3);  // the parent is gone: nothing to report to
      return;
    }
  }
  buffer_.insert(buffer_.end(), p, p + n);
}

void PipeWriter::flush() {
  if (!write_all(fd_, buffer_.data(), buffer_.size())) ::_exit(3);
  buffer_.clear();
}

void PipeWriter::string(const std::string& s) {
  value(static_cast<uint64_t>(s.size()));
  bytes(s.data(), s.size());
}

void PipeWriter::strings(const std::vector<std::string>& v) {
  value(static_cast<uint64_t>(v.size()));
  for (const auto& s : v) string(s);
}

void PipeReader::bytes(void* data, size_t n) {
  char* out = static_cast<char*>(data);
  while (n > 0) {
    if (begin_ == end_) {
      buffer_.resize(kBufferBytes);
      ssize_t r;
      do r = ::read(fd_, buffer_.data(), buffer_.size());
      while (r < 0 && errno == EINTR);
      if (r <= 0) throw InputError(what_ + ": the reading process ended without a result");
      begin_ = 0;
      end_ = static_cast<size_t>(r);
    }
    const size_t take = std::min(n, end_ - begin_);
    std::memcpy(out, buffer_.data() + begin_, take);
    begin_ += take;
    out += take;
    n -= take;
  }
}

std::string PipeReader::string() {
  std::string s(static_cast<size_t>(value<uint64_t>()), '\0');
  bytes(s.data(), s.size());
  return s;
}

std::vector<std::string> PipeReader::strings() {
  std::vector<std::string> v(static_cast<size_t>(value<uint64_t>()));
  for (auto& s : v) s = string();
  return v;
}

namespace {

constexpr const char* kChildJobFlag = "--pairhist-child-job";

std::map<std::string, ChildJob>& child_jobs() {
  static std::map<std::string, ChildJob> jobs;
  return jobs;
}

std::vector<std::string>& child_command() {
  static std::vector<std::string> command;
  return command;
}

/// The child's side: `work`'s result, or its error, to `fd`; the exit status.
int serve(int fd, const std::function<void(PipeWriter&)>& work) {
  PipeWriter out(fd);
  try {
    // Buffered, so that a failure before work's first 64 KiB (work computes its result before
    // writing it) sends only the error.
    out.value(kResult);
    work(out);
    out.flush();
  } catch (const std::exception& e) {
    PipeWriter error(fd);
    error.value(kError);
    error.string(e.what());
    error.flush();
    return 1;
  }
  return 0;
}

/// The parent's side: the child's result from `fd` through `read`, then the child reaped.
void collect(const std::string& what, pid_t pid, int fd,
             const std::function<void(PipeReader&)>& read) {
  PipeReader in(fd, what);
  auto finish = [&] {
    ::close(fd);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return status;
  };
  try {
    const char kind = in.value<char>();
    if (kind == kError) throw InputError(in.string());
    if (kind != kResult) throw InputError(what + ": the reading process sent no result");
    read(in);
  } catch (...) {
    const int status = finish();
    if (WIFSIGNALED(status))
      throw InputError(what + ": the reading process died of signal " +
                       std::to_string(WTERMSIG(status)) + " (a damaged file?)");
    throw;
  }
  finish();
}

/// A fork of this process runs `work` (where no child command is set).
void run_in_child(const std::string& what, const std::function<void(PipeWriter&)>& work,
                  const std::function<void(PipeReader&)>& read) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw InputError(what + ": cannot create a pipe");
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw InputError(what + ": cannot start a reading process");
  }
  if (pid == 0) {
    ::close(fds[0]);
    // The parent's crash handlers (a test framework's, say) must not run here: a crash is the
    // child's way of failing.
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(sig, SIG_DFL);
    const int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) ::dup2(null, STDERR_FILENO);
    ::_exit(serve(fds[1], work));
  }
  ::close(fds[1]);
  collect(what, pid, fds[0], read);
}

}  // namespace

ChildJobRegistration::ChildJobRegistration(const char* name, ChildJob job) {
  child_jobs()[name] = job;
}

void set_child_command(const std::vector<std::string>& command) {
  child_command() = command;
}

int serve_child_job(const std::vector<std::string>& argv) {
  if (argv.size() < 3 || argv[1] != kChildJobFlag) return -1;
  const auto job = child_jobs().find(argv[2]);
  if (job == child_jobs().end()) return 2;
  const std::vector<std::string> args(argv.begin() + 3, argv.end());
  return serve(STDOUT_FILENO, [&](PipeWriter& out) { job->second(args, out); });
}

int serve_child_job(int argc, char** argv) {
  if (argc < 3 || std::strcmp(argv[1], kChildJobFlag) != 0) return -1;
  return serve_child_job(std::vector<std::string>(argv, argv + argc));
}

void run_child_job(const std::string& what, const char* name, const std::vector<std::string>& args,
                   const std::function<void(PipeReader&)>& read) {
  const auto job = child_jobs().find(name);
  if (job == child_jobs().end()) throw std::logic_error(std::string("no child job ") + name);
  const std::vector<std::string> command = child_command();
  if (command.empty()) {
    run_in_child(
        what, [&](PipeWriter& out) { job->second(args, out); }, read);
    return;
  }
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw InputError(what + ": cannot create a pipe");
  // The child's standard output is the pipe (dup2 clears close-on-exec), its errors go nowhere.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::vector<std::string> words = command;
  words.insert(words.end(), {kChildJobFlag, name});
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int failed = posix_spawn(&pid, command[0].c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (failed != 0) {
    ::close(fds[0]);
    throw InputError(what + ": cannot start a reading process (" + command[0] + ")");
  }
  collect(what, pid, fds[0], read);
}

}  // namespace pairhist::io
