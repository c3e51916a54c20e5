#include "io/common/output_paths.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <utility>

#include "pairhist/errors.hpp"

namespace pairhist::io {
namespace {

namespace fs = std::filesystem;

// As the kernel's limit on the symbolic links of one path.
constexpr int kMaxLinkHops = 40;

bool same_file(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/// STDOUT_FILENO or STDERR_FILENO where `st` is what that stream writes to, else -1.
int standard_stream(const struct stat& st) {
  for (const int fd : {STDOUT_FILENO, STDERR_FILENO}) {
    struct stat stream {};
    if (::fstat(fd, &stream) == 0 && same_file(stream, st)) return fd;
  }
  return -1;
}

/// Whether `path` lies under /dev or /proc, where a name stands for a device or a process's
/// file (/dev/stdout, /dev/fd/3, /proc/self/fd/1), never for a file to replace.
bool in_system_tree(const std::string& path) {
  std::error_code ec;
  const std::string absolute = fs::absolute(path, ec).lexically_normal().string();
  return absolute.rfind("/dev/", 0) == 0 || absolute.rfind("/proc/", 0) == 0;
}

/// The end of `path`'s chain of symbolic links (which need not exist: a link may dangle);
/// `path` itself where it is no link.
std::string follow_links(const std::string& path) {
  std::string at = path;
  for (int hop = 0; hop < kMaxLinkHops; ++hop) {
    struct stat st {};
    if (::lstat(at.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return at;
    std::error_code ec;
    const fs::path target = fs::read_symlink(at, ec);
    if (ec) return at;
    at = target.is_absolute() ? target.string() : (fs::path(at).parent_path() / target).string();
  }
  throw OutputError(path + ": too many levels of symbolic links");
}

/// The existing files CommandFiles::keep_backups() marked (device, inode): a backup is kept of
/// each when AtomicOutput replaces it. Locked: a run writes its files on several threads.
struct BackupMarks {
  std::mutex lock;
  std::set<std::pair<dev_t, ino_t>> files;
};

BackupMarks& backup_marks() {
  static BackupMarks marks;
  return marks;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += (text.empty() ? "" : "\n") + line;
  return text;
}

/// What the problems of an output compare: whether it exists (and as what), and where it goes.
struct Seen {
  bool exists = false;
  struct stat st {};
  bool through = false;  // written through: never replaced, so never backed up nor clashing
  std::string where;     // replace: its target, made canonical where it does not exist yet
};

Seen look_at(const std::string& path) {
  Seen s;
  s.exists = ::stat(path.c_str(), &s.st) == 0;
  const OutputTarget target = output_target(path);
  s.through = target.kind == OutputTarget::Kind::write_through;
  s.where = target.path;
  if (!s.exists) {
    std::error_code ec;
    const fs::path canonical = fs::weakly_canonical(fs::absolute(s.where, ec), ec);
    if (!ec) s.where = canonical.string();
  }
  return s;
}

}  // namespace

std::string output_refusal(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ELOOP) return "is a loop of symbolic links";
    if (in_system_tree(path))
      return "does not exist (under /dev and /proc pairhist writes only to what is there)";
    return "";
  }
  if (S_ISDIR(st.st_mode)) return "is a directory: name a file";
  const char* const writable =
      "pairhist writes files, and through to character devices "
      "(/dev/null, /dev/stdout) and pipes";
  if (S_ISBLK(st.st_mode)) return std::string("is a block device: ") + writable;
  if (S_ISSOCK(st.st_mode)) return std::string("is a socket: ") + writable;
  return "";
}

OutputTarget output_target(const std::string& path) {
  if (const std::string refusal = output_refusal(path); !refusal.empty())
    throw OutputError("cannot write " + path + ": it " + refusal);
  OutputTarget target;
  target.path = path;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    target.stream_fd = standard_stream(st);
    if (target.stream_fd >= 0 || !S_ISREG(st.st_mode)) {
      target.kind = OutputTarget::Kind::write_through;
      return target;
    }
    // A regular file reached through /dev/fd/N or /proc: the file a descriptor holds.
    if (in_system_tree(path)) {
      target.kind = OutputTarget::Kind::write_through;
      return target;
    }
  }
  target.path = follow_links(path);
  return target;
}

std::string backup_path(const std::string& path, int n) {
  const fs::path p(path);
  const std::string name = "#" + p.filename().string() + "." + std::to_string(n) + "#";
  return p.has_parent_path() ? (p.parent_path() / name).string() : "./" + name;
}

void back_up_before_replacing(const std::string& target) {
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  {
    BackupMarks& marks = backup_marks();
    const std::lock_guard<std::mutex> hold(marks.lock);
    if (marks.files.erase({st.st_dev, st.st_ino}) == 0) return;
  }
  for (int n = 1; n <= kMaxBackups; ++n) {
    const std::string backup = backup_path(target, n);
    struct stat there {};
    if (::lstat(backup.c_str(), &there) == 0) continue;
    // A hard link keeps `target` where it is until the rename replaces it in one step; a file
    // system without hard links gets the file moved.
    if (::link(target.c_str(), backup.c_str()) != 0) {
      if (errno == EEXIST) continue;
      if (::rename(target.c_str(), backup.c_str()) != 0)
        throw OutputError("cannot back up " + target + " to " + backup + ": " +
                          std::strerror(errno));
    }
    std::fprintf(stderr, "pairhist: note: backed up %s to %s\n", target.c_str(), backup.c_str());
    return;
  }
  throw OutputError("cannot back up " + target + ": " + backup_path(target, 1) + " to " +
                    backup_path(target, kMaxBackups) +
                    " exist (remove some, or add --overwrite to replace it without a backup)");
}

void CommandFiles::read(const std::string& path, const std::string& label,
                        const std::vector<std::string>& in_directory) {
  if (path.empty()) return;
  std::error_code ec;
  if (!in_directory.empty() && fs::is_directory(path, ec)) {
    for (const std::string& name : in_directory) {
      const std::string file = (fs::path(path) / name).string();
      inputs_.push_back({file, label + " (" + file + ")"});
    }
    return;
  }
  inputs_.push_back({path, label});
}

void CommandFiles::write(const std::string& path, const std::string& label, bool backup) {
  if (!path.empty()) outputs_.push_back({path, label, backup});
}

std::vector<std::string> CommandFiles::problems(bool overwrite) const {
  std::vector<std::string> lines;
  std::vector<Seen> seen(outputs_.size());
  std::vector<bool> usable(outputs_.size(), false);
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const Named& out = outputs_[i];
    if (const std::string refusal = output_refusal(out.path); !refusal.empty()) {
      lines.push_back(out.label + " " + refusal);
      continue;
    }
    try {
      seen[i] = look_at(out.path);
    } catch (const OutputError& e) {
      lines.push_back(e.what());
      continue;
    }
    usable[i] = true;
    const Seen& s = seen[i];
    const bool regular = s.exists && S_ISREG(s.st.st_mode);
    bool clash = false;
    for (const Named& in : inputs_) {
      struct stat input {};
      if (!regular || ::stat(in.path.c_str(), &input) != 0 || !same_file(input, s.st)) continue;
      lines.push_back(out.label + " would replace " + in.label +
                      ": an output may not replace an input of the run (choose another name)");
      clash = true;
      break;
    }
    for (size_t j = 0; j < i && !clash && !s.through; ++j) {
      const Seen& t = seen[j];
      if (!usable[j] || t.through || s.exists != t.exists) continue;
      if (s.exists ? !same_file(s.st, t.st) : s.where != t.where) continue;
      lines.push_back(outputs_[j].label + " and " + out.label +
                      " are the same file: each output needs a name of its own");
      clash = true;
    }
    if (clash || overwrite || !out.backup || s.through || !regular) continue;
    bool free_backup = false;
    for (int n = 1; n <= kMaxBackups && !free_backup; ++n) {
      struct stat there {};
      free_backup = ::lstat(backup_path(s.where, n).c_str(), &there) != 0;
    }
    if (!free_backup)
      lines.push_back(out.label + ": " + backup_path(s.where, 1) + " to " +
                      backup_path(s.where, kMaxBackups) +
                      " exist already: remove some backups, or add --overwrite");
  }
  return lines;
}

void CommandFiles::keep_backups() const {
  BackupMarks& marks = backup_marks();
  for (const Named& out : outputs_) {
    if (!out.backup) continue;
    OutputTarget target;
    try {
      target = output_target(out.path);
    } catch (const OutputError&) {
      continue;  // problems() says why; the writer meets it again
    }
    struct stat st {};
    if (target.kind != OutputTarget::Kind::replace || ::stat(target.path.c_str(), &st) != 0 ||
        !S_ISREG(st.st_mode))
      continue;
    const std::lock_guard<std::mutex> hold(marks.lock);
    marks.files.insert({st.st_dev, st.st_ino});
  }
}

void CommandFiles::check(bool overwrite) const {
  if (const std::vector<std::string> lines = problems(overwrite); !lines.empty())
    throw UsageError(joined(lines));
  if (!overwrite) keep_backups();
}

}  // namespace pairhist::io
