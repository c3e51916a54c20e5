#include "io/hdf5/hdf5_probe.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <system_error>
#include <tuple>
#include <vector>

#include "io/hdf5/hdf5_util.hpp"
#include "pairhist/environment.hpp"
#include "pairhist/errors.hpp"
#include "pairhist/settings.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define PAIRHIST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PAIRHIST_ASAN 1
#endif
#endif
#if defined(PAIRHIST_ASAN)
#include <sanitizer/common_interface_defs.h>
#endif

namespace pairhist::io {

namespace {

// Attribute values larger than this are not read by the walk (their headers still are).
constexpr size_t kMaxAttributeBytes = size_t{64} << 20;
// Bounds on what a damaged header can make the walk do; past them it stops looking.
constexpr hsize_t kMaxMembers = hsize_t{1} << 24;
constexpr int kMaxDepth = 64;
constexpr size_t kMaxOpenMembers = 64;

void walk_attribute(hid_t attr) {
  H5Handle type(H5Aget_type(attr), H5Tclose);
  H5Handle space(H5Aget_space(attr), H5Sclose);
  if (!type.valid() || !space.valid()) return;
  H5Handle native(H5Tget_native_type(type.get(), H5T_DIR_DEFAULT), H5Tclose);
  const hssize_t n = H5Sget_simple_extent_npoints(space.get());
  const size_t size = native.valid() ? H5Tget_size(native.get()) : 0;
  if (n <= 0 || size == 0 || static_cast<size_t>(n) > kMaxAttributeBytes / size) return;
  std::vector<unsigned char> buf(static_cast<size_t>(n) * size);
  // Variable-length values (strings too) live in the global heap, which the read decodes.
  if (H5Aread(attr, native.get(), buf.data()) >= 0 &&
      (H5Tdetect_class(native.get(), H5T_VLEN) > 0 ||
       H5Tdetect_class(native.get(), H5T_STRING) > 0))
    H5Dvlen_reclaim(native.get(), space.get(), H5P_DEFAULT, buf.data());
}

// The lookups the readers make by name decode the attribute messages by another path than the
// index (a damaged message the index skips can still crash the library there): the names they
// ask for, and one no file holds, which visits every message.
void look_up_attribute_names(hid_t object) {
  for (const char* name : {"unit", "offset", "dimension", "boundary", "config",
                           "pairhist probe: a name no file holds"})
    H5Aexists(object, name);
}

// Every attribute, found by index and again by name, as the readers look them up.
void walk_attributes(hid_t object, const H5O_info_t& info) {
  for (hsize_t k = 0; k < info.num_attrs && k < kMaxMembers; ++k) {
    H5Handle attr(
        H5Aopen_by_idx(object, ".", H5_INDEX_NAME, H5_ITER_INC, k, H5P_DEFAULT, H5P_DEFAULT),
        H5Aclose);
    if (!attr.valid()) continue;
    walk_attribute(attr.get());
    const ssize_t len = H5Aget_name(attr.get(), 0, nullptr);
    if (len <= 0) continue;
    std::string name(static_cast<size_t>(len) + 1, '\0');
    if (H5Aget_name(attr.get(), name.size(), name.data()) < 0) continue;
    name.resize(static_cast<size_t>(len));
    if (H5Aexists(object, name.c_str()) > 0) {
      H5Handle by_name(H5Aopen(object, name.c_str(), H5P_DEFAULT), H5Aclose);
      if (by_name.valid()) walk_attribute(by_name.get());
    }
  }
}

void walk_dataset(hid_t dataset) {
  H5Handle type(H5Dget_type(dataset), H5Tclose);
  if (type.valid()) {
    H5Tget_class(type.get());
    H5Tget_size(type.get());
    H5Handle native(H5Tget_native_type(type.get(), H5T_DIR_DEFAULT), H5Tclose);
  }
  H5Handle space(H5Dget_space(dataset), H5Sclose);
  if (space.valid()) H5Sget_simple_extent_npoints(space.get());
  H5Handle create(H5Dget_create_plist(dataset), H5Pclose);
  if (create.valid()) {
    const int filters = H5Pget_nfilters(create.get());
    for (int k = 0; k < filters; ++k) {
      unsigned flags = 0, config = 0;
      size_t nvalues = 8;
      unsigned values[8];
      char name[64];
      H5Pget_filter2(create.get(), static_cast<unsigned>(k), &flags, &nvalues, values, sizeof name,
                     name, &config);
    }
  }
  // The chunk index (a B-tree) of a chunked dataset: its size, then each chunk.
  H5Dget_storage_size(dataset);
  hsize_t chunks = 0;
  if (space.valid() && H5Dget_num_chunks(dataset, space.get(), &chunks) >= 0) {
    for (hsize_t k = 0; k < chunks && k < kMaxMembers; ++k) {
      haddr_t address = 0;
      hsize_t bytes = 0;
      unsigned mask = 0;
      if (H5Dget_chunk_info(dataset, space.get(), k, nullptr, &mask, &address, &bytes) < 0) break;
    }
  }
}

// Objects already walked (by address): hard links may form cycles.
using Walked = std::set<haddr_t>;

void walk_object(hid_t object, Walked& walked, int depth);

// Every link of a group, listed by index and then looked up by name (B-tree or dense storage,
// local heap), as the readers do. External links are not followed: they name other files.
void walk_group(hid_t group, Walked& walked, int depth) {
  H5G_info_t info;
  if (depth > kMaxDepth || H5Gget_info(group, &info) < 0) return;
  std::vector<H5Handle> open_members;
  for (hsize_t k = 0; k < info.nlinks && k < kMaxMembers; ++k) {
    const ssize_t len =
        H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, k, nullptr, 0, H5P_DEFAULT);
    if (len <= 0) continue;
    std::string name(static_cast<size_t>(len) + 1, '\0');
    if (H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, k, name.data(), name.size(),
                           H5P_DEFAULT) < 0)
      continue;
    name.resize(static_cast<size_t>(len));
    H5L_info_t link;
    if (H5Lget_info(group, name.c_str(), &link, H5P_DEFAULT) < 0) continue;
    if (link.type != H5L_TYPE_HARD && link.type != H5L_TYPE_SOFT) continue;
    if (H5Lexists(group, name.c_str(), H5P_DEFAULT) <= 0) continue;
    H5Handle child(H5Oopen(group, name.c_str(), H5P_DEFAULT), H5Oclose);
    if (!child.valid()) continue;
    walk_object(child.get(), walked, depth + 1);
    // Kept open while the group's other members are walked, as a reader keeps its datasets
    // open: an open object's metadata stays in the cache, which changes what later calls decode.
    if (open_members.size() < kMaxOpenMembers) open_members.push_back(std::move(child));
  }
  // The names the readers open, also where the listing above misses them (a damaged index) or
  // an object shares its address with one walked before: the readers reach them by name.
  for (const char* name : {"h5md", "particles", "position", "value", "step", "time", "box", "edges",
                           "coordinates", "dimensions"}) {
    if (H5Lexists(group, name, H5P_DEFAULT) <= 0) continue;
    H5Handle child(H5Oopen(group, name, H5P_DEFAULT), H5Oclose);
    if (!child.valid()) continue;
    look_up_attribute_names(child.get());
    if (H5Iget_type(child.get()) == H5I_DATASET) walk_dataset(child.get());
    if (open_members.size() < kMaxOpenMembers) open_members.push_back(std::move(child));
  }
}

