#include "io/trajectory/amber_mdcrd_reader.hpp"

#include <cmath>
#include <filesystem>

#include "io/common/text_lines.hpp"
#include "io/trajectory/unit_cell.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {
namespace {

constexpr double kAngstromToNm = 0.1;
constexpr size_t kMdcrdWidth = 8, kMdcrdPerLine = 10;      // 10F8.3
constexpr size_t kRestartWidth = 12, kRestartPerLine = 6;  // 6F12.7

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// Splits a line of fixed-width numbers (they may touch: "-100.000-200.000"); false with
// `bad` set to the field that is not a number.
bool fixed_fields(const std::string& line, size_t width, std::vector<double>& out,
                  std::string& bad) {
  out.clear();
  const size_t used = line.find_last_not_of(" \t") + 1;  // npos + 1 = 0 for a blank line
  for (size_t at = 0; at < used; at += width) {
    const std::string field = trim(line.substr(at, width));
    double v = 0;
    if (!text::parse_double(field, v)) {
      bad = field;
      return false;
    }
    out.push_back(v);
  }
  return true;
}

// Box vectors (nm) of a box line: three lengths with `angles`, or lengths and angles.
std::string box_of(const std::vector<double>& v, const std::array<double, 3>& angles,
                   std::array<float, 9>& box) {
  const double alpha = v.size() == 6 ? v[3] : angles[0], beta = v.size() == 6 ? v[4] : angles[1],
               gamma = v.size() == 6 ? v[5] : angles[2];
  if (!(v[0] > 0 && v[1] > 0 && v[2] > 0)) return "box lengths must be positive";
  std::array<double, 9> b;
  if (std::string problem = box_from_cell(v[0], v[1], v[2], cos_degrees(alpha), cos_degrees(beta),
                                          cos_degrees(gamma), b);
      !problem.empty())
    return problem;
  for (size_t k = 0; k < 9; ++k) box[k] = static_cast<float>(b[k] * kAngstromToNm);
  return "";
}

}  // namespace

AmberMdcrdReader::AmberMdcrdReader(const std::string& path, int natoms,
                                   std::array<double, 3> topology_angles)
    : path_(path), in_(path, std::ios::binary), natoms_(natoms), angles_(topology_angles) {
  if (!in_) throw InputError(path + ": cannot open AMBER .mdcrd trajectory");
  if (natoms <= 0)
    throw InputError(path +
                     ": an AMBER .mdcrd trajectory does not state its atom count: give its "
                     "topology (--top system.parm7)");
  // Every atom takes 24 characters of a frame: a count beyond the file is not this file's.
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && static_cast<uint64_t>(natoms) * 24 > size + 24)
    throw InputError(path + ": frame 0: the topology's " + std::to_string(natoms) +
                     " atoms do not fit in the file's " + std::to_string(size) + " bytes");
  std::string title;
  if (!get_line(title)) throw InputError(path + ": empty file, not an AMBER .mdcrd trajectory");
}

void AmberMdcrdReader::fail(const std::string& problem, bool cut) {
  error_ = text::line_error(path_, frames_read_, line_no_, problem);
  cut_ = cut;
  throw_frame_error(error_, cut);
}

bool AmberMdcrdReader::get_line(std::string& line) {
  if (peeked_) {
    peeked_ = false;
    line.swap(peek_);
    return true;
  }
  return text::next_line_or_fail(in_, line, line_no_, had_newline_,
                                 "binary data (NUL byte), not an AMBER .mdcrd trajectory",
                                 [this](const std::string& problem) { fail(problem); });
}

bool AmberMdcrdReader::next(TrajectoryFrame& frame) {
  if (!error_.empty()) throw_frame_error(error_, cut_);
  if (!read_frame(frame)) return false;
  ++frames_read_;
  return true;
}

bool AmberMdcrdReader::read_frame(TrajectoryFrame& frame) {
  const size_t want = 3 * static_cast<size_t>(natoms_);
  frame.xyz.resize(want);
  size_t have = 0;
  std::string line, bad;
  while (have < want) {
    if (!get_line(line)) {
      if (have == 0) return false;
      fail("truncated file: " + std::to_string(have) + " of " + std::to_string(want) +
               " coordinates present",
           true);
    }
    if (have == 0 && line.rfind("REMD", 0) == 0) continue;  // a replica's header line
    if (!fixed_fields(line, kMdcrdWidth, values_, bad))
      fail("'" + excerpt(bad) + "' is not a number (10F8.3 coordinates expected)");
    if (values_.empty() || values_.size() > kMdcrdPerLine || have + values_.size() > want)
      fail(std::to_string(values_.size()) + " values where " +
           std::to_string(std::min(kMdcrdPerLine, want - have)) +
           " coordinates are due (is the topology's atom count " + std::to_string(natoms_) +
           " this trajectory's?)");
    for (double v : values_) frame.xyz[have++] = static_cast<float>(v * kAngstromToNm);
  }
  if (!had_newline_ && in_.peek() == EOF && has_box_ != 0)
    fail("truncated file: the last line has no newline", true);
  frame.box.fill(0);
  if (has_box_ < 0) {
    // The first frame decides: a line of 3 or 6 values after the coordinates is a box line,
    // unless a next frame would start with that many values (1 or 2 atoms).
    has_box_ = 0;
    if (get_line(peek_)) {
      peeked_ = true;
      if (fixed_fields(peek_, kMdcrdWidth, values_, bad) &&
          (values_.size() == 3 || values_.size() == 6) && want > 6)
        has_box_ = 1;
    }
  }
  if (has_box_ == 1) {
    if (!get_line(line)) fail("truncated file: the frame's box line is missing", true);
    if (!fixed_fields(line, kMdcrdWidth, values_, bad) ||
        (values_.size() != 3 && values_.size() != 6))
      fail("box line expected (3 lengths, or lengths and angles), found '" + excerpt(line) + "'");
    if (const std::string problem = box_of(values_, angles_, frame.box); !problem.empty())
      fail(problem);
  }
  frame.step = frames_read_;
  frame.time = 0;
  frame.precision = 0;
  return true;
}

