#include "io/trajectory/cadishi_input.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "io/hdf5/hdf5_probe.hpp"
#include "io/trajectory/unit_cell.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {

namespace {

// CADISHI stores Angstrom. Dividing (rather than multiplying by 0.1) is exact for values that
// were written as 10 * a float in nm, so converting to CADISHI and back keeps every coordinate.
constexpr double kAngstromPerNm = 10.0;

bool frame_number(const std::string& name, int64_t& value) {
  if (name.empty() || name.size() > 18) return false;
  for (char c : name)
    if (c < '0' || c > '9') return false;
  value = std::strtoll(name.c_str(), nullptr, 10);
  return true;
}

}  // namespace

bool is_cadishi_input(const std::string& path) {
  Hdf5Gate gate;
  if (!is_hdf5_file(path)) return false;
  probe_hdf5_file(path);
  SilenceHdf5Errors quiet;
  H5Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.valid()) throw InputError(path + ": cannot open the HDF5 file (truncated or damaged?)");
  return !h5_exists(file.get(), "particles") && !h5_exists(file.get(), "h5md");
}

// Problems quote group and species names from the file: excerpt keeps each message one line.
void CadishiReader::fail(const std::string& problem) const {
  throw InputError(path_ + ": " + excerpt(problem, 300));
}

void CadishiReader::frame_fail(const std::string& problem) {
  const int64_t f = frames_read_;
  throw InputError(path_ + ": frame " + std::to_string(f) + " (group /" +
                   excerpt(names_[static_cast<size_t>(f)]) + "): " + excerpt(problem, 300) +
                   (f > 0 ? " (last complete frame is " + std::to_string(f - 1) + ")"
                          : std::string(" (no complete frame)")));
}

CadishiReader::CadishiReader(const std::string& path) : path_(path) {
  Hdf5Gate gate;
  SilenceHdf5Errors quiet;
  if (!is_hdf5_file(path)) fail("not an HDF5 file (or no such file)");
  probe_hdf5_file(path, "cadishi", [&path] {  // the reader's start: opening, the first frame
    CadishiReader opened(path);
    TrajectoryFrame first;
    opened.next(first);
  });
  file_ = H5Handle(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file_.valid()) fail("cannot open the HDF5 file (truncated or damaged?)");
  std::vector<std::pair<int64_t, std::string>> entries;
  for (const auto& name : h5_member_names(file_.get())) {
    int64_t number;
    if (frame_number(name, number)) entries.emplace_back(number, name);
  }
  std::sort(entries.begin(), entries.end());
  if (entries.empty()) fail("no frame groups (/<frame number>/coordinates/<species>)");
  for (size_t i = 1; i < entries.size(); ++i)
    if (entries[i].first == entries[i - 1].first)
      fail("groups /" + entries[i - 1].second + " and /" + entries[i].second +
           " have the same frame number");
  for (const auto& e : entries) {
    frames_.push_back(e.first);
    names_.push_back(e.second);
  }
  const std::string& first_name = names_[0];
  if (!h5_exists(file_.get(), first_name + "/coordinates"))
    fail("frame group /" + first_name +
         " has no coordinates group (not a CADISHI trajectory; a histogram output file?)");
  H5Handle coords(H5Gopen2(file_.get(), (first_name + "/coordinates").c_str(), H5P_DEFAULT),
                  H5Gclose);
  if (!coords.valid()) fail("/" + first_name + "/coordinates is not a group");
  species_ = h5_member_names(coords.get());
  std::sort(species_.begin(), species_.end());
  if (species_.empty()) fail("/" + first_name + "/coordinates holds no species");
  int64_t total = 0;
  for (const auto& s : species_) {
    H5Handle set(H5Dopen2(coords.get(), s.c_str(), H5P_DEFAULT), H5Dclose);
    if (!set.valid()) fail("/" + first_name + "/coordinates/" + s + " is not a dataset");
    const std::vector<hsize_t> dims = h5_dims(set.get());
    if (dims.size() != 2 || dims[1] != 3)
      fail("/" + first_name + "/coordinates/" + s + " must be n x 3");
    if (dims[0] > static_cast<hsize_t>(INT32_MAX / 3))
      fail("/" + first_name + "/coordinates/" + s + " has " + std::to_string(dims[0]) +
           " particles, too many");
    if (const std::string problem = h5_check_storage(set.get(), path_); !problem.empty())
      fail("/" + first_name + "/coordinates/" + s + " " + problem);
    counts_.push_back(static_cast<int64_t>(dims[0]));
    total += static_cast<int64_t>(dims[0]);
  }
  if (total <= 0 || total > INT32_MAX / 3) fail("invalid particle count " + std::to_string(total));
  natoms_ = static_cast<int>(total);
}

