#include "io/trajectory/dcd_reader.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "io/trajectory/unit_cell.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {

namespace {

constexpr int32_t kHeaderRecordBytes = 84;  // "CORD" + 20 control integers
constexpr double kAngstromToNm = 0.1;
constexpr double kAkmaTimePs = 0.04888821;  // CHARMM's internal time unit
// Guards against absurd atom counts in a damaged header driving a huge allocation; 2^31 / 4 is
// the most a 32-bit record marker can describe anyway.
constexpr int32_t kMaxAtoms = std::numeric_limits<int32_t>::max() / 4;

uint32_t bswap32(uint32_t v) {
  return ((v & 0xffu) << 24) | ((v & 0xff00u) << 8) | ((v >> 8) & 0xff00u) | (v >> 24);
}

uint32_t load_native32(const unsigned char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// The box of a DCD unit cell record w = (A, gamma, B, beta, alpha, C), lengths positive, in the
// convention MDAnalysis's DCD reader tells it by (coordinates/DCD.py): all three angle slots in
// [-1, 1] are cosines (NAMD >= 2.5, and CHARMM's orthorhombic cells, whose shape matrix has zero
// off-diagonals); a negative slot or one above 180 is CHARMM's symmetric shape matrix
// (h11, h21, h22, h31, h32, h33: MDAnalysis's tip125_tric_C36.dcd); otherwise degrees (NAMD 2.5,
// VMD, MDAnalysis's writer). Where the degrees form no cell but the shape matrix does (a CHARMM
// triclinic cell whose off-diagonals are all positive), it is the shape matrix: MDAnalysis would
// give a cell that does not exist there. A shape matrix's edges lie in the coordinates' frame,
// not along GROMACS's axes: `rotation` then turns the frame's coordinates into the lower-
// triangular box's frame (`rotated`), which MDAnalysis does not do (its lengths and angles are
// right, its minimum image in tip125_tric_C36.dcd's frames 7-9 puts O-H pairs at 0.4 A).
// Returns "" or the problem.
std::string cell_to_box(const double w[6], std::array<double, 9>& box, bool& rotated,
                        std::array<double, 9>& rotation) {
  rotated = false;
  auto shape_matrix = [&] {
    const std::string problem = box_from_shape_matrix(w, box, rotation);
    rotated = problem.empty();
    return problem;
  };
  const double a = w[0], b = w[2], c = w[5];
  const double angles[3] = {w[4], w[3], w[1]};  // alpha, beta, gamma
  if (std::fabs(angles[0]) <= 1 && std::fabs(angles[1]) <= 1 && std::fabs(angles[2]) <= 1)
    return box_from_cell(a, b, c, angles[0], angles[1], angles[2], box);
  bool degrees = true;
  for (double g : angles) degrees = degrees && g >= 0 && g <= 180;
  if (!degrees) return shape_matrix();
  const std::string problem = box_from_cell(a, b, c, cos_degrees(angles[0]), cos_degrees(angles[1]),
                                            cos_degrees(angles[2]), box);
  if (problem.empty() || !shape_matrix().empty()) return problem;
  return "";
}

}  // namespace

DcdReader::~DcdReader() = default;
DcdReader::DcdReader(DcdReader&&) noexcept = default;
DcdReader& DcdReader::operator=(DcdReader&&) noexcept = default;

int32_t DcdReader::to_int(const unsigned char* p) const {
  const uint32_t v = load_native32(p);
  return static_cast<int32_t>(swap_ ? bswap32(v) : v);
}

void DcdReader::header_fail(const std::string& problem, bool cut) const {
  throw_frame_error(path_ + ": frame 0: " + problem + " (no complete frame)", cut);
}

void DcdReader::fail(const std::string& problem, bool cut) {
  const int64_t frame = frames_read_;
  std::string msg = path_ + ": frame " + std::to_string(frame) + ": " + problem;
  msg += frame > 0 ? " (last complete frame is " + std::to_string(frame - 1) + ")"
                   : " (no complete frame)";
  error_ = msg;
  cut_ = cut;
  throw_frame_error(msg, cut);
}

size_t DcdReader::read_bytes(void* dst, size_t n) {
  std::string io_error;
  const size_t got = file_.read(dst, n, io_error);
  if (!io_error.empty()) fail("read error: " + io_error);
  return got;
}

std::vector<unsigned char> DcdReader::read_header_record(const char* what) {
  unsigned char m[4];
  if (read_bytes(m, 4) != 4) {
    header_fail(std::string("truncated file inside the header (") + what + " record)", true);
  }
  const int32_t size = to_int(m);
  if (size < 0 || size > (1 << 20)) {
    header_fail(std::string("bad record marker ") + std::to_string(size) + " before the " + what +
                " record");
  }
  std::vector<unsigned char> rec;
  std::string io_error;
  const size_t need = static_cast<size_t>(size) + 4;
  if (file_.read_into(rec, need, io_error) != need) {
    if (!io_error.empty()) fail("read error: " + io_error);
    header_fail(std::string("truncated file inside the header (") + what + " record)", true);
  }
  if (to_int(rec.data() + size) != size) {
    header_fail(std::string("record markers of the ") + what + " record do not match");
  }
  rec.resize(static_cast<size_t>(size));
  return rec;
}

void DcdReader::read_control_record() {
  unsigned char first[8];
  const size_t got = read_bytes(first, 8);
  if (got == 0) header_fail("empty file, not a DCD trajectory");
  if (got < 8) header_fail("truncated file inside the header", true);
  const uint32_t raw = load_native32(first);
  const uint32_t second = load_native32(first + 4);
  const uint32_t marker = static_cast<uint32_t>(kHeaderRecordBytes);
  // A 64-bit marker 84 reads as "84, 0" (little-endian) or "0, 84" (big-endian).
  if ((raw == marker && second == 0) || (raw == 0 && bswap32(second) == marker)) {
    header_fail("DCD with 64-bit record markers is not supported");
  }
  if (raw == marker) {
    swap_ = false;
  } else if (bswap32(raw) == marker) {
    swap_ = true;
  } else {
    header_fail("not a DCD file (first record marker is not 84)");
  }
  if (std::memcmp(first + 4, "CORD", 4) != 0) {
    header_fail("not a DCD coordinate file (no CORD signature)");
  }
  unsigned char rest[kHeaderRecordBytes];  // 20 control integers + closing marker
  if (read_bytes(rest, sizeof rest) != sizeof rest) {
    header_fail("truncated file inside the header", true);
  }
  if (to_int(rest + 80) != kHeaderRecordBytes) {
    header_fail("record markers of the first header record do not match");
  }
  auto icntrl = [&](int i) { return to_int(rest + 4 * i); };
  istart_ = icntrl(1);
  nsavc_ = icntrl(2);
  const int32_t namnf = icntrl(8);
  const int32_t charmm_version = icntrl(19);
  if (charmm_version != 0) {
    float delta;
    std::memcpy(&delta, rest + 4 * 9, 4);
    if (swap_) {
      const uint32_t bits = bswap32(load_native32(rest + 4 * 9));
      std::memcpy(&delta, &bits, 4);
    }
    delta_ps_ = static_cast<double>(delta) * kAkmaTimePs;
    has_cell_ = icntrl(10) != 0;
    has_4d_ = icntrl(11) != 0;
  } else {
    // X-PLOR: the time step is a double spanning control words 9 and 10; no cell, no 4D.
    unsigned char d[8];
    std::memcpy(d, rest + 4 * 9, 8);
    if (swap_) {
      for (int k = 0; k < 4; ++k) std::swap(d[k], d[7 - k]);
    }
    double delta;
    std::memcpy(&delta, d, 8);
    delta_ps_ = delta * kAkmaTimePs;
  }
  if (!std::isfinite(delta_ps_)) delta_ps_ = 0;
  if (namnf != 0) {
    header_fail("DCD with " + std::to_string(namnf) +
                " fixed atoms is not supported (later frames store only the free atoms)");
  }
}

void DcdReader::read_title_record() {
  const std::vector<unsigned char> title = read_header_record("title");
  if (title.size() < 4) header_fail("title record too short");
  const int32_t ntitle = to_int(title.data());
  if (ntitle < 0 || static_cast<size_t>(ntitle) * 80 + 4 != title.size()) {
    header_fail("title record size " + std::to_string(title.size()) + " does not match " +
                std::to_string(ntitle) + " title lines");
  }
  for (int32_t t = 0; t < ntitle; ++t) {
    std::string line(reinterpret_cast<const char*>(title.data()) + 4 + 80 * t, 80);
    const size_t end = line.find_last_not_of(std::string(" \0", 2));
    line.resize(end == std::string::npos ? 0 : end + 1);
    titles_.push_back(line);
  }
}

DcdReader::DcdReader(const std::string& path) : path_(path) {
  std::string why;
  if (!file_.open(path, why)) throw InputError(path + ": cannot open DCD file: " + why);

  read_control_record();
  read_title_record();

  const std::vector<unsigned char> count = read_header_record("atom count");
  if (count.size() != 4)
    header_fail("atom count record has " + std::to_string(count.size()) + " bytes, expected 4");
  const int32_t natoms = to_int(count.data());
  if (natoms <= 0 || natoms > kMaxAtoms) {
    header_fail("invalid atom count " + std::to_string(natoms));
  }
  natoms_ = natoms;
}

bool DcdReader::next(TrajectoryFrame& frame) {
  if (!error_.empty()) throw_frame_error(error_, cut_);

  const size_t n = static_cast<size_t>(natoms_);
  const size_t coord_record = 4 * n + 8;
  const size_t cell_record = has_cell_ ? 48 + 8 : 0;
  const size_t frame_bytes = cell_record + coord_record * (has_4d_ ? 4 : 3);
  // The atom count comes from the header: checked against the file before anything is read, and
  // read_into allocates no more than arrives where the size is unknown (a pipe).
  const uint64_t left = file_.bytes_left(frame_bytes);
  if (left == 0) return false;
  auto truncated = [&](uint64_t have) {
    fail("truncated file: frame needs " + std::to_string(frame_bytes) + " bytes, " +
             std::to_string(have) + " left",
         true);
  };
  if (left < frame_bytes) truncated(left);
  std::string io_error;
  const size_t got = file_.read_into(buf_, frame_bytes, io_error);
  if (!io_error.empty()) fail("read error: " + io_error);
  if (got == 0) return false;
  if (got < frame_bytes) truncated(got);

  frame.box.fill(0);
  rotated_ = false;
  if (has_cell_) read_unit_cell(frame);

  frame.xyz.resize(3 * n);
  static const char* const kAxis[3] = {"x coordinates", "y coordinates", "z coordinates"};
  for (int d = 0; d < 3; ++d) {
    const size_t at = cell_record + coord_record * static_cast<size_t>(d);
    check_record(at, 4 * n, kAxis[d]);
    const unsigned char* p = buf_.data() + at + 4;
    for (size_t i = 0; i < n; ++i) {
      uint32_t bits = load_native32(p + 4 * i);
      if (swap_) bits = bswap32(bits);
      float v;
      std::memcpy(&v, &bits, 4);
      if (!std::isfinite(v)) fail("non-finite coordinate of atom " + std::to_string(i));
      frame.xyz[3 * i + static_cast<size_t>(d)] =
          static_cast<float>(static_cast<double>(v) * kAngstromToNm);
    }
  }
  if (has_4d_) check_record(cell_record + 3 * coord_record, 4 * n, "fourth-dimension record");
  if (rotated_) rotate_coordinates(frame);

  frame.step = istart_ + frames_read_ * nsavc_;
  frame.time = static_cast<double>(frame.step) * delta_ps_;
  frame.precision = 0;
  ++frames_read_;
  return true;
}

void DcdReader::check_record(size_t at, size_t size, const char* what) {
  if (to_int(buf_.data() + at) != static_cast<int32_t>(size) ||
      to_int(buf_.data() + at + 4 + size) != static_cast<int32_t>(size)) {
    fail(std::string("bad record markers around the ") + what + " (expected " +
         std::to_string(size) + " bytes; corrupt file or wrong header flags)");
  }
}

void DcdReader::rotate_coordinates(TrajectoryFrame& frame) const {
  // From the float32 Angstrom values as stored (the nm floats would round twice).
  const size_t n = static_cast<size_t>(natoms_);
  const size_t coord_record = 4 * n + 8;
  for (size_t i = 0; i < n; ++i) {
    double x[3];
    for (size_t d = 0; d < 3; ++d) {
      uint32_t bits = load_native32(buf_.data() + 56 + coord_record * d + 4 + 4 * i);
      if (swap_) bits = bswap32(bits);
      float v;
      std::memcpy(&v, &bits, 4);
      x[d] = v;
    }
    for (size_t d = 0; d < 3; ++d)
      frame.xyz[3 * i + d] = static_cast<float>(
          (rotation_[3 * d] * x[0] + rotation_[3 * d + 1] * x[1] + rotation_[3 * d + 2] * x[2]) *
          kAngstromToNm);
  }
}

void DcdReader::read_unit_cell(TrajectoryFrame& frame) {
  check_record(0, 48, "unit cell");
  double cell[6];
  for (int k = 0; k < 6; ++k) {
    unsigned char d[8];
    std::memcpy(d, buf_.data() + 4 + 8 * k, 8);
    if (swap_) {
      for (int j = 0; j < 4; ++j) std::swap(d[j], d[7 - j]);
    }
    std::memcpy(&cell[k], d, 8);
    if (!std::isfinite(cell[k])) fail("non-finite unit cell value");
  }
  const double a = cell[0], b = cell[2], c = cell[5];
  if (a < 0 || b < 0 || c < 0) fail("negative unit cell length");
  if (a > 0 || b > 0 || c > 0) {
    if (a == 0 || b == 0 || c == 0) fail("unit cell has a zero length");
    std::array<double, 9> cell_box;
    if (const std::string problem = cell_to_box(cell, cell_box, rotated_, rotation_);
        !problem.empty())
      fail(problem);
    for (int k = 0; k < 9; ++k)
      frame.box[k] = static_cast<float>(cell_box[static_cast<size_t>(k)] * kAngstromToNm);
  }
}

}  // namespace pairhist::io