// The kind of object comes from its identifier, so that a header the library cannot fully
// describe is still walked the way a reader would open it.
void walk_object(hid_t object, Walked& walked, int depth) {
  H5O_info_t info;
  // By name first, as the readers do: what the lookups by index load first changes what a
  // later lookup by name decodes.
  look_up_attribute_names(object);
  if (H5Oget_info2(object, &info, H5O_INFO_BASIC | H5O_INFO_NUM_ATTRS) >= 0) {
    if (!walked.insert(info.addr).second) return;
    walk_attributes(object, info);
  }
  const H5I_type_t kind = H5Iget_type(object);
  if (kind == H5I_GROUP) walk_group(object, walked, depth);
  if (kind == H5I_DATASET) walk_dataset(object);
}

// Runs in the child: whatever the library reports cleanly is the reader's business.
void walk(const std::string& path) {
  SilenceHdf5Errors quiet;
  H5Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.valid()) return;
  H5Handle root(H5Oopen(file.get(), "/", H5P_DEFAULT), H5Oclose);
  if (!root.valid()) return;
  Walked walked;
  walk_object(root.get(), walked, 0);
}

// The child must die of its crash, not run handlers installed for the parent (a sanitizer's or a
// fuzzer's, which would report the library's crash as the parent's).
void restore_default_crash_handling() {
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP}) signal(sig, SIG_DFL);
#if defined(PAIRHIST_ASAN)
  __sanitizer_set_death_callback(nullptr);
