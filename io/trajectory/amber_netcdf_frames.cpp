#include "io/trajectory/amber_netcdf_frames.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstring>

#include "io/trajectory/unit_cell.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {
namespace {

constexpr double kAngstromToNm = 0.1;
constexpr uint32_t kFloat = 5, kDouble = 6;

int64_t value_bytes(uint32_t type) {
  return type == kFloat ? 4 : type == kDouble ? 8 : 0;
}

// A record variable of `rank` dimensions, float or double, holding `count` values per frame.
bool per_frame(const NetcdfVariableExtent& v, uint32_t rank, int64_t count) {
  return v.record && v.rank == rank && value_bytes(v.type) > 0 &&
         v.bytes == count * value_bytes(v.type);
}

// NetCDF-3 stores big-endian.
uint32_t big_endian_32(const unsigned char* b) {
  return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
}

}  // namespace

std::string amber_netcdf_frame_error(const std::string& path, int64_t frame,
                                     const std::string& problem) {
  std::string msg = path + ": frame " + std::to_string(frame) + ": " + problem;
  msg += frame > 0 ? " (last complete frame is " + std::to_string(frame - 1) + ")"
                   : " (no complete frame)";
  return msg;
}

std::string store_amber_coordinates(const std::vector<double>& angstrom, TrajectoryFrame& out) {
  out.xyz.resize(angstrom.size());
  for (size_t k = 0; k < angstrom.size(); ++k) {
    if (!std::isfinite(angstrom[k]))
      return "non-finite coordinate of atom " + std::to_string(k / 3);
    out.xyz[k] = static_cast<float>(angstrom[k] * kAngstromToNm);
  }
  return "";
}

std::string store_amber_cell(const double lengths[3], const double angles[3],
                             TrajectoryFrame& out) {
  out.box.fill(0);
  for (int k = 0; k < 3; ++k)
    if (!std::isfinite(lengths[k]) || !std::isfinite(angles[k]) || lengths[k] < 0)
      return "bad unit cell (lengths must be finite and >= 0, angles finite)";
  if (lengths[0] == 0 && lengths[1] == 0 && lengths[2] == 0) return "";  // no box in this frame
  if (lengths[0] == 0 || lengths[1] == 0 || lengths[2] == 0) return "unit cell has a zero length";
  std::array<double, 9> box;
  if (std::string problem =
          box_from_cell(lengths[0], lengths[1], lengths[2], cos_degrees(angles[0]),
                        cos_degrees(angles[1]), cos_degrees(angles[2]), box);
      !problem.empty())
    return problem;
  for (size_t k = 0; k < 9; ++k) out.box[k] = static_cast<float>(box[k] * kAngstromToNm);
  return "";
}

bool amber_netcdf_layout(const NetcdfExtents& extents, int64_t natoms, AmberNetcdfLayout& out) {
  if (extents.version == 0) return false;
  auto find = [&](const char* name, NetcdfVariableExtent& v) {
    const auto it = extents.variables.find(name);
    if (it == extents.variables.end()) return false;
    v = it->second;
    return true;
  };
  out = AmberNetcdfLayout{};
  if (!find("coordinates", out.coordinates) || !per_frame(out.coordinates, 3, 3 * natoms))
    return false;
  const bool lengths = find("cell_lengths", out.lengths), angles = find("cell_angles", out.angles);
  if (lengths != angles) return false;
  out.has_box = lengths;
  if (out.has_box && (!per_frame(out.lengths, 2, 3) || !per_frame(out.angles, 2, 3))) return false;
  out.has_time = find("time", out.time);
  if (out.has_time && !per_frame(out.time, 1, 1)) return false;
  out.record_bytes = extents.record_bytes;
  out.frame_end = -1;
  for (const char* name : {"coordinates", "cell_lengths", "cell_angles", "time"})
    out.frame_end = std::max(out.frame_end, netcdf_end_of(extents, name, 0));
  return true;
}

AmberNetcdfRecords::AmberNetcdfRecords(const std::string& path, const AmberNetcdfLayout& layout,
                                       int64_t file_size)
    : path_(path), layout_(layout), file_size_(file_size) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw InputError(path + ": cannot open (" + std::strerror(errno) + ")");
}

AmberNetcdfRecords::~AmberNetcdfRecords() {
  if (fd_ >= 0) ::close(fd_);
}

bool AmberNetcdfRecords::read_values(const NetcdfVariableExtent& v, int64_t f,
                                     std::vector<unsigned char>& bytes,
                                     std::vector<double>& values) const {
  const int64_t size = value_bytes(v.type);
  bytes.resize(static_cast<size_t>(v.bytes));
  int64_t at = v.begin + f * layout_.record_bytes, done = 0;
  while (done < v.bytes) {
    const ssize_t got = ::pread(fd_, bytes.data() + done, static_cast<size_t>(v.bytes - done),
                                static_cast<off_t>(at + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    done += got;
  }
  const auto n = static_cast<size_t>(v.bytes / size);
  values.resize(n);
  const unsigned char* b = bytes.data();
  if (size == 4) {
    for (size_t k = 0; k < n; ++k) {
      const uint32_t u = big_endian_32(b + 4 * k);
      float x;
      std::memcpy(&x, &u, 4);
      values[k] = x;
    }
  } else {
    for (size_t k = 0; k < n; ++k) {
      const uint64_t u = (uint64_t{big_endian_32(b + 8 * k)} << 32) | big_endian_32(b + 8 * k + 4);
      std::memcpy(&values[k], &u, 8);
    }
  }
  return true;
}

void AmberNetcdfRecords::read(int64_t f, TrajectoryFrame& out, std::vector<unsigned char>& bytes,
                              std::vector<double>& values) const {
  auto fail = [&](const std::string& problem, bool cut = false) {
    throw_frame_error(amber_netcdf_frame_error(path_, f, problem), cut);
  };
  const int64_t end = layout_.frame_end + f * layout_.record_bytes;
  if (end > file_size_)
    fail("truncated file: frame needs bytes up to " + std::to_string(end) + ", file has " +
             std::to_string(file_size_),
         true);
  if (!read_values(layout_.coordinates, f, bytes, values))
    fail(std::string("cannot read coordinates: ") + std::strerror(errno));
  if (std::string problem = store_amber_coordinates(values, out); !problem.empty()) fail(problem);
  out.box.fill(0);
  if (layout_.has_box) {
    double lengths[3], angles[3];
    if (!read_values(layout_.lengths, f, bytes, values))
      fail("cannot read cell_lengths/cell_angles (not 3 values per frame)");
    std::copy(values.begin(), values.end(), lengths);
    if (!read_values(layout_.angles, f, bytes, values))
      fail("cannot read cell_lengths/cell_angles (not 3 values per frame)");
    std::copy(values.begin(), values.end(), angles);
    if (std::string problem = store_amber_cell(lengths, angles, out); !problem.empty())
      fail(problem);
  }
  out.time = 0;
  if (layout_.has_time && read_values(layout_.time, f, bytes, values) && std::isfinite(values[0]))
    out.time = values[0];
  out.step = f;
  out.precision = 0;
}

}  // namespace pairhist::io
