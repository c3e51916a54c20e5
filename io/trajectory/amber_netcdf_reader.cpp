#include "io/trajectory/amber_netcdf_reader.hpp"

#include <netcdf.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "io/trajectory/amber_netcdf_frames.hpp"
#include "io/trajectory/netcdf_extents.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {
namespace {

// A dimension's length, or -1 where the file has no such dimension.
int64_t dimension_length(int ncid, const char* name) {
  int id = -1;
  size_t len = 0;
  if (nc_inq_dimid(ncid, name, &id) != NC_NOERR || nc_inq_dimlen(ncid, id, &len) != NC_NOERR)
    return -1;
  return static_cast<int64_t>(len);
}

// The text attribute `name` of the file, "" where it has none.
std::string text_attribute(int ncid, const char* name) {
  nc_type type = NC_NAT;
  size_t len = 0;
  if (nc_inq_att(ncid, NC_GLOBAL, name, &type, &len) != NC_NOERR || type != NC_CHAR || len > 4096)
    return "";
  std::string s(len, '\0');
  if (nc_get_att_text(ncid, NC_GLOBAL, name, s.data()) != NC_NOERR) return "";
  s.resize(std::min(s.size(), s.find('\0')));
  return s;
}

bool has_convention(const std::string& conventions, const std::string& wanted) {
  // A comma- or blank-separated list of conventions, AMBER's among them.
  size_t i = 0;
  while (i < conventions.size()) {
    const size_t end = conventions.find_first_of(" ,", i);
    const std::string item = conventions.substr(i, end == std::string::npos ? end : end - i);
    if (item == wanted) return true;
    if (end == std::string::npos) break;
    i = end + 1;
  }
  return false;
}

}  // namespace

AmberNetcdfReader::AmberNetcdfReader(const std::string& path) : path_(path) {
  // Our own scan of the header first: libnetcdf allocates the lengths it declares as it reads
  // them, and HDF5-based NetCDF-4 files are not AMBER's convention (NetCDF-3, 64-bit offset).
  NetcdfExtents extents;
  if (const std::string problem = read_netcdf_extents(path, extents); !problem.empty())
    throw InputError(path + ": damaged NetCDF header: " + problem);
  if (extents.version == 0)
    throw InputError(path +
                     ": not a NetCDF-3 file (AMBER trajectories and restarts are NetCDF-3, "
                     "64-bit offset; NetCDF-4/HDF5 files are not read)");
  const int status = nc_open(path.c_str(), NC_NOWRITE, &ncid_);
  if (status != NC_NOERR) {
    ncid_ = -1;
    throw InputError(path + ": not a readable NetCDF file (" + nc_strerror(status) + ")");
  }
  try {
    check_header();
  } catch (...) {
    nc_close(ncid_);
    ncid_ = -1;
    throw;
  }
}

AmberNetcdfReader::~AmberNetcdfReader() {
  if (ncid_ >= 0) nc_close(ncid_);
}

void AmberNetcdfReader::fail(int64_t frame, const std::string& problem, bool cut) {
  error_ = amber_netcdf_frame_error(path_, frame, problem);
  cut_ = cut;
  throw_frame_error(error_, cut);
}

