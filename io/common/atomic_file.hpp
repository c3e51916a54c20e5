// Write-then-rename output, so a reader never sees a half-written result file and an interrupted
// run never destroys the previous one.
#pragma once

#include <string>

#include "io/common/output_paths.hpp"

namespace pairhist::io {

/// Owns a temporary file next to `final_path`. The caller writes to temp_path() with any API
/// (ofstream, HDF5, ...) and calls commit() once the file is complete and closed. If commit() is
/// never reached (an exception unwinds past this object) the temporary file is deleted and
/// `final_path` is left untouched.
///
/// The temporary lives in the same directory as the target because rename() is only atomic
/// within one file system. No fsync is done: the guarantee is against partial files from crashes
/// of this process, not against power loss.
///
/// What is not a regular file is never replaced (output_target()): a symbolic link's target is
/// replaced, the link kept; a character device (/dev/null, /dev/full), a pipe, a path under /dev
/// or /proc, or this process's standard output or error is written into once the temporary (then
/// in the temporary directory) is complete. A file CommandFiles::keep_backups() marked keeps a
/// numbered backup when it is replaced.
class AtomicOutput {
 public:
  /// Throws OutputError if `final_path` has no file name component, or names what cannot be an
  /// output (output_refusal()). Creates nothing on disk.
  explicit AtomicOutput(std::string final_path);
  ~AtomicOutput();

  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;
  AtomicOutput(AtomicOutput&&) = delete;
  AtomicOutput& operator=(AtomicOutput&&) = delete;

  const std::string& final_path() const { return final_path_; }
  /// Where the file goes: replaced by rename (through symbolic links), or written through.
  const OutputTarget& target() const { return target_; }
  /// `<dir>/.<name>.tmp.<pid>`: hidden, and unique per process so concurrent runs writing the
  /// same target do not clobber each other's temporaries (`dir` and `name` those of the link's
  /// target for a symbolic link; in the temporary directory for what is written through).
  const std::string& temp_path() const { return temp_path_; }

  /// Renames the temporary onto the final path (replacing an existing file), or writes it into
  /// what is written through. Throws OutputError naming both paths if the rename fails (or the
  /// path and the system's reason if the writing does); the temporary is then still removed by the
  /// destructor.
  void commit();
  bool committed() const { return committed_; }

 private:
  /// commit() of what is written through: the temporary's bytes into the target.
  void write_through();

  std::string final_path_;
  OutputTarget target_;
  std::string temp_path_;
  bool committed_ = false;
};

/// Writes `contents` to `path` through an AtomicOutput. Throws OutputError naming `path` and
/// `what` (e.g. "the report") if it cannot be written completely.
void write_text_atomically(const std::string& path, const std::string& contents,
                           const std::string& what);

/// Writes `contents` to `path` through an AtomicOutput with plain system calls. Throws OutputError
/// naming `path`, `what` and the system's reason (e.g. "No space left on device"); `path` is
/// then unchanged and no temporary is left.
void write_bytes_atomically(const std::string& path, const std::string& contents,
                            const std::string& what);

/// As write_bytes_atomically, and durable: the temporary is flushed to the disk (fsync) before
/// the rename and the directory after it, so after a crash or power loss `path` holds either
/// the old or the new contents.
void write_file_durably(const std::string& path, const std::string& contents,
                        const std::string& what);

}  // namespace pairhist::io
