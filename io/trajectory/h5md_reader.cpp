#include "io/trajectory/h5md_reader.hpp"

#include <algorithm>
#include <cmath>

#include "io/hdf5/hdf5_probe.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {

namespace {

constexpr double kAkmaTimePs = 0.04888821;  // CHARMM's internal time unit

// nm per file unit; 0 for an unknown unit.
double length_unit_to_nm(const std::string& unit) {
  if (unit == "nm") return 1.0;
  if (unit == "Angstrom" || unit == "angstrom" || unit == "A" || unit == "\xc3\x85") return 0.1;
  if (unit == "pm") return 1e-3;
  return 0;
}

double time_unit_to_ps(const std::string& unit) {
  if (unit == "ps") return 1.0;
  if (unit == "fs") return 1e-3;
  if (unit == "ns") return 1e3;
  if (unit == "AKMA") return kAkmaTimePs;
  return 0;
}

}  // namespace

// Problems quote names and attribute values from the file: excerpt keeps each message one line.
void H5mdReader::fail(const std::string& problem) const {
  throw InputError(path_ + ": " + excerpt(problem, 300));
}

void H5mdReader::frame_fail(const std::string& problem) {
  const int64_t f = frames_read_;
  throw InputError(path_ + ": frame " + std::to_string(f) + ": " + excerpt(problem, 300) +
                   (f > 0 ? " (last complete frame is " + std::to_string(f - 1) + ")"
                          : std::string(" (no complete frame)")));
}

H5mdReader::H5mdReader(const std::string& path) : path_(path) {
  Hdf5Gate gate;
  SilenceHdf5Errors quiet;
  if (!is_hdf5_file(path)) fail("not an HDF5 file (or no such file)");
  probe_hdf5_file(path, "h5md", [&path] {  // the reader's start: opening, the first frame
    H5mdReader opened(path);
    TrajectoryFrame first;
    opened.next(first);
  });
  file_ = H5Handle(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file_.valid()) fail("cannot open the HDF5 file (truncated or damaged?)");
  if (!h5_exists(file_.get(), "particles")) fail("not an H5MD file (no /particles group)");
  H5Handle particles(H5Gopen2(file_.get(), "particles", H5P_DEFAULT), H5Gclose);
  if (!particles.valid()) fail("/particles is not a group");
  std::vector<std::string> groups;
  for (const auto& name : h5_member_names(particles.get()))
    if (h5_exists(particles.get(), name + "/position/value")) groups.push_back(name);
  if (groups.empty()) fail("no /particles/<group>/position/value dataset");
  if (groups.size() > 1) {
    std::string list;
    for (const auto& g : groups) list += (list.empty() ? "" : ", ") + g;
    fail("several particle groups with positions (" + list + "); only one is supported");
  }
  group_ = groups[0];
  H5Handle group(H5Gopen2(particles.get(), group_.c_str(), H5P_DEFAULT), H5Gclose);
  H5Handle position(H5Gopen2(group.get(), "position", H5P_DEFAULT), H5Gclose);
  const std::string where = "/particles/" + group_ + "/position";
  if (!position.valid()) fail(where + " is not a group");
  value_ = H5Handle(H5Dopen2(position.get(), "value", H5P_DEFAULT), H5Dclose);
  if (!value_.valid()) fail("cannot open " + where + "/value");
  const std::vector<hsize_t> dims = h5_dims(value_.get());
  if (dims.size() != 3 || dims[2] != 3) fail(where + "/value must be frames x atoms x 3");
  if (dims[1] == 0 || dims[1] > static_cast<hsize_t>(INT32_MAX / 3))
    fail(where + "/value has an invalid atom count " + std::to_string(dims[1]));
  if (const std::string problem = h5_check_storage(value_.get(), path_); !problem.empty())
    fail(where + "/value " + problem);
  nframes_ = static_cast<int64_t>(dims[0]);
  natoms_ = static_cast<int>(dims[1]);
  {
    H5Handle type(H5Dget_type(value_.get()), H5Tclose);
    const H5T_class_t cls = H5Tget_class(type.get());
    if (cls != H5T_FLOAT && cls != H5T_INTEGER) fail(where + "/value is not numeric");
  }
  std::vector<std::string> unit;
  length_scale_ = 1;
  if (h5_string_attribute(value_.get(), "unit", unit)) {
    length_scale_ = unit.size() == 1 ? length_unit_to_nm(unit[0]) : 0;
    if (length_scale_ == 0)
      fail(where + "/value: unsupported length unit '" + (unit.empty() ? "" : unit[0]) +
           "' (supported: nm, Angstrom, pm)");
  }
  open_sampling(position.get(), "step", step_, false);
  open_sampling(position.get(), "time", time_, true);
  open_box(group.get());
}

