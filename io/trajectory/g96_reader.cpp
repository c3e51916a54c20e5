#include "io/trajectory/g96_reader.hpp"

#include <cerrno>
#include <climits>
#include <cstring>
#include <string_view>
#include <utility>

#include "io/common/text_lines.hpp"
#include "io/topology/gro_lines.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {

namespace {

// GROMACS's writer: "%5d %-5s %-5s%7d" (residue number, residue name, atom name, atom number),
// then the coordinates from this column on, where its reader starts them.
constexpr size_t kPositionColumn = 24;
// Its reader scans numbers with sscanf's "%15lf": blanks, then at most 15 characters.
constexpr size_t kFieldWidth = 15;

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && gro::is_blank(s.back())) s.remove_suffix(1);
  return s;
}

// The length of the number `text` starts with ([sign] digits [. digits] [exponent]), 0 if none.
size_t number_length(std::string_view text) {
  size_t n = 0;
  auto digits = [&] {
    const size_t start = n;
    while (n < text.size() && is_digit(text[n])) ++n;
    return n - start;
  };
  if (n < text.size() && (text[n] == '+' || text[n] == '-')) ++n;
  size_t mantissa = digits();
  if (n < text.size() && text[n] == '.') {
    ++n;
    mantissa += digits();
  }
  if (mantissa == 0) return 0;
  if (n < text.size() && (text[n] == 'e' || text[n] == 'E')) {
    const size_t before = n++;
    if (n < text.size() && (text[n] == '+' || text[n] == '-')) ++n;
    if (digits() == 0) n = before;
  }
  return n;
}

// The next field of `rest` as sscanf's "%15lf" takes it: blanks passed over, then the number of
// at most 15 characters there, so that fields written side by side without a blank are told
// apart by their width or sign. Where no number starts, or one is followed by anything but a
// blank, a sign or its width's end, the whole word, which no number parse accepts. Empty at the
// end.
std::string_view take_field(std::string_view& rest) {
  while (!rest.empty() && gro::is_blank(rest.front())) rest.remove_prefix(1);
  size_t n = number_length(rest.substr(0, kFieldWidth));
  if (n == 0 || (n < kFieldWidth && n < rest.size() && !gro::is_blank(rest[n]) && rest[n] != '-' &&
                 rest[n] != '+')) {
    while (n < rest.size() && !gro::is_blank(rest[n])) ++n;
  }
  const std::string_view field = rest.substr(0, n);
  rest.remove_prefix(n);
  return field;
}

// The problem with text after the last field, else "".
std::string trailing_text(std::string_view rest, const char* after) {
  rest = gro::trim(rest);
  if (rest.empty()) return {};
  return "unexpected '" + excerpt(rest) + "' after the " + after;
}

bool is_block_name(std::string_view s) {
  if (s.empty() || s.front() < 'A' || s.front() > 'Z') return false;
  for (char c : s)
    if (!((c >= 'A' && c <= 'Z') || is_digit(c) || c == '_')) return false;
  return true;
}

bool is_end(std::string_view line) {
  return line.compare(0, 3, "END") == 0;  // as GROMACS: "END" and whatever follows it
}

}  // namespace

G96Reader::G96Reader(const std::string& path) : G96Reader(path, nullptr) {}

G96Reader::G96Reader(const std::string& path, Topology* names) : path_(path) {
  in_.open(path, std::ios::binary);
  if (!in_) throw InputError(path + ": cannot open G96 file: " + std::strerror(errno));
  if (!parse_frame(first_, names))
    throw InputError(path + ": frame 0: no POSITION or POSITIONRED block, not a G96 structure");
  first_pending_ = true;
}

G96Reader::~G96Reader() = default;

void G96Reader::fail(const std::string& problem) {
  error_ = text::line_error(path_, frames_parsed_, line_number_, problem);
  cut_ = line_cut_;
  throw_frame_error(error_, cut_);
}

bool G96Reader::read_line() {
  bool had_newline = false;
  line_cut_ = false;  // a read error is no cut
  switch (text::read_line(in_, line_, line_number_, had_newline)) {
    case text::LineStatus::ok:
      line_cut_ = !had_newline;
      return true;
    case text::LineStatus::binary:
      fail("a NUL byte: not a text file");
    case text::LineStatus::read_error:
      ++line_number_;
      fail(std::string("read error: ") + std::strerror(errno));
    case text::LineStatus::end:
      break;
  }
  line_.clear();
  line_cut_ = true;
  ++line_number_;  // a frame cut here is missing this line: its errors name it
  return false;
}

bool G96Reader::next_block(std::string& name) {
  while (read_line()) {
    const std::string_view line = trim_right(line_);
    if (line.empty() || line.front() == '#') continue;
    if (!is_block_name(line))
      fail("'" + excerpt(gro::trim(line)) +
           "' where a block (TITLE, TIMESTEP, POSITION, BOX, ...) begins");
    name = std::string(line);
    return true;
  }
  return false;
}

