#include "drivers/job/output_lock.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

#include "pairhist/errors.hpp"

namespace pairhist {
namespace fs = std::filesystem;

namespace {

/// What the holder wrote into the lock file: "pid N on host H", or "" when unreadable.
std::string holder(int fd) {
  char text[256] = {};
  const ssize_t n = pread(fd, text, sizeof(text) - 1, 0);
  if (n <= 0) return {};
  std::string s(text, static_cast<size_t>(n));
  while (!s.empty() && (s.back() == '\n' || s.back() == '\0')) s.pop_back();
  return excerpt(s, 120);
}

}  // namespace

OutputLock::OutputLock(const std::string& dir) : dir_(dir) {
  std::error_code ec;
  created_dir_ = fs::create_directories(dir, ec);
  if (ec) throw OutputError("cannot create the output directory " + dir + ": " + ec.message());
  path_ = (fs::path(dir) / kFileName).string();
  // A run that ends unlinks the file while others may have it open: lock, then check that the
  // path still names the locked file, else try again on the new one.
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) throw OutputError("cannot create " + path_ + ": " + std::strerror(errno));
    struct flock lock = {};
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    if (fcntl(fd, F_SETLK, &lock) != 0) {
      const int err = errno;
      const std::string who = holder(fd);
      close(fd);
      if (err == EACCES || err == EAGAIN)
        throw UsageError("another pairhist run is writing into " + dir +
                         (who.empty() ? "" : " (" + who + ")") +
                         ": wait for it to end, or choose another -o");
      // A file system without POSIX locks (some Lustre and old NFS mounts): run unguarded.
      std::fprintf(stderr,
                   "pairhist: warning: cannot lock %s (%s): another run into %s would not be "
                   "noticed\n",
                   path_.c_str(), std::strerror(err), dir.c_str());
      unlink(path_.c_str());
      return;
    }
    struct stat held = {}, named = {};
    if (fstat(fd, &held) == 0 && stat(path_.c_str(), &named) == 0 && held.st_ino == named.st_ino &&
        held.st_dev == named.st_dev) {
      char host[128] = {};
      gethostname(host, sizeof(host) - 1);
      const std::string me =
          "pid " + std::to_string(getpid()) + " on host " + std::string(host) + "\n";
      if (ftruncate(fd, 0) != 0 || pwrite(fd, me.data(), me.size(), 0) < 0) {
        // The lock holds without the note; the message of a second run is only less precise.
      }
      fd_ = fd;
      return;
    }
    close(fd);
  }
  throw OutputError("cannot lock " + path_ + ": it keeps being replaced");
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) {
    unlink(path_.c_str());  // while locked: a run that opened this file before finds it gone
    close(fd_);
  }
  if (created_dir_) {
    std::error_code ec;
    if (fs::is_empty(dir_, ec) && !ec) fs::remove(dir_, ec);
  }
}

}  // namespace pairhist
