// One run at a time per output directory. Two runs writing into one -o (a job script started
// twice, a resume while the first run still goes on) would replace each other's results and
// checkpoint with a mix of both. A POSIX record lock on a file in the directory (fcntl, which
// NFS carries too) is held for the run; the kernel releases it when the process ends however it
// ends, so a killed run leaves no lock behind, only the file, which the next run takes over.
#pragma once

#include <string>

namespace pairhist {

class OutputLock {
 public:
  /// Creates `dir` if needed and locks it. Throws UsageError naming the run that holds it
  /// (its pid and host, as that run wrote them), or OutputError when the lock file cannot be
  /// made. Where the file system has no POSIX locks it warns and goes on without.
  explicit OutputLock(const std::string& dir);
  /// Removes the lock file, and `dir` when this lock created it and nothing else is in it.
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

  static constexpr const char* kFileName = ".pairhist.lock";

 private:
  std::string dir_;
  std::string path_;
  int fd_ = -1;
  bool created_dir_ = false;
};

}  // namespace pairhist
