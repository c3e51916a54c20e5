#include "io/common/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <utility>

#include "pairhist/errors.hpp"

namespace pairhist::io {

AtomicOutput::AtomicOutput(std::string final_path) : final_path_(std::move(final_path)) {
  const auto slash = final_path_.find_last_of('/');
  const std::string dir =
      slash == std::string::npos ? std::string() : final_path_.substr(0, slash + 1);
  const std::string name = slash == std::string::npos ? final_path_ : final_path_.substr(slash + 1);
  if (name.empty() || name == "." || name == "..") {
    throw OutputError("output path '" + final_path_ + "' does not name a file");
  }
  temp_path_ = dir + "." + name + ".tmp." + std::to_string(static_cast<long long>(::getpid()));
}

AtomicOutput::~AtomicOutput() {
  // The temporary may never have been created (the writer failed before opening it), so a
  // failing remove() is expected and deliberately ignored; destructors must not throw.
  if (!committed_) std::remove(temp_path_.c_str());
}

void AtomicOutput::commit() {
  if (committed_) return;
  if (std::rename(temp_path_.c_str(), final_path_.c_str()) != 0) {
    const int err = errno;
    throw OutputError("cannot move finished output '" + temp_path_ + "' to '" + final_path_ +
                      "': " + std::strerror(err));
  }
  committed_ = true;
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
  if (!durable) return;
  // The rename itself reaches the disk with the directory.
  const auto slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
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
