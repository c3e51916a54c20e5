#include "io/common/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

#include "pairhist/errors.hpp"

namespace pairhist::io {

namespace {

/// `dir` and `name` of `path`: the directory as written (with its slash, "" for none).
std::pair<std::string, std::string> split_path(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return {std::string(), path};
  return {path.substr(0, slash + 1), path.substr(slash + 1)};
}

/// Where a temporary for what is written through goes: the temporary directory (a device's
/// directory is no place for files, nor writable for most).
std::string scratch_directory() {
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  return ec ? std::string("/tmp/") : dir.string() + "/";
}

/// Writes the whole file `from` into `fd`; false (errno set) where reading or writing fails.
bool copy_into(const std::string& from, int fd) {
  const int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return false;
  std::vector<char> buffer(1 << 20);
  for (;;) {
    const ssize_t n = ::read(in, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      ::close(in);
      errno = err;
      return n == 0;
    }
    for (ssize_t done = 0; done < n;) {
      const ssize_t w = ::write(fd, buffer.data() + done, static_cast<size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) {
        const int err = errno;
        ::close(in);
        errno = err;
        return false;
      }
      done += w;
    }
  }
}

}  // namespace

AtomicOutput::AtomicOutput(std::string final_path) : final_path_(std::move(final_path)) {
  const std::string name = split_path(final_path_).second;
  if (name.empty() || name == "." || name == "..") {
    throw OutputError("output path '" + final_path_ + "' does not name a file");
  }
  target_ = output_target(final_path_);
  const std::string pid = std::to_string(static_cast<long long>(::getpid()));
  if (target_.kind == OutputTarget::Kind::write_through) {
    static std::atomic<unsigned> sequence{0};
    temp_path_ = scratch_directory() + ".pairhist-" + name + ".tmp." + pid + "." +
                 std::to_string(sequence++);
    return;
  }
  const auto [dir, target_name] = split_path(target_.path);
  temp_path_ = dir + "." + target_name + ".tmp." + pid;
}

AtomicOutput::~AtomicOutput() {
  // The temporary may never have been created (the writer failed before opening it), so a
  // failing remove() is expected and deliberately ignored; destructors must not throw.
  if (!committed_) std::remove(temp_path_.c_str());
}

void AtomicOutput::commit() {
  if (committed_) return;
  if (target_.kind == OutputTarget::Kind::write_through) {
    write_through();
    std::remove(temp_path_.c_str());
    committed_ = true;
    return;
  }
  back_up_before_replacing(target_.path);
  if (std::rename(temp_path_.c_str(), target_.path.c_str()) != 0) {
    const int err = errno;
    throw OutputError("cannot move finished output '" + temp_path_ + "' to '" + final_path_ +
                      "': " + std::strerror(err));
  }
  committed_ = true;
}

void AtomicOutput::write_through() {
  const auto fail = [this](int err) {
    throw OutputError("cannot write " + final_path_ + ": " + std::strerror(err));
  };
  struct stat st {};
  if (::stat(temp_path_.c_str(), &st) != 0) fail(errno);  // the writer made no file
  if (target_.stream_fd >= 0) {
    // After what the program printed there before: the stream's own buffer goes first.
    std::fflush(target_.stream_fd == STDOUT_FILENO ? stdout : stderr);
    if (!copy_into(temp_path_, target_.stream_fd)) fail(errno);
    return;
  }
  // O_TRUNC empties a regular file behind /dev/fd/N as writing a new file would; devices and
  // pipes ignore it. A pipe blocks here until its reader is there, as the user meant.
  const int fd = ::open(target_.path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) fail(errno);
  if (!copy_into(temp_path_, fd)) {
    const int err = errno;
    ::close(fd);
    fail(err);
  }
  if (::close(fd) != 0) fail(errno);
}

void write_text_atomically(const std::string& path, const std::string& contents,
                           const std::string& what) {
  AtomicOutput out(path);
  std::ofstream file(out.temp_path(), std::ios::out | std::ios::trunc | std::ios::binary);
  file << contents;
  file.close();
  if (!file) throw OutputError(path + ": cannot write " + what);
  out.commit();
}

namespace {

void write_atomically(const std::string& path, const std::string& contents, const std::string& what,
                      bool durable) {
  AtomicOutput out(path);
  const auto fail = [&](const char* step) {
    const int err = errno;
    throw OutputError(path + ": cannot write " + what + " (" + step + "): " + std::strerror(err));
  };
  const int fd = ::open(out.temp_path().c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("create");
  const auto close_and_fail = [&](const char* step) {
    const int err = errno;
    ::close(fd);
    errno = err;
    fail(step);
  };
  const char* p = contents.data();
  size_t left = contents.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) close_and_fail("write");
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (durable && ::fsync(fd) != 0) close_and_fail("fsync");
  if (::close(fd) != 0) fail("close");
  out.commit();
  if (!durable || out.target().kind != OutputTarget::Kind::replace) return;
  // The rename itself reaches the disk with the directory (the link's target's, for a link).
  const std::string& target = out.target().path;
  const auto slash = target.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : target.substr(0, slash + 1);
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace

void write_bytes_atomically(const std::string& path, const std::string& contents,
                            const std::string& what) {
  write_atomically(path, contents, what, false);
}

void write_file_durably(const std::string& path, const std::string& contents,
                        const std::string& what) {
  write_atomically(path, contents, what, true);
}

}  // namespace pairhist::io
