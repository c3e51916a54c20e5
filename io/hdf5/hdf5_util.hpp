// Small RAII helpers around the HDF5 C API, shared by our HDF5 readers and writers.
#pragma once

#include <hdf5.h>

#include <string>
#include <utility>
#include <vector>

namespace pairhist::io {

/// Holds pairhist's own HDF5 lock (recursive) for its scope. Every HDF5 entry point of io takes
/// it, and so does closing an H5Handle, so that hdf5_probe can fork while no thread of ours is
/// inside the library: Debian builds libhdf5 thread-safe, and a child forked while another
/// thread held the library's global lock would wait for it forever. In the probe's child, which
/// has one thread and a copy of the lock held by its parent's thread, it does nothing.
class Hdf5Gate {
 public:
  Hdf5Gate();
  ~Hdf5Gate();
  Hdf5Gate(const Hdf5Gate&) = delete;
  Hdf5Gate& operator=(const Hdf5Gate&) = delete;

  /// Called first thing in the probe's child.
  static void enter_child();

 private:
  bool locked_ = false;
};

/// Owns an HDF5 identifier. Closing in the destructor ignores failures: it only runs on the error
/// path or after an explicit, checked close().
class H5Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  H5Handle() = default;
  H5Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  ~H5Handle() { reset(); }
  H5Handle(const H5Handle&) = delete;
  H5Handle& operator=(const H5Handle&) = delete;
  H5Handle(H5Handle&& o) noexcept : id_(o.id_), closer_(o.closer_) { o.id_ = -1; }
  H5Handle& operator=(H5Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = o.id_;
      closer_ = o.closer_;
      o.id_ = -1;
    }
    return *this;
  }

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  herr_t close() {
    Hdf5Gate gate;
    const herr_t status = id_ >= 0 && closer_ != nullptr ? closer_(id_) : 0;
    id_ = -1;
    return status;
  }

 private:
  void reset() {
    if (id_ >= 0 && closer_ != nullptr) {
      Hdf5Gate gate;
      closer_(id_);
    }
    id_ = -1;
  }
  hid_t id_ = -1;
  Closer closer_ = nullptr;
};

/// What our HDF5 writers (hdf5_writer, scattering_hdf5) share: every failure an OutputError
/// naming the file being written.
class H5WriterChecks {
 public:
  explicit H5WriterChecks(std::string path) : path_(std::move(path)) {}
  const std::string& path() const { return path_; }

  /// Throws OutputError "cannot write HDF5 file 'PATH': WHAT".
  [[noreturn]] void fail(const std::string& what) const;
  /// `id` (an HDF5 identifier, or a status), or fail(what) where it is negative.
  hid_t check(hid_t id, const std::string& what) const;
  /// fail("WHAT 'NAME' failed") where `status` is negative.
  void check(herr_t status, const char* what, const std::string& name) const;

 private:
  std::string path_;
};

/// HDF5 prints its whole error stack to stderr by default; we report one error line instead. The
/// previous handler is restored so a host program's own HDF5 use is unaffected.
class SilenceHdf5Errors {
 public:
  SilenceHdf5Errors() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~SilenceHdf5Errors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
  SilenceHdf5Errors(const SilenceHdf5Errors&) = delete;
  SilenceHdf5Errors& operator=(const SilenceHdf5Errors&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

/// True when `name` (a path relative to `loc`) exists, checking each component so that a missing
/// intermediate group is not an HDF5 error.
bool h5_exists(hid_t loc, const std::string& name);

/// Names of the links directly inside group `group`, in HDF5's name order.
std::vector<std::string> h5_member_names(hid_t group);

/// The value of a string attribute (fixed or variable length), or of each element of a
/// one-dimensional string-array attribute joined by '\n'. Returns false when `obj` has no such
/// attribute or it is not a string.
bool h5_string_attribute(hid_t obj, const std::string& name, std::vector<std::string>& values);

/// Reads the attribute `name` of `obj` as one value of `mem_type` into `value`. Returns false when
/// there is no such attribute, it does not hold exactly one value (an array would overrun
/// `value`) or it cannot be converted.
bool h5_scalar_attribute(hid_t obj, const std::string& name, hid_t mem_type, void* value);

/// Current extent of a dataset (empty for a scalar dataset).
std::vector<hsize_t> h5_dims(hid_t dataset);

/// Checks, before anything is allocated for `dataset`, that the file `path` really stores data for
/// its whole extent; returns "" or the problem. HDF5 returns fill values for storage never
/// written, so a file of a few hundred bytes can declare a dataset of any size. The stored bytes
/// must cover the extent, or 1/kMaxCompressionRatio of it for a dataset with filters (deflate
/// packs at most 1032:1), and must fit in the file. Chunks (which a read allocates whole) may
/// not be larger than both the extent and kMaxChunkBytes.
std::string h5_check_storage(hid_t dataset, const std::string& path);
constexpr unsigned kMaxCompressionRatio = 1100;
constexpr uint64_t kMaxChunkBytes = uint64_t{64} << 20;

/// True when `path` starts with the HDF5 signature (checked without HDF5's error stack).
bool is_hdf5_file(const std::string& path);

}  // namespace pairhist::io