void AmberNetcdfReader::check_header() {
  auto header_fail = [&](const std::string& problem) { throw InputError(path_ + ": " + problem); };
  const std::string conventions = text_attribute(ncid_, "Conventions");
  restart_ = has_convention(conventions, "AMBERRESTART");
  if (!restart_ && !has_convention(conventions, "AMBER"))
    header_fail("NetCDF file without Conventions \"AMBER\" or \"AMBERRESTART\" (has \"" +
                excerpt(conventions) + "\"): not an AMBER trajectory or restart");
  const int64_t atoms = dimension_length(ncid_, "atom");
  const int64_t spatial = dimension_length(ncid_, "spatial");
  if (atoms <= 0) header_fail("no atom dimension, or no atoms");
  if (spatial != 3) header_fail("spatial dimension is not 3");
  if (atoms > (int64_t{1} << 30)) header_fail("atom count " + std::to_string(atoms) + " too large");
  natoms_ = static_cast<int>(atoms);
  frames_ = restart_ ? 1 : dimension_length(ncid_, "frame");
  if (frames_ < 0) header_fail("no frame dimension in an AMBER trajectory");

  if (nc_inq_varid(ncid_, "coordinates", &coords_var_) != NC_NOERR)
    header_fail("no coordinates variable");
  int ndims = 0, dims[NC_MAX_VAR_DIMS];
  nc_type type = NC_NAT;
  nc_inq_var(ncid_, coords_var_, nullptr, &type, &ndims, dims, nullptr);
  const int want = restart_ ? 2 : 3;
  // The dimensions by name: a variable of the right size in another shape is not read.
  int atom_dim = -1, spatial_dim = -1, frame_dim = -1;
  nc_inq_dimid(ncid_, "atom", &atom_dim);
  nc_inq_dimid(ncid_, "spatial", &spatial_dim);
  if (!restart_) nc_inq_dimid(ncid_, "frame", &frame_dim);
  const int* shape = restart_ ? dims : dims + 1;
  if (ndims != want || (type != NC_FLOAT && type != NC_DOUBLE) ||
      (!restart_ && dims[0] != frame_dim) || shape[0] != atom_dim || shape[1] != spatial_dim)
    header_fail(std::string("coordinates are not ") +
                (restart_ ? "(atom, spatial)" : "(frame, atom, spatial)") + " of float or double");
  const bool lengths = nc_inq_varid(ncid_, "cell_lengths", &lengths_var_) == NC_NOERR;
  const bool angles = nc_inq_varid(ncid_, "cell_angles", &angles_var_) == NC_NOERR;
  if (lengths != angles) header_fail("cell_lengths without cell_angles, or the reverse");
  if (!lengths) lengths_var_ = angles_var_ = -1;
  for (int var : {lengths_var_, angles_var_}) {
    // (frame, 3) in a trajectory, (3) in a restart: what read_cell reads.
    int cell_ndims = 0, cell_dims[NC_MAX_VAR_DIMS];
    size_t len = 0;
    if (var < 0) continue;
    nc_inq_var(ncid_, var, nullptr, nullptr, &cell_ndims, cell_dims, nullptr);
    if (cell_ndims != want - 1 || (!restart_ && cell_dims[0] != frame_dim) ||
        nc_inq_dimlen(ncid_, cell_dims[want - 2], &len) != NC_NOERR || len != 3)
      header_fail(std::string("cell_lengths or cell_angles is not ") +
                  (restart_ ? "(3)" : "(frame, 3)"));
  }

  if (nc_inq_varid(ncid_, "time", &time_var_) != NC_NOERR) time_var_ = -1;
  if (time_var_ >= 0) {
    // time(frame) in a trajectory, a scalar in a restart; another shape is not read.
    int time_ndims = 0, time_dims[NC_MAX_VAR_DIMS];
    nc_inq_var(ncid_, time_var_, nullptr, nullptr, &time_ndims, time_dims, nullptr);
    if (time_ndims != (restart_ ? 0 : 1) || (!restart_ && time_dims[0] != frame_dim))
      time_var_ = -1;
  }

  // The bytes a frame needs, so that a file cut short is not read as zeros. The extents are
  // known for NetCDF-3; a NetCDF-4 (HDF5) file reports missing data itself.
  NetcdfExtents extents;
  if (const std::string problem = read_netcdf_extents(path_, extents); !problem.empty())
    header_fail("damaged NetCDF header: " + problem);  // (checked before nc_open already)
  std::error_code ec;
  file_size_ = static_cast<int64_t>(std::filesystem::file_size(path_, ec));
  if (extents.version != 0) {
    record_bytes_ = restart_ ? 0 : extents.record_bytes;
    for (const char* name : {"coordinates", "cell_lengths", "cell_angles", "time"})
      frame_end_ = std::max(frame_end_, netcdf_end_of(extents, name, 0));
  }
  // A damaged header cannot make a frame's buffer larger than the file.
  const int64_t stored = (type == NC_FLOAT ? 4 : 8) * 3 * atoms;
  // (A NetCDF-4 file may compress: it is allowed HDF5's deflate ratio, at most 1032:1.)
  if (stored > (extents.version != 0 ? file_size_ : 1032 * file_size_))
    header_fail("declares " + std::to_string(atoms) + " atoms, more than the file's " +
                std::to_string(file_size_) + " bytes hold");
}

