#include "io/trajectory/gro_trajectory_reader.hpp"

#include <sys/types.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "io/common/text_lines.hpp"
#include "io/topology/gro_lines.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {

void GroTrajectoryReader::FileCloser::operator()(std::FILE* f) const {
  if (f != nullptr) std::fclose(f);
}

GroTrajectoryReader::GroTrajectoryReader(const std::string& path) : path_(path) {
  file_.reset(std::fopen(path.c_str(), "rb"));
  if (!file_) throw InputError(path + ": cannot open GRO file: " + std::strerror(errno));
  if (!parse_frame(first_)) throw InputError(path + ": frame 0: empty file, not a GRO structure");
  first_pending_ = true;
}

GroTrajectoryReader::LineBuffer::~LineBuffer() {
  std::free(data);
}

void GroTrajectoryReader::fail(const std::string& problem) {
  error_ = text::line_error(path_, frames_parsed_, line_number_, problem);
  cut_ = line_cut_;
  throw_frame_error(error_, cut_);
}

bool GroTrajectoryReader::read_line() {
  errno = 0;
  line_cut_ = false;  // a read error is no cut
  const ssize_t n = ::getline(&buffer_.data, &buffer_.capacity, file_.get());
  if (n < 0) {
    if (std::ferror(file_.get())) fail(std::string("read error: ") + std::strerror(errno));
    line_ = {};
    line_cut_ = true;
    ++line_number_;  // a frame cut here is missing this line: its errors name it
    return false;
  }
  ++line_number_;
  line_ = std::string_view(buffer_.data, static_cast<size_t>(n));
  line_cut_ = line_.back() != '\n';
  while (!line_.empty() && (line_.back() == '\n' || line_.back() == '\r')) line_.remove_suffix(1);
  return true;
}

bool GroTrajectoryReader::parse_frame(TrajectoryFrame& frame) {
  // The title; blank lines after the last frame end the file.
  bool title = false;
  while ((title = read_line()) && gro::trim(line_).empty()) {
  }
  if (!title) return false;
  frame.time = 0;
  frame.step = frames_parsed_;
  bool has_time = false;
  gro::parse_title_time(line_, frame.time, has_time, frame.step);
  if (!read_line()) fail("file ends after the title, before the atom count");
  long long count = 0;
  if (!gro::parse_int(line_, count) || count < 0 || count > INT_MAX)
    fail("bad atom count '" + excerpt(gro::trim(line_)) + "'");
  if (natoms_ >= 0 && count != natoms_) fail(text::atom_count_differs(count, natoms_));
  if (natoms_ < 0 && count == 0) fail("no atoms");
  const auto natoms = static_cast<size_t>(count);
  // The first frame's count is untrusted until its lines are there: its coordinates grow as they
  // arrive; later frames hold as many atoms, as checked.
  frame.xyz.clear();
  if (natoms_ >= 0) frame.xyz.reserve(3 * natoms);
  frame.precision = 0;
  frame.columns = {};
  size_t width = 0;
  for (size_t i = 0; i < natoms; ++i) {
    if (!read_line()) fail(text::missing_atom_lines(i, natoms));
    std::string problem;
    if (i == 0) problem = gro::field_width(line_, width);
    if (problem.empty()) problem = gro::check_atom_line_length(line_, width);
    float xyz[3] = {0, 0, 0};
    if (problem.empty()) problem = gro::parse_coordinates(line_, width, xyz);
    if (!problem.empty()) fail(problem);
    frame.xyz.insert(frame.xyz.end(), xyz, xyz + 3);
  }
  if (!read_line()) fail("file ends before the box line");
  if (const std::string problem = gro::parse_box(line_, frame.box); !problem.empty()) fail(problem);
  natoms_ = static_cast<int>(natoms);
  ++frames_parsed_;
  return true;
}

bool GroTrajectoryReader::next(TrajectoryFrame& frame) {
  if (!error_.empty()) throw_frame_error(error_, cut_);
  if (first_pending_) {
    first_pending_ = false;
    std::swap(frame, first_);
    first_ = TrajectoryFrame{};
    ++frames_read_;
    return true;
  }
  if (!parse_frame(frame)) return false;
  ++frames_read_;
  return true;
}

}  // namespace pairhist::io
