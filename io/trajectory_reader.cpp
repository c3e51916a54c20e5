#include "trajectory_reader.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "pairhist/errors.hpp"
#include "xtc_reader.hpp"

namespace pairhist::io {

std::unique_ptr<TrajectoryReader> open_trajectory(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".xtc") return std::make_unique<XtcReader>(path);
  if (!std::filesystem::exists(path)) throw InputError(path + ": no such file");
  throw InputError(path + ": unknown trajectory format '" + ext + "' (supported: .xtc)");
}

}  // namespace pairhist::io