void H5mdReader::open_sampling(hid_t element, const char* name, Sampling& s, bool is_time) {
  if (H5Lexists(element, name, H5P_DEFAULT) <= 0) return;
  const std::string where = "/particles/" + group_ + "/position/" + name;
  s.dataset = H5Handle(H5Dopen2(element, name, H5P_DEFAULT), H5Dclose);
  if (!s.dataset.valid()) fail("cannot open " + where);
  s.present = true;
  if (is_time) {
    std::vector<std::string> unit;
    if (h5_string_attribute(s.dataset.get(), "unit", unit)) {
      s.scale = unit.size() == 1 ? time_unit_to_ps(unit[0]) : 0;
      if (s.scale == 0)
        fail(where + ": unsupported time unit '" + (unit.empty() ? "" : unit[0]) +
             "' (supported: ps, fs, ns, AKMA)");
    }
  }
  const std::vector<hsize_t> dims = h5_dims(s.dataset.get());
  if (const std::string problem = h5_check_storage(s.dataset.get(), path_); !problem.empty())
    fail(where + " " + problem);
  if (dims.empty()) {  // fixed interval: value = offset + frame * interval
    H5Handle space(H5Dget_space(s.dataset.get()), H5Sclose);
    if (!space.valid() || H5Sget_simple_extent_npoints(space.get()) != 1 ||
        H5Dread(s.dataset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, &s.interval) < 0)
      fail("cannot read " + where);
    if (H5Aexists(s.dataset.get(), "offset") > 0 &&
        !h5_scalar_attribute(s.dataset.get(), "offset", H5T_NATIVE_DOUBLE, &s.offset))
      fail("cannot read the offset attribute of " + where + " (one number)");
    if (!std::isfinite(s.interval) || !std::isfinite(s.offset)) fail(where + " is not finite");
  } else if (dims.size() == 1 && static_cast<int64_t>(dims[0]) >= nframes_) {
    s.per_frame = true;
  } else {
    fail(where + " has " +
         (dims.size() == 1 ? std::to_string(dims[0]) + " entries"
                           : "rank " + std::to_string(dims.size())) +
         " for " + std::to_string(nframes_) + " frames");
  }
}

double H5mdReader::sample(Sampling& s, int64_t frame) {
  if (!s.present) return 0;
  if (!s.per_frame) return (s.offset + static_cast<double>(frame) * s.interval) * s.scale;
  H5Handle space(H5Dget_space(s.dataset.get()), H5Sclose);
  const hsize_t start[1] = {static_cast<hsize_t>(frame)}, count[1] = {1};
  H5Handle mem(H5Screate_simple(1, count, nullptr), H5Sclose);
  double v = 0;
  if (H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr) < 0 ||
      H5Dread(s.dataset.get(), H5T_NATIVE_DOUBLE, mem.get(), space.get(), H5P_DEFAULT, &v) < 0)
    frame_fail("cannot read its step or time");
  if (!std::isfinite(v)) frame_fail("non-finite step or time");
  return v * s.scale;
}