AmberRestartReader::AmberRestartReader(const std::string& path) : path_(path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open AMBER restart");
  std::vector<std::string> lines;
  std::string line;
  int64_t line_no = 0;
  bool had_newline = true;
  auto fail = [&](int64_t at, const std::string& problem) {
    throw_frame_error(text::line_error(path, 0, at, problem), false);
  };
  for (;;) {
    if (!text::next_line_or_fail(
            in, line, line_no, had_newline,
            "binary data (NUL byte): not an ASCII AMBER restart (a NetCDF one is .ncrst)",
            [&](const std::string& problem) { fail(line_no, problem); }))
      break;
    lines.push_back(line);
  }
  while (!lines.empty() && trim(lines.back()).empty()) lines.pop_back();
  if (lines.size() < 2)
    fail(static_cast<int64_t>(lines.size()) + 1, "truncated file: no atom count line");
  std::vector<std::string> fields;
  text::split_ws(lines[1], fields);
  long long n = 0;
  if (fields.empty() || !text::parse_int(fields[0], n) || n < 1)
    fail(2, "atom count expected, found '" + excerpt(lines[1]) + "'");
  double time = 0;
  if (fields.size() > 1 && !text::parse_double(fields[1], time))
    fail(2, "time '" + excerpt(fields[1]) + "' is not a number");
  // Coordinate lines hold 6 values (two atoms): the count must fit the lines there are.
  const long long coordinate_lines = (3 * std::min<long long>(n, 1LL << 40) + 5) / 6;
  const long long rest = static_cast<long long>(lines.size()) - 2;
  if (coordinate_lines > rest)
    throw_frame_error(
        text::line_error(path, 0, line_no,
                         "truncated file: " + std::to_string(n) + " atoms need " +
                             std::to_string(coordinate_lines) + " coordinate lines, " +
                             std::to_string(rest) + " present"),
        true);
  const long long after = rest - coordinate_lines;
  // What follows the coordinates: nothing, a box line, velocities, or velocities and a box.
  if (after != 0 && after != 1 && after != coordinate_lines && after != coordinate_lines + 1)
    fail(2 + coordinate_lines + 1, std::to_string(after) +
                                       " lines after the coordinates: neither velocities (" +
                                       std::to_string(coordinate_lines) + " lines) nor a box line");
  natoms_ = static_cast<int>(n);
  frame_.xyz.resize(3 * static_cast<size_t>(n));
  std::vector<double> values;
  std::string bad;
  size_t have = 0;
  for (long long l = 0; l < coordinate_lines; ++l) {
    const size_t due = std::min(kRestartPerLine, frame_.xyz.size() - have);
    if (!fixed_fields(lines[static_cast<size_t>(2 + l)], kRestartWidth, values, bad))
      fail(3 + l, "'" + excerpt(bad) + "' is not a number (6F12.7 coordinates expected)");
    if (values.size() != due)
      fail(3 + l, std::to_string(values.size()) + " values where " + std::to_string(due) +
                      " coordinates are due");
    for (double v : values) frame_.xyz[have++] = static_cast<float>(v * kAngstromToNm);
  }
  if (after == 1 || after == coordinate_lines + 1) {
    const int64_t at = static_cast<int64_t>(lines.size());
    if (!fixed_fields(lines.back(), kRestartWidth, values, bad) ||
        (values.size() != 3 && values.size() != 6))
      fail(at, "box line expected (3 lengths, or lengths and angles), found '" +
                   excerpt(lines.back()) + "'");
    if (const std::string problem = box_of(values, {90, 90, 90}, frame_.box); !problem.empty())
      fail(at, problem);
  }
  frame_.time = time;
}

bool AmberRestartReader::next(TrajectoryFrame& frame) {
  if (delivered_) return false;
  frame.xyz = frame_.xyz;
  frame.box = frame_.box;
  frame.time = frame_.time;
  frame.step = 0;
  frame.precision = 0;
  delivered_ = true;
  return true;
}

}  // namespace pairhist::io