#endif
}

// Set in the child while a reader opens the file there: its own probe returns at once.
bool g_in_child = false;

// "" when the child finished, else what happened to it.
std::string walk_in_child(const std::string& path, int seconds,
                          const std::function<void()>& open_as_reader) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return {};  // cannot isolate: let the reader try
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return {};
  }
  if (pid == 0) {
    Hdf5Gate::enter_child();
    close(fds[0]);
    restore_default_crash_handling();
    // The reader first, on a fresh library as in the parent; then the walk, on its own open.
    if (open_as_reader) {
      g_in_child = true;
      try {
        open_as_reader();
      } catch (...) {
      }
    }
    try {
      walk(path);
    } catch (...) {
    }
    _exit(0);  // no atexit handlers: the parent's HDF5 files and buffers are not the child's
  }
  close(fds[1]);
  // The pipe's write end closes when the child ends, however it ends.
  pollfd fd{fds[0], POLLIN, 0};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  bool finished = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) break;
    const int r = poll(&fd, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (r > 0) {
      finished = true;
      break;
    }
    if (r < 0 && errno != EINTR) break;
  }
  close(fds[0]);
  if (!finished) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!finished)
    return "the HDF5 library did not finish reading the file's structure within " +
           std::to_string(seconds) + " s (damaged file?)";
  if (WIFSIGNALED(status))
    return "the HDF5 library crashed (signal " + std::to_string(WTERMSIG(status)) +
           ") reading the file's structure (damaged file?)";
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
    return "the HDF5 library failed (exit status " + std::to_string(WEXITSTATUS(status)) +
           ") reading the file's structure (damaged file?)";
  return {};
}

}  // namespace

void probe_hdf5_file(const std::string& path, const char* reader,
                     const std::function<void()>& open_as_reader) {
  const int seconds = settings().hdf5_probe_seconds;
  if (seconds == 0 || g_in_child) return;
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return;  // the reader reports a missing file
  const auto time = std::filesystem::last_write_time(path, ec).time_since_epoch().count();
  using Key = std::tuple<std::string, uintmax_t, long long, std::string>;
  // The last file walked and its problem ("" for none): `run` opens a file as topology and as
  // trajectory, on two threads. One entry, so that opening many files keeps no list of them.
  static Key last;
  static std::string last_problem;
  const Key key{path, size, static_cast<long long>(time), reader != nullptr ? reader : ""};
  // No other thread of ours is inside the HDF5 library while the child is forked (see Hdf5Gate),
  // and the gate stays held while the child walks, so a second thread opening the same file
  // waits and then finds its result.
  Hdf5Gate gate;
  if (key != last) {
    last_problem = walk_in_child(path, seconds, open_as_reader);
    last = key;
  }
  if (!last_problem.empty()) throw InputError(path + ": " + last_problem);
}

}  // namespace pairhist::io