G96Reader::BlockLine G96Reader::next_block_line() {
  while (read_line()) {
    if (is_end(line_)) return BlockLine::end;
    if (line_.empty() || line_.front() != '#') return BlockLine::content;
  }
  return BlockLine::eof;
}

void G96Reader::fail_inside(const std::string& block) {
  fail("truncated file: it ends inside the " + block + " block");
}

void G96Reader::skip_block(const std::string& block) {
  BlockLine got;
  while ((got = next_block_line()) == BlockLine::content) {
  }
  if (got == BlockLine::eof) fail_inside(block);
}

bool G96Reader::parse_frame(TrajectoryFrame& frame, Topology* names) {
  frame.time = 0;
  frame.step = frames_parsed_;
  frame.box = {};
  frame.xyz.clear();
  frame.precision = 0;
  frame.columns = {};
  bool title = false, timestep = false, positions = false;
  std::string name;
  while (next_block(name)) {
    const bool is_positions = name == "POSITION" || name == "POSITIONRED";
    // A block this frame has, or one that belongs before those it has, is another frame's: this
    // one lacks its positions or its box.
    if ((name == "TITLE" && (title || timestep || positions)) ||
        (name == "TIMESTEP" && (timestep || positions)) || (is_positions && positions)) {
      if (!positions) fail(name + " block before this frame's POSITION block");
      fail("no BOX block before the next frame's " + name + " block");
    }
    if (name == "TITLE") {
      title = true;
      parse_title(frame, names);
    } else if (name == "TIMESTEP") {
      timestep = true;
      parse_timestep(frame);
    } else if (is_positions) {
      positions = true;
      parse_positions(frame, name == "POSITION", names);
    } else if (name == "BOX") {
      if (!positions) fail("BOX block before the POSITION block");
      parse_box(frame.box);
      natoms_ = static_cast<int>(frame.xyz.size() / 3);
      ++frames_parsed_;
      return true;
    } else {
      skip_block(name);  // velocities, GROMOS's blocks: not needed
    }
  }
  if (!title && !timestep && !positions) return false;  // the end of the file
  // GROMACS writes a BOX with every frame: a frame without one is a file cut before it, which
  // must not pass for a frame without periodic boundaries.
  fail(positions ? "truncated file: it ends before the BOX block"
                 : "truncated file: it ends before the POSITION block");
}

void G96Reader::parse_title(TrajectoryFrame& frame, Topology* names) {
  if (!read_line()) fail_inside("TITLE");
  if (trim_right(line_) == "END") return;  // an empty title block
  bool has_time = false;
  gro::parse_title_time(line_, frame.time, has_time, frame.step);
  if (names != nullptr && names->title.empty()) names->title = std::string(gro::trim(line_));
  skip_block("TITLE");  // GROMOS titles may run over several lines
}

void G96Reader::parse_timestep(TrajectoryFrame& frame) {
  const BlockLine first = next_block_line();
  if (first == BlockLine::eof) fail_inside("TIMESTEP");
  if (first == BlockLine::end) fail("TIMESTEP block without its step and time");
  std::string_view rest(line_);
  const std::string_view step = take_field(rest), time = take_field(rest);
  long long step_value = 0;
  if (!gro::parse_int(step, step_value)) fail("bad step '" + excerpt(step) + "' in TIMESTEP");
  // GROMACS writes "%15.6f": read as the coordinates are, whatever the locale; else any form.
  double time_value = 0;
  if (!gro::parse_fixed_point(time, time_value) &&
      !text::parse_double(std::string(time), time_value))
    fail("bad time '" + excerpt(time) + "' in TIMESTEP");
  if (const std::string problem = trailing_text(rest, "step and time"); !problem.empty())
    fail(problem);
  frame.step = step_value;
  frame.time = time_value;
  const BlockLine after = next_block_line();
  if (after == BlockLine::eof) fail_inside("TIMESTEP");
  if (after == BlockLine::content) fail("TIMESTEP block holds more than its step and time");
}