bool CadishiReader::next(TrajectoryFrame& frame) {
  if (frames_read_ >= static_cast<int64_t>(frames_.size())) return false;
  Hdf5Gate gate;
  SilenceHdf5Errors quiet;
  const int64_t number = frames_[static_cast<size_t>(frames_read_)];
  const std::string& name = names_[static_cast<size_t>(frames_read_)];
  H5Handle group(H5Gopen2(file_.get(), name.c_str(), H5P_DEFAULT), H5Gclose);
  if (!group.valid()) frame_fail("not a group");
  if (!h5_exists(group.get(), "coordinates")) frame_fail("no coordinates group");
  H5Handle coords(H5Gopen2(group.get(), "coordinates", H5P_DEFAULT), H5Gclose);
  std::vector<std::string> names = h5_member_names(coords.get());
  std::sort(names.begin(), names.end());
  if (names != species_) {
    std::string list;
    for (const auto& s : names) list += (list.empty() ? "" : ",") + s;
    frame_fail("species " + list + " differ from the first frame's");
  }
  read_species_coordinates(coords.get(), frame);
  read_dimensions(group.get(), frame);
  frame.step = number;
  frame.time = 0;
  frame.precision = 0;
  ++frames_read_;
  return true;
}

void CadishiReader::read_species_coordinates(hid_t coords, TrajectoryFrame& frame) {
  frame.xyz.resize(3 * static_cast<size_t>(natoms_));
  size_t at = 0;
  for (size_t s = 0; s < species_.size(); ++s) {
    H5Handle set(H5Dopen2(coords, species_[s].c_str(), H5P_DEFAULT), H5Dclose);
    if (!set.valid()) frame_fail("coordinates/" + species_[s] + " is not a dataset");
    const std::vector<hsize_t> dims = h5_dims(set.get());
    if (dims.size() != 2 || dims[1] != 3 || static_cast<int64_t>(dims[0]) != counts_[s])
      frame_fail("coordinates/" + species_[s] + " is not " + std::to_string(counts_[s]) +
                 " x 3 as in the first frame");
    if (const std::string problem = h5_check_storage(set.get(), path_); !problem.empty())
      frame_fail("coordinates/" + species_[s] + " " + problem);
    buf_.resize(3 * static_cast<size_t>(counts_[s]));
    if (!buf_.empty() &&
        H5Dread(set.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf_.data()) < 0)
      frame_fail("cannot read coordinates/" + species_[s]);
    for (size_t i = 0; i < buf_.size(); ++i) {
      if (!std::isfinite(buf_[i]))
        frame_fail("non-finite coordinate in " + species_[s] + " (particle " +
                   std::to_string(i / 3) + ")");
      frame.xyz[at++] = static_cast<float>(buf_[i] / kAngstromPerNm);
    }
  }
}

void CadishiReader::read_dimensions(hid_t group, TrajectoryFrame& frame) {
  frame.box.fill(0);
  if (H5Lexists(group, "dimensions", H5P_DEFAULT) > 0) {
    H5Handle set(H5Dopen2(group, "dimensions", H5P_DEFAULT), H5Dclose);
    if (!set.valid()) frame_fail("dimensions is not a dataset");
    if (const std::string problem = h5_check_storage(set.get(), path_); !problem.empty())
      frame_fail("dimensions " + problem);
    const std::vector<hsize_t> dims = h5_dims(set.get());
    hsize_t n = 1;
    for (hsize_t d : dims) n *= d;
    double v[9] = {};
    const bool cell = dims.size() == 1 && dims[0] == 6;
    const bool lengths = dims.size() == 1 && dims[0] == 3;
    const bool matrix = dims.size() == 2 && dims[0] == 3 && dims[1] == 3;
    if (n == 0) {
      // CADISHI writes an empty list for "no box"
    } else if (!cell && !lengths && !matrix) {
      frame_fail("dimensions must be (a, b, c, alpha, beta, gamma), (a, b, c) or 3 x 3");
    } else {
      if (H5Dread(set.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0)
        frame_fail("cannot read dimensions");
      for (hsize_t k = 0; k < n; ++k)
        if (!std::isfinite(v[k])) frame_fail("non-finite dimensions");
      std::array<double, 9> box{};
      if (matrix) {
        std::copy(v, v + 9, box.begin());
      } else if (v[0] != 0 || v[1] != 0 || v[2] != 0) {
        if (!(v[0] > 0 && v[1] > 0 && v[2] > 0))
          frame_fail("dimensions have a zero or negative length");
        if (lengths) {
          box = {v[0], 0, 0, 0, v[1], 0, 0, 0, v[2]};
        } else {
          for (int k = 3; k < 6; ++k)
            if (!(v[k] > 0 && v[k] < 180)) frame_fail("dimensions have an angle outside (0, 180)");
          const std::string problem = box_from_cell(v[0], v[1], v[2], cos_degrees(v[3]),
                                                    cos_degrees(v[4]), cos_degrees(v[5]), box);
          if (!problem.empty()) frame_fail(problem);
        }
      }
      for (int k = 0; k < 9; ++k)
        frame.box[static_cast<size_t>(k)] =
            static_cast<float>(box[static_cast<size_t>(k)] / kAngstromPerNm);
    }
  }
}

Topology read_cadishi_topology(const std::string& path) {
  CadishiReader reader(path);
  TrajectoryFrame frame;
  Topology top;
  if (!reader.next(frame)) throw InputError(path + ": no frames");
  for (size_t s = 0; s < reader.species().size(); ++s)
    for (int64_t k = 0; k < reader.species_counts()[s]; ++k)
      top.atom_names.push_back(reader.species()[s]);
  top.residue_names.assign(top.atom_names.size(), std::string());
  top.residue_numbers.assign(top.atom_names.size(), 0);
  top.xyz = frame.xyz;
  top.box = frame.box;
  top.title = "CADISHI " + path;
  return top;
}

}  // namespace pairhist::io
