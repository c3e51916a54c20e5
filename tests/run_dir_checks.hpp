// What a `pairhist run` output directory holds, for the tests of stopped, killed and resumed
// runs: every file whole, and the same results as another run's, bit for bit.
#pragma once

#include <doctest/doctest.h>
#include <hdf5.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "drivers/job/checkpoint.hpp"
#include "io/hdf5/hdf5_util.hpp"

namespace pairhist::test {

inline std::string file_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Every dataset of an HDF5 file (path -> raw bytes in the file's type) and every attribute of
/// its /pairhist group (as "@name" -> value bytes, strings as text).
inline std::map<std::string, std::string> h5_contents(const std::string& path) {
  std::map<std::string, std::string> out;
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE_MESSAGE(f >= 0, path);
  struct Visit {
    hid_t file;
    std::map<std::string, std::string>* out;
  } visit{f, &out};
  H5Lvisit(
      f, H5_INDEX_NAME, H5_ITER_INC,
      [](hid_t, const char* name, const H5L_info_t*, void* data) -> herr_t {
        auto* v = static_cast<Visit*>(data);
        io::SilenceHdf5Errors quiet;
        const hid_t d = H5Dopen2(v->file, name, H5P_DEFAULT);
        if (d < 0) return 0;  // a group
        const hid_t type = H5Dget_type(d);
        const hid_t space = H5Dget_space(d);
        const auto n = static_cast<size_t>(H5Sget_simple_extent_npoints(space));
        std::string bytes(n * H5Tget_size(type), '\0');
        if (H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data()) < 0) bytes = "unread";
        (*v->out)[name] = bytes;
        H5Sclose(space);
        H5Tclose(type);
        H5Dclose(d);
        return 0;
      },
      &visit);
  const hid_t meta = H5Gopen2(f, "/pairhist", H5P_DEFAULT);
  REQUIRE_MESSAGE(meta >= 0, path << ": no /pairhist");
  const int n = H5Aget_num_attrs(meta);
  for (int i = 0; i < n; ++i) {
    const hid_t a =
        H5Aopen_by_idx(meta, ".", H5_INDEX_NAME, H5_ITER_INC, hsize_t(i), H5P_DEFAULT, H5P_DEFAULT);
    char name[256] = {};
    H5Aget_name(a, sizeof(name), name);
    const hid_t type = H5Aget_type(a);
    std::string value;
    if (H5Tget_class(type) == H5T_STRING) {
      std::vector<std::string> text;
      io::h5_string_attribute(meta, name, text);
      for (const auto& t : text) value += t;
    } else {
      value.assign(H5Tget_size(type), '\0');
      H5Aread(a, type, value.data());
    }
    out[std::string("@") + name] = value;
    H5Tclose(type);
    H5Aclose(a);
  }
  H5Gclose(meta);
  H5Fclose(f);
  return out;
}

/// The /pairhist attribute `complete` and, when present, `stopped_by`.
inline std::pair<int64_t, std::string> h5_completion(const std::string& path) {
  const auto c = h5_contents(path);
  int64_t complete = -1;
  const auto it = c.find("@complete");
  if (it != c.end() && it->second.size() == 8) std::memcpy(&complete, it->second.data(), 8);
  const auto s = c.find("@stopped_by");
  return {complete, s == c.end() ? "" : s->second};
}

/// Lines of a text output that hold numbers (not comments, xmgrace commands or the CSV header).
inline int data_lines(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line))
    if (!line.empty() && line[0] != '#' && line[0] != '@' && line[0] != 'r') ++n;
  return n;
}

/// Every file of the directory is whole: the results as the writers finish them, the checkpoint
/// intact. Returns the names of temporaries left by a killed writer.
inline std::vector<std::string> check_whole_outputs(const std::filesystem::path& dir, int nbins) {
  std::vector<std::string> temporaries;
  if (!std::filesystem::exists(dir)) return temporaries;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    CAPTURE(name);
    if (name.find(".tmp.") != std::string::npos) {
      temporaries.push_back(name);
    } else if (name == "pairhist.h5") {
      CHECK(h5_completion(entry.path().string()).first >= 0);
    } else if (name == "rdf.csv" || name == "rdf.xvg" || name == "cn.xvg") {
      CHECK(data_lines(file_text(entry.path())) == nbins);
    } else if (name == "pairhist.ckpt") {
      CHECK_NOTHROW(read_checkpoint(entry.path().string()));
    }
  }
  return temporaries;
}

/// Two runs' results are the same, bit for bit: the text outputs byte for byte and every
/// dataset and /pairhist attribute of pairhist.h5.
inline void check_same_outputs(const std::filesystem::path& a, const std::filesystem::path& b) {
  for (const char* name : {"rdf.csv", "rdf.xvg", "cn.xvg"}) {
    CAPTURE(name);
    REQUIRE(std::filesystem::exists(a / name));
    REQUIRE(std::filesystem::exists(b / name));
    CHECK(file_text(a / name) == file_text(b / name));
  }
  const auto ha = h5_contents((a / "pairhist.h5").string());
  const auto hb = h5_contents((b / "pairhist.h5").string());
  CHECK(ha.size() == hb.size());
  for (const auto& [key, value] : ha) {
    CAPTURE(key);
    const auto it = hb.find(key);
    REQUIRE(it != hb.end());
    CHECK(it->second == value);
  }
}

}  // namespace pairhist::test