void G96Reader::parse_positions(TrajectoryFrame& frame, bool named, Topology* names) {
  if (names != nullptr && !named)
    fail(
        "POSITIONRED names no atoms (a structure needs a POSITION block: gmx editconf -o "
        "conf.g96 or gmx trjconv -dump writes one; or give the names in another file)");
  static const char* const kAxis[3] = {"x", "y", "z"};
  // The first frame's atoms are counted as their lines arrive; later frames hold as many.
  if (natoms_ > 0) frame.xyz.reserve(3 * static_cast<size_t>(natoms_));
  const char* block = named ? "POSITION" : "POSITIONRED";
  size_t atoms = 0;
  BlockLine got;
  while ((got = next_block_line()) == BlockLine::content) {
    if (natoms_ >= 0 && atoms == static_cast<size_t>(natoms_))
      fail("more than " + std::to_string(natoms_) + " atom lines, the first frame's count");
    if (atoms == static_cast<size_t>(INT_MAX))
      fail("more than " + std::to_string(INT_MAX) + " atom lines");
    std::string_view rest(line_);
    if (named) {
      if (rest.size() < kPositionColumn)
        fail("atom line too short (" + std::to_string(rest.size()) + " characters, the " +
             "coordinates start in column " + std::to_string(kPositionColumn + 1) + ")");
      if (names != nullptr) parse_atom_names(*names);
      rest.remove_prefix(kPositionColumn);
    }
    float xyz[3] = {0, 0, 0};
    for (int d = 0; d < 3; ++d) {
      const std::string_view field = take_field(rest);
      if (field.empty()) fail(std::string("atom line without its ") + kAxis[d] + " coordinate");
      if (!gro::parse_float(field, xyz[d]))
        fail(std::string("bad ") + kAxis[d] + " coordinate '" + excerpt(field) + "'");
    }
    if (const std::string problem = trailing_text(rest, "coordinates"); !problem.empty())
      fail(problem);
    frame.xyz.insert(frame.xyz.end(), xyz, xyz + 3);
    ++atoms;
  }
  if (got == BlockLine::eof) {
    if (natoms_ >= 0) fail(text::missing_atom_lines(atoms, static_cast<size_t>(natoms_)));
    fail("truncated file: it ends inside the " + std::string(block) + " block after " +
         std::to_string(atoms) + " atom lines");
  }
  if (atoms == 0) fail(std::string("no atoms in the ") + block + " block");
  if (natoms_ >= 0 && atoms != static_cast<size_t>(natoms_))
    fail(text::atom_count_differs(static_cast<long long>(atoms), natoms_));
}

void G96Reader::parse_atom_names(Topology& names) {
  const std::string_view line(line_);
  long long residue = 0;
  if (!gro::parse_int(line.substr(0, 5), residue))  // 5 columns: an int
    fail("bad residue number '" + excerpt(line.substr(0, 5)) + "'");
  names.residue_numbers.push_back(static_cast<int>(residue));
  names.residue_names.push_back(gro::trim(line.substr(6, 5)));
  names.atom_names.push_back(gro::trim(line.substr(12, 5)));
}

void G96Reader::parse_box(std::array<float, 9>& box) {
  const BlockLine first = next_block_line();
  if (first == BlockLine::eof) fail_inside("BOX");
  if (first == BlockLine::end) fail("BOX block without its numbers");
  float v[9] = {};
  size_t count = 0;
  std::string_view rest(line_);
  for (std::string_view field; !(field = take_field(rest)).empty(); ++count) {
    if (count == 9) fail("BOX line holds more than 9 numbers");
    if (!gro::parse_float(field, v[count])) fail("bad BOX number '" + excerpt(field) + "'");
  }
  if (count != 3 && count != 9)
    fail("BOX line must hold 3 or 9 numbers, found " + std::to_string(count));
  // GROMACS's order: v1(x) v2(y) v3(z), then v1(y) v1(z) v2(x) v2(z) v3(x) v3(y); rows a, b, c.
  box = {v[0], v[3], v[4], v[5], v[1], v[6], v[7], v[8], v[2]};
  const BlockLine after = next_block_line();
  if (after == BlockLine::eof) fail_inside("BOX");
  if (after == BlockLine::content) fail("BOX block holds more than one line of numbers");
}

bool G96Reader::next(TrajectoryFrame& frame) {
  if (!error_.empty()) throw_frame_error(error_, cut_);
  if (first_pending_) {
    first_pending_ = false;
    std::swap(frame, first_);
    first_ = TrajectoryFrame{};
    ++frames_read_;
    return true;
  }
  if (!parse_frame(frame, nullptr)) return false;
  ++frames_read_;
  return true;
}

Topology read_g96_topology(const std::string& path, TopologyContent content) {
  Topology names;
  G96Reader reader(path, &names);
  if (content == TopologyContent::everything) names.xyz = std::move(reader.first_.xyz);
  names.box = reader.first_.box;
  return names;
}

bool g96_names_atoms(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  bool inside = false;  // a block's lines, where block names are data
  while (std::getline(in, line)) {
    const std::string_view trimmed = trim_right(line);
    if (inside) {
      inside = !is_end(trimmed);
    } else if (trimmed == "POSITION" || trimmed == "POSITIONRED") {
      return trimmed == "POSITION";
    } else {
      inside = is_block_name(trimmed);
    }
  }
  return true;
}

}  // namespace pairhist::io
