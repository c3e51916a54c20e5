#include "io/common/input_path.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "pairhist/errors.hpp"

namespace pairhist::io {

std::string input_file_problem(const std::string& path) {
  if (path.empty()) return "no such file (an empty name)";
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return errno == ENOENT ? "no such file" : std::string(std::strerror(errno));
  if (S_ISDIR(st.st_mode)) return "is a directory";
  if (S_ISFIFO(st.st_mode))
    return "is a FIFO (named pipe), not a regular file: give the file itself";
  if (S_ISCHR(st.st_mode)) return "is a character device, not a regular file";
  if (S_ISBLK(st.st_mode)) return "is a block device, not a regular file";
  if (S_ISSOCK(st.st_mode)) return "is a socket, not a regular file";
  if (!S_ISREG(st.st_mode)) return "is not a regular file";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::strerror(errno);
  ::close(fd);
  return "";
}

void require_input_file(const std::string& path) {
  if (const std::string problem = input_file_problem(path); !problem.empty())
    throw InputError(path + ": " + problem);
}

std::string output_file_problem(const std::string& flag, const std::string& path,
                                const std::string& example, const std::string& made_dir) {
  namespace fs = std::filesystem;
  if (path.empty()) return "";
  const fs::path f(path);
  std::error_code ec;
  if (!f.has_filename() || fs::is_directory(f, ec))
    return flag + " " + path + " is a directory: " + flag + " names a file (e.g. " + example + ")";
  const fs::path dir = f.has_parent_path() ? f.parent_path() : fs::path(".");
  if (!made_dir.empty() &&
      fs::absolute(dir, ec).lexically_normal() == fs::absolute(made_dir, ec).lexically_normal())
    return "";
  if (!fs::is_directory(dir, ec)) return flag + " " + path + ": no directory " + dir.string();
  const long name_max = ::pathconf(dir.c_str(), _PC_NAME_MAX);
  if (name_max > 0 && f.filename().string().size() > static_cast<size_t>(name_max))
    return flag + " " + excerpt(path) + ": file name too long (" +
           std::to_string(f.filename().string().size()) + " characters, at most " +
           std::to_string(name_max) + " here)";
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    return flag + " " + path + ": directory " + dir.string() + " cannot be written (" +
           std::strerror(errno) + ")";
  return "";
}

}  // namespace pairhist::io