void AmberNetcdfReader::check_frame_in_file(int64_t frame) {
  if (frame_end_ < 0) return;
  const int64_t end = frame_end_ + frame * record_bytes_;
  if (end > file_size_)
    fail(frame,
         "truncated file: frame needs bytes up to " + std::to_string(end) + ", file has " +
             std::to_string(file_size_),
         true);
}

bool AmberNetcdfReader::choose_frames(FrameChooser chooser) {
  chooser_ = std::move(chooser);
  return true;
}

bool AmberNetcdfReader::next(TrajectoryFrame& frame) {
  if (!error_.empty()) throw_frame_error(error_, cut_);
  int64_t wanted = frames_read_;
  if (chooser_) {
    wanted = chooser_(frames_read_);
    if (wanted == kFrameAgain) return true;  // the caller's frame is the one wanted
    if (wanted < 0) return false;
    wanted = std::max(wanted, frames_read_);
  }
  if (wanted >= frames_) {
    frames_read_ = frames_;
    return false;
  }
  frames_read_ = wanted;  // frames passed over are not read
  read_frame(wanted, frame);
  frames_read_ = wanted + 1;
  return true;
}

void AmberNetcdfReader::read_frame(int64_t f, TrajectoryFrame& out) {
  check_frame_in_file(f);
  const auto n = static_cast<size_t>(natoms_);
  buffer_.resize(3 * n);
  const size_t start3[3] = {static_cast<size_t>(f), 0, 0}, count3[3] = {1, n, 3};
  const size_t* start = restart_ ? start3 + 1 : start3;
  const size_t* count = restart_ ? count3 + 1 : count3;
  if (const int st = nc_get_vara_double(ncid_, coords_var_, start, count, buffer_.data());
      st != NC_NOERR)
    fail(f, std::string("cannot read coordinates: ") + nc_strerror(st));
  if (const std::string problem = store_amber_coordinates(buffer_, out); !problem.empty())
    fail(f, problem);
  read_cell(f, out);
  out.time = 0;
  if (time_var_ >= 0) {
    double t = 0;
    const size_t at = static_cast<size_t>(f);
    const int st = restart_ ? nc_get_var_double(ncid_, time_var_, &t)
                            : nc_get_var1_double(ncid_, time_var_, &at, &t);
    if (st == NC_NOERR && std::isfinite(t)) out.time = t;
  }
  out.step = f;
  out.precision = 0;
}

void AmberNetcdfReader::read_cell(int64_t f, TrajectoryFrame& out) {
  out.box.fill(0);
  if (lengths_var_ < 0) return;
  double lengths[3], angles[3];
  const size_t start2[2] = {static_cast<size_t>(f), 0}, count2[2] = {1, 3};
  const size_t* start = restart_ ? start2 + 1 : start2;
  const size_t* count = restart_ ? count2 + 1 : count2;
  if (nc_get_vara_double(ncid_, lengths_var_, start, count, lengths) != NC_NOERR ||
      nc_get_vara_double(ncid_, angles_var_, start, count, angles) != NC_NOERR)
    fail(f, "cannot read cell_lengths/cell_angles (not 3 values per frame)");
  if (const std::string problem = store_amber_cell(lengths, angles, out); !problem.empty())
    fail(f, problem);
}

}  // namespace pairhist::io
