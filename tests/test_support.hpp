// Small helpers shared by the reader/writer test suites: temporary directories, whole-file I/O,
// shell commands (GROMACS included), big-endian byte fiddling and error capture.
#pragma once

#include <doctest/doctest.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "io/trajectory/trajectory_reader.hpp"
#include "pairhist/errors.hpp"
#include "tests/test_paths.hpp"

namespace pairhist::test {

/// Caps this process's address space at 6 GiB, far below what a size trusted from a damaged
/// file would need (tens of GiB): such an allocation throws std::bad_alloc and fails the test
/// instead of swapping.
inline void cap_address_space() {
  const rlim_t cap = rlim_t{6} << 30;
  rlimit limit{};
  getrlimit(RLIMIT_AS, &limit);
  if (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur > cap) {
    limit.rlim_cur = cap;
    setrlimit(RLIMIT_AS, &limit);
  }
}

/// A fresh, uniquely named directory (pairhist-TAG-XXXXXX under the system temporary
/// directory), removed with its contents afterwards.
class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    std::string pattern =
        (std::filesystem::temp_directory_path() / ("pairhist-" + tag + "-XXXXXX")).string();
    REQUIRE_MESSAGE(::mkdtemp(pattern.data()) != nullptr, "mkdtemp failed");
    dir = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  /// The path of `name` inside the directory.
  std::string file(const std::string& name) const { return (dir / name).string(); }

  /// How many entries the directory holds.
  size_t entries() const {
    return static_cast<size_t>(std::distance(std::filesystem::directory_iterator(dir),
                                             std::filesystem::directory_iterator()));
  }

  std::filesystem::path dir;
};

/// A file of the test fixtures under the data directory.
inline std::string fixture(const std::string& name) {
  return data_dir() + "/fixtures/" + name;
}

/// The whole content of `path`, read as bytes.
inline std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// Writes `bytes` to `path`, replacing what was there.
inline void write_all(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE_MESSAGE(out.good(), "cannot write " << path);
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

/// `s` in single quotes, safe to paste into a POSIX shell command.
inline std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// Runs `cmd` in a shell; true if it exited normally with status 0.
inline bool run_shell(const std::string& cmd) {
  const int status = std::system(cmd.c_str());
  return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/// Runs `cmd` in a shell and returns its exit status (-1 if it did not exit normally) and output.
inline int capture(const std::string& cmd, std::string& output) {
  output.clear();
  FILE* pipe = ::popen((cmd + " 2>&1").c_str(), "r");
  REQUIRE_MESSAGE(pipe != nullptr, "cannot run " << cmd);
  char buf[4096];
  size_t got;
  while ((got = std::fread(buf, 1, sizeof buf, pipe)) > 0) output.append(buf, got);
  const int status = ::pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// A pairhist command's exit status and its stdout and stderr together.
struct CommandResult {
  int status = -1;
  std::string output;
};

/// Runs `pairhist ARGS` (a shell command line after the program).
inline CommandResult pairhist_cmd(const std::string& args) {
  CommandResult r;
  r.status = capture(pairhist_binary() + " " + args, r.output);
  return r;
}

/// The GROMACS executable: PAIRHIST_GMX, or "gmx".
inline std::string gmx() {
  const char* env = std::getenv("PAIRHIST_GMX");
  return env != nullptr && *env != '\0' ? env : "gmx";
}

/// Tests that use GROMACS as the reference call this first; CI installs it, so its absence is a
/// failure.
inline void require_gmx() {
  static const bool found = run_shell(shell_quote(gmx()) + " -quiet -version >/dev/null 2>&1");
  REQUIRE_MESSAGE(found, "GROMACS executable '" << gmx()
                                                << "' not found or not runnable: install GROMACS "
                                                   "or set PAIRHIST_GMX to the gmx binary");
}

/// The big-endian 32-bit word at byte `at` of `b`.
inline uint32_t get_be32(const std::string& b, size_t at) {
  uint32_t v = 0;
  for (size_t k = 0; k < 4; ++k) v = (v << 8) | static_cast<unsigned char>(b[at + k]);
  return v;
}

/// Overwrites the 4 bytes at `at` of `b` with `v`, big-endian.
inline void put_be32(std::string& b, size_t at, uint32_t v) {
  for (size_t k = 0; k < 4; ++k) b[at + k] = static_cast<char>((v >> (24 - 8 * k)) & 0xff);
}

/// Appends `v` to `b`, big-endian.
inline void append_be32(std::string& b, uint32_t v) {
  b.append(4, '\0');
  put_be32(b, b.size() - 4, v);
}

/// The message of the InputError thrown by `fn`, or "" if none was thrown.
inline std::string input_error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

/// Reads every frame of `path` with a `Reader`; returns the InputError message ("" for a clean
/// end) and stores the number of frames read in `*frames` when given.
template <class Reader>
std::string read_to_end_with(const std::string& path, int64_t* frames = nullptr) {
  int64_t n = 0;
  const std::string msg = input_error_of([&] {
    Reader reader(path);
    pairhist::io::TrajectoryFrame frame;
    while (reader.next(frame)) ++n;
  });
  if (frames != nullptr) *frames = n;
  return msg;
}

/// One frame of a fixture script's reference text.
struct RefFrame {
  std::array<double, 9> box{};  // Angstrom
  std::vector<double> xyz;      // Angstrom
};

/// Reads the "frame K / box ... / x y z" reference text written by the fixture script.
inline std::vector<RefFrame> read_reference(const std::string& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  std::vector<RefFrame> frames;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    if (line.rfind("frame", 0) == 0) {
      frames.emplace_back();
    } else if (line.rfind("box", 0) == 0) {
      std::string word;
      s >> word;
      for (double& v : frames.back().box) s >> v;
      REQUIRE(!s.fail());
    } else {
      double x, y, z;
      s >> x >> y >> z;
      REQUIRE_MESSAGE(!s.fail(), "bad reference line " << line);
      frames.back().xyz.insert(frames.back().xyz.end(), {x, y, z});
    }
  }
  REQUIRE(!frames.empty());
  return frames;
}

}  // namespace pairhist::test
