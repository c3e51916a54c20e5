#include "fuzz/fuzz_support.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <system_error>

#include "io/topology/topology_reader.hpp"
#include "io/trajectory/trajectory_reader.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::fuzz {

namespace {

// One private directory per process: libFuzzer's -fork and -jobs modes run several at once.
class InputDirectory {
 public:
  InputDirectory() {
    std::string base;
    if (const char* tmp = std::getenv("TMPDIR"); tmp != nullptr && *tmp != '\0') {
      base = tmp;
    } else if (::access("/dev/shm", W_OK) == 0) {
      base = "/dev/shm";  // memory: millions of small writes never reach a disk
    } else {
      base = std::filesystem::temp_directory_path().string();
    }
    std::string pattern = base + "/pairhist-fuzz-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) violated("cannot create a directory in " + base);
    dir_ = pattern;
  }
  ~InputDirectory() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  InputDirectory(const InputDirectory&) = delete;
  InputDirectory& operator=(const InputDirectory&) = delete;

  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

// The HDF5 structure walk (io/hdf5/hdf5_probe.hpp) must give up on a hanging file well within
// libFuzzer's -timeout (10 s), which also covers the second run of an input that libFuzzer makes
// when it suspects a leak, so that the harness sees the reader's error, not a timeout.
const bool kProbeLimitSet = setenv("PAIRHIST_HDF5_PROBE_SECONDS", "3", 0) == 0;

InputDirectory& input_directory() {
  static InputDirectory dir;
  return dir;
}

}  // namespace

void violated(const std::string& what) {
  std::fprintf(stderr, "pairhist fuzz: invariant violated: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

const std::string& write_input(const uint8_t* data, size_t size, const std::string& extension) {
  static std::string path;
  path = input_directory().dir() + "/input" + extension;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) violated("cannot write " + path);
  const bool ok = size == 0 || std::fwrite(data, 1, size, f) == size;
  if (std::fclose(f) != 0 || !ok) violated("cannot write " + path);
  return path;
}

void check_message(const std::string& message, const std::string& prefix) {
  if (message.compare(0, prefix.size(), prefix) != 0)
    violated("error message does not start with '" + prefix + "': " + message);
  if (message.find_first_of("\n\r") != std::string::npos)
    violated("error message spans several lines: " + message);
}

void read_trajectory(const std::string& path) {
  try {
    std::unique_ptr<io::TrajectoryReader> reader = io::open_trajectory(path);
    const int natoms = reader->natoms();
    if (natoms < 0) violated("negative natoms " + std::to_string(natoms));
    io::TrajectoryFrame frame;
    int64_t frames = 0;
    while (reader->next(frame)) {
      ++frames;
      if (frame.xyz.size() != 3 * static_cast<size_t>(natoms))
        violated("frame " + std::to_string(frames - 1) + " holds " +
                 std::to_string(frame.xyz.size()) + " coordinates for " + std::to_string(natoms) +
                 " atoms");
      if (reader->frames_read() != frames)
        violated("frames_read() is " + std::to_string(reader->frames_read()) + " after " +
                 std::to_string(frames) + " frames");
    }
  } catch (const InputError& e) {
    check_message(e.what(), path + ": ");
  }
}

void read_topology(const std::string& path) {
  try {
    const analysis::Topology top = io::read_topology(path);
    const size_t n = top.atom_names.size();
    if (top.residue_names.size() != n || top.residue_numbers.size() != n)
      violated("residue lists disagree with the " + std::to_string(n) + " atom names");
    if (!top.xyz.empty() && top.xyz.size() != 3 * n)  // none: a format without coordinates
      violated(std::to_string(top.xyz.size()) + " coordinates for " + std::to_string(n) + " atoms");
    if (!top.elements.empty() && top.elements.size() != n) violated("element list has holes");
    if (!top.types.empty() && top.types.size() != n) violated("type list has holes");
  } catch (const InputError& e) {
    check_message(e.what(), path + ": ");
  }
}

bool carries_species(const std::string& path) {
  try {
    return io::carries_species(path);
  } catch (const InputError& e) {
    check_message(e.what(), path + ": ");
  }
  return false;
}

int fuzz_trajectory(const uint8_t* data, size_t size, const char* extension) {
  read_trajectory(write_input(data, size, extension));
  return 0;
}

int fuzz_topology(const uint8_t* data, size_t size, const char* extension) {
  read_topology(write_input(data, size, extension));
  return 0;
}

}  // namespace pairhist::fuzz
