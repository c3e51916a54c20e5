// What a command may write, checked before it does any work: no output replaces an input of the
// same run or another output, none is a directory, a block device or a socket; where an output is
// a device, a pipe, this process's standard output or a symbolic link, where the file really goes
// (io::AtomicOutput writes through there instead of renaming over it); and which replaced files
// keep a numbered backup, as GROMACS keeps `#rdf.xvg.1#`.
#pragma once

#include <string>
#include <vector>

namespace pairhist::io {

/// Where io::AtomicOutput puts a file written to a path.
struct OutputTarget {
  enum class Kind {
    replace,        // a temporary beside `path`, renamed onto it
    write_through,  // written into `path` (or `stream_fd`) once complete: never replaced
  };
  Kind kind = Kind::replace;
  /// replace: the path itself, or the end of its chain of symbolic links (the link is kept and
  /// its target replaced); write_through: the path as given, opened for writing.
  std::string path;
  /// write_through to this process's standard output (1) or error (2): written to that stream.
  int stream_fd = -1;
};

/// Where a file written to `path` goes: a character device (/dev/null), a pipe, a path under
/// /dev or /proc (/dev/stdout, /dev/fd/N) and this process's standard output or error, also as a
/// regular file it was redirected to, are written through; anything else is replaced by rename,
/// through its symbolic links. Throws OutputError for what cannot be an output
/// (output_refusal()).
OutputTarget output_target(const std::string& path);

/// Why `path` cannot be an output, as the end of a sentence starting with its name ("is a
/// directory", "is a block device ..."); empty if it can be one.
std::string output_refusal(const std::string& path);

/// The n-th numbered backup of `path` as GROMACS names it: `DIR/#NAME.n#` (`./#NAME.n#` for a
/// bare name).
std::string backup_path(const std::string& path, int n);

/// GROMACS's limit: a file with this many backups is not backed up again.
constexpr int kMaxBackups = 99;

/// Called by AtomicOutput::commit() before it renames onto `target`: where `target` is a file
/// that CommandFiles::keep_backups() marked (the same file: device and inode), it is kept as its
/// first free numbered backup (a hard link, else renamed), with a note on stderr as GROMACS
/// prints it. Throws OutputError where no backup can be made.
void back_up_before_replacing(const std::string& target);

/// The files one command reads and writes, as named on its command line (`label` names each in
/// a message: "-f traj.xtc", "the topology top.gro", "--report out.json").
class CommandFiles {
 public:
  /// An input of the run (an empty path is none). Where `path` is a directory, the files
  /// `in_directory` of it are the inputs (a run's output directory read by `scattering`).
  void read(const std::string& path, const std::string& label,
            const std::vector<std::string>& in_directory = {});
  /// An output of the run (an empty path is none). `backup`: an existing file it replaces keeps
  /// a numbered backup (keep_backups()); false for the files of `run -o DIR`, whose directory
  /// has its own rule (an earlier run's results are refused, resumed or --overwrite'n).
  void write(const std::string& path, const std::string& label, bool backup = true);

  /// Every problem, one line each: an output that is an input or another output (the same file:
  /// device and inode, or for a file not yet there the same path with symbolic links resolved),
  /// a directory, a block device, a socket or a missing device; without `overwrite`, a file to
  /// be replaced that has kMaxBackups backups already.
  std::vector<std::string> problems(bool overwrite) const;
  /// Marks the existing regular files the outputs (with `backup`) will replace, so that
  /// AtomicOutput::commit() keeps a numbered backup of each before replacing it.
  void keep_backups() const;
  /// problems() as one UsageError (one line each); then, without `overwrite`, keep_backups().
  void check(bool overwrite) const;

 private:
  struct Named {
    std::string path, label;
    bool backup = true;
  };
  std::vector<Named> inputs_, outputs_;
};

}  // namespace pairhist::io