void H5mdReader::open_box(hid_t particles_group) {
  const std::string where = "/particles/" + group_ + "/box";
  if (H5Lexists(particles_group, "box", H5P_DEFAULT) <= 0) return;  // no box: not periodic
  H5Handle box(H5Gopen2(particles_group, "box", H5P_DEFAULT), H5Gclose);
  if (!box.valid()) fail(where + " is not a group");
  int dimension = 0;
  if (H5Aexists(box.get(), "dimension") > 0 &&
      (!h5_scalar_attribute(box.get(), "dimension", H5T_NATIVE_INT, &dimension) || dimension != 3))
    fail(where + ": dimension must be 3");
  std::vector<std::string> boundary;
  int periodic = 0;
  if (h5_string_attribute(box.get(), "boundary", boundary)) {
    if (boundary.size() != 3) fail(where + ": boundary must have 3 entries");
    for (const auto& b : boundary) {
      if (b == "periodic")
        ++periodic;
      else if (b != "none")
        fail(where + ": unknown boundary '" + b + "' (periodic or none)");
    }
  } else {
    fail(where + " has no boundary attribute");
  }
  if (periodic == 0) return;
  if (periodic != 3) fail(where + ": partly periodic boxes are not supported");
  if (H5Lexists(box.get(), "edges", H5P_DEFAULT) <= 0)
    fail(where + " is periodic but has no edges");

  H5O_info_t info;
  if (H5Oget_info_by_name(box.get(), "edges", &info, H5P_DEFAULT) < 0)
    fail("cannot inspect " + where + "/edges");
  std::string edges_name = where + "/edges";
  if (info.type == H5O_TYPE_GROUP) {
    edges_ = H5Handle(H5Dopen2(box.get(), "edges/value", H5P_DEFAULT), H5Dclose);
    edges_name += "/value";
    if (!edges_.valid()) fail("cannot open " + edges_name);
    box_source_ = BoxSource::per_frame;
  } else {
    edges_ = H5Handle(H5Dopen2(box.get(), "edges", H5P_DEFAULT), H5Dclose);
    if (!edges_.valid()) fail("cannot open " + edges_name);
    box_source_ = BoxSource::fixed;
  }
  edges_scale_ = length_scale_;
  std::vector<std::string> unit;
  if (h5_string_attribute(edges_.get(), "unit", unit)) {
    edges_scale_ = unit.size() == 1 ? length_unit_to_nm(unit[0]) : 0;
    if (edges_scale_ == 0)
      fail(edges_name + ": unsupported length unit '" + (unit.empty() ? "" : unit[0]) +
           "' (supported: nm, Angstrom, pm)");
  }
  if (const std::string problem = h5_check_storage(edges_.get(), path_); !problem.empty())
    fail(edges_name + " " + problem);
  std::vector<hsize_t> dims = h5_dims(edges_.get());
  if (box_source_ == BoxSource::per_frame) {
    if (dims.empty() || static_cast<int64_t>(dims[0]) < nframes_)
      fail(edges_name + " has fewer entries than position/value has frames");
    dims.erase(dims.begin());
  }
  if (dims.size() == 1 && dims[0] == 3)
    edges_matrix_ = false;
  else if (dims.size() == 2 && dims[0] == 3 && dims[1] == 3)
    edges_matrix_ = true;
  else
    fail(edges_name + " must hold a 3-vector or a 3 x 3 matrix per frame");
  if (box_source_ == BoxSource::fixed) {
    double v[9] = {};
    if (H5Dread(edges_.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0)
      fail("cannot read " + edges_name);
    for (int k = 0; k < 9; ++k) {
      const double x = edges_matrix_ ? v[k] : (k % 4 == 0 ? v[k / 4] : 0.0);
      if (!std::isfinite(x)) fail(edges_name + " is not finite");
      fixed_box_[static_cast<size_t>(k)] = static_cast<float>(x * edges_scale_);
    }
  }
}

bool H5mdReader::next(TrajectoryFrame& frame) {
  if (frames_read_ >= nframes_) return false;
  Hdf5Gate gate;
  SilenceHdf5Errors quiet;
  const size_t n = static_cast<size_t>(natoms_);
  buf_.resize(3 * n);
  {
    H5Handle space(H5Dget_space(value_.get()), H5Sclose);
    const hsize_t start[3] = {static_cast<hsize_t>(frames_read_), 0, 0};
    const hsize_t count[3] = {1, static_cast<hsize_t>(n), 3};
    H5Handle mem(H5Screate_simple(3, count, nullptr), H5Sclose);
    if (H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr) < 0 ||
        H5Dread(value_.get(), H5T_NATIVE_DOUBLE, mem.get(), space.get(), H5P_DEFAULT, buf_.data()) <
            0)
      frame_fail("cannot read the positions (damaged file?)");
  }
  frame.xyz.resize(3 * n);
  for (size_t i = 0; i < 3 * n; ++i) {
    if (!std::isfinite(buf_[i]))
      frame_fail("non-finite coordinate of atom " + std::to_string(i / 3));
    frame.xyz[i] = static_cast<float>(buf_[i] * length_scale_);
  }
  frame.box.fill(0);
  if (box_source_ == BoxSource::fixed) {
    frame.box = fixed_box_;
  } else if (box_source_ == BoxSource::per_frame) {
    H5Handle space(H5Dget_space(edges_.get()), H5Sclose);
    const hsize_t start[3] = {static_cast<hsize_t>(frames_read_), 0, 0};
    const hsize_t count[3] = {1, 3, 3};  // a 3-vector per frame uses the first two
    const int rank = edges_matrix_ ? 3 : 2;
    double v[9] = {};
    H5Handle mem(H5Screate_simple(rank, count, nullptr), H5Sclose);
    if (H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr) < 0 ||
        H5Dread(edges_.get(), H5T_NATIVE_DOUBLE, mem.get(), space.get(), H5P_DEFAULT, v) < 0)
      frame_fail("cannot read the box edges");
    for (int k = 0; k < 9; ++k) {
      const double x = edges_matrix_ ? v[k] : (k % 4 == 0 ? v[k / 4] : 0.0);
      if (!std::isfinite(x)) frame_fail("non-finite box edge");
      frame.box[static_cast<size_t>(k)] = static_cast<float>(x * edges_scale_);
    }
  }
  frame.step = static_cast<int64_t>(std::llround(sample(step_, frames_read_)));
  if (!step_.present) frame.step = frames_read_;
  frame.time = sample(time_, frames_read_);
  frame.precision = 0;
  ++frames_read_;
  return true;
}

}  // namespace pairhist::io
