#include "io/trajectory/xyz_reader.hpp"

#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "io/common/text_lines.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {

namespace {

constexpr double kAngstromToNm = 0.1;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

using text::parse_double;
using text::parse_int;
using text::split_ws;

// Extended-XYZ comment line as key/value pairs; keys lower-cased (ASE reads them that way too).
// Bare words become keys with the value "T", as in the extxyz grammar.
std::vector<std::pair<std::string, std::string>> parse_comment(const std::string& s) {
  std::vector<std::pair<std::string, std::string>> kv;
  size_t i = 0;
  const size_t n = s.size();
  auto space = [&](size_t k) { return std::isspace(static_cast<unsigned char>(s[k])) != 0; };
  while (i < n) {
    while (i < n && space(i)) ++i;
    if (i >= n) break;
    const size_t kstart = i;
    while (i < n && !space(i) && s[i] != '=') ++i;
    std::string key = lower(s.substr(kstart, i - kstart));
    size_t j = i;
    while (j < n && space(j)) ++j;
    if (j >= n || s[j] != '=') {
      kv.emplace_back(key, "T");
      continue;
    }
    i = j + 1;
    while (i < n && space(i)) ++i;
    std::string value;
    if (i < n && (s[i] == '"' || s[i] == '{' || s[i] == '[')) {
      const char close = s[i] == '"' ? '"' : s[i] == '{' ? '}' : ']';
      ++i;
      while (i < n && s[i] != close) {
        if (s[i] == '\\' && i + 1 < n) ++i;
        value += s[i++];
      }
      if (i < n) ++i;
    } else {
      while (i < n && !space(i)) value += s[i++];
    }
    kv.emplace_back(std::move(key), std::move(value));
  }
  return kv;
}

}  // namespace

XyzReader::XyzReader(const std::string& path) : path_(path), in_(path, std::ios::binary) {
  if (!in_) throw InputError(path + ": cannot open XYZ file: " + std::strerror(errno));
  if (!read_line(pending_)) {
    throw InputError(path + ": frame 0: empty file, not an XYZ trajectory (no complete frame)");
  }
  split_ws(pending_, fields_);
  long long n = 0;
  if (fields_.size() != 1 || !parse_int(fields_[0], n) || n < 0 || n > (1LL << 30)) {
    throw InputError(path + ": frame 0: line 1: not an XYZ file (expected an atom count, got '" +
                     excerpt(pending_, 40) + "') (no complete frame)");
  }
  natoms_ = static_cast<int>(n);
  have_pending_ = true;
}

void XyzReader::fail(const std::string& problem) {
  error_ = text::line_error(path_, frames_read_, line_no_, problem);
  cut_ = line_cut_;
  throw_frame_error(error_, cut_);
}

bool XyzReader::read_line(std::string& line) {
  line_cut_ = false;  // a read error or binary data is no cut
  switch (text::read_line(in_, line, line_no_, last_had_newline_)) {
    case text::LineStatus::end:
      line_cut_ = true;
      return false;
    case text::LineStatus::read_error:
      fail("read error");
    case text::LineStatus::binary:
      fail("binary data, not an XYZ text file");
    default:
      line_cut_ = !last_had_newline_;
      return true;
  }
}

bool XyzReader::next(TrajectoryFrame& frame) {
  return next(frame, nullptr);
}

bool XyzReader::next(TrajectoryFrame& frame, std::vector<std::string>* species) {
  if (!error_.empty()) throw_frame_error(error_, cut_);
  if (!read_atom_count()) return false;
  if (!read_line(comment_)) fail("truncated file: the comment line is missing");

  // Box and column layout from the comment line.
  std::string lattice, properties = "species:S:1:pos:R:3", pbc = "T T T";
  for (const auto& [key, value] : parse_comment(comment_)) {
    if (key == "lattice") lattice = value;
    if (key == "properties") properties = value;
    if (key == "pbc") pbc = value;
  }
  const AtomColumns columns = parse_properties(properties);
  // pbc is checked even without a Lattice.
  const bool periodic = is_periodic(pbc, lattice) && !lattice.empty();

  // Rows a, b, c in Angstrom; `rot` maps file coordinates onto the GROMACS-form basis.
  std::array<double, 9> box{};
  std::array<double, 9> rot{};  // rows: unit vectors e1, e2, e3
  const bool rotate = periodic && parse_lattice(lattice, box, rot);
  for (int k = 0; k < 9; ++k) frame.box[k] = static_cast<float>(box[k] * kAngstromToNm);

  read_atom_lines(columns, rotate ? &rot : nullptr, frame, species);
  frame.step = frames_read_;
  frame.time = 0;
  frame.precision = 0;
  ++frames_read_;
  return true;
}

bool XyzReader::read_atom_count() {
  // Blank lines after the last frame are a clean end.
  if (have_pending_) {
    line_ = pending_;
    have_pending_ = false;
  } else {
    do {
      if (!read_line(line_)) return false;
      split_ws(line_, fields_);
    } while (fields_.empty());
  }
  split_ws(line_, fields_);
  long long n = 0;
  if (fields_.size() != 1 || !parse_int(fields_[0], n)) {
    fail("expected an atom count, got '" + excerpt(line_, 40) + "'");
  }
  if (n != natoms_) fail(text::atom_count_differs(n, natoms_));
  return true;
}

XyzReader::AtomColumns XyzReader::parse_properties(const std::string& properties) {
  std::vector<std::string> parts;
  {
    std::string p = properties;
    for (char& c : p) c = c == ':' ? ' ' : c;
    split_ws(p, parts);
  }
  if (parts.empty() || parts.size() % 3 != 0)
    fail("malformed Properties '" + excerpt(properties) + "'");
  AtomColumns columns;
  int column = 0;
  for (size_t k = 0; k < parts.size(); k += 3) {
    long long count = 0;
    if (!parse_int(parts[k + 2], count) || count < 1 || count > 1000) {
      fail("malformed Properties '" + excerpt(properties) + "'");
    }
    const std::string name = lower(parts[k]);
    const std::string type = lower(parts[k + 1]);
    if (name == "pos") {
      if (type != "r" || count != 3) fail("Properties: pos must be R:3");
      for (int d = 0; d < 3; ++d) columns.pos[d] = column + d;
    } else if (name == "species" && type == "s" && count == 1) {
      columns.species = column;
    }
    column += static_cast<int>(count);
  }
  if (columns.pos[0] < 0) fail("Properties has no pos column");
  columns.count = static_cast<size_t>(column);
  return columns;
}

bool XyzReader::is_periodic(const std::string& pbc, const std::string& lattice) {
  std::vector<std::string> flags;
  split_ws(lower(pbc), flags);
  int on = 0;
  for (const auto& f : flags) {
    if (f == "t" || f == "true" || f == "1")
      ++on;
    else if (f != "f" && f != "false" && f != "0")
      fail("malformed pbc '" + excerpt(pbc) + "'");
  }
  if (flags.size() != 3) fail("malformed pbc '" + excerpt(pbc) + "'");
  if (on != 0 && on != 3 && !lattice.empty()) {
    fail("partly periodic frame (pbc=\"" + excerpt(pbc) + "\") is not supported");
  }
  return on != 0;
}

bool XyzReader::parse_lattice(const std::string& lattice, std::array<double, 9>& box,
                              std::array<double, 9>& rot) {
  std::vector<std::string> nums;
  split_ws(lattice, nums);
  if (nums.size() != 9) fail("Lattice needs 9 numbers, found " + std::to_string(nums.size()));
  for (int k = 0; k < 9; ++k) {
    if (!parse_double(nums[k], box[k])) fail("bad Lattice number '" + excerpt(nums[k]) + "'");
  }
  const bool lower_triangular =
      box[1] == 0 && box[2] == 0 && box[5] == 0 && box[0] > 0 && box[4] > 0 && box[8] > 0;
  if (lower_triangular) return false;
  // Gram-Schmidt on a, b; e3 completes the frame on the side of c, so the box diagonal stays
  // positive. An orthogonal map (rotation or reflection) keeps every distance.
  const double* a = &box[0];
  const double* b = &box[3];
  const double* c = &box[6];
  const double na = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  if (!(na > 0)) fail("degenerate Lattice (a is zero)");
  double e1[3] = {a[0] / na, a[1] / na, a[2] / na};
  const double bd = b[0] * e1[0] + b[1] * e1[1] + b[2] * e1[2];
  double e2[3] = {b[0] - bd * e1[0], b[1] - bd * e1[1], b[2] - bd * e1[2]};
  const double n2 = std::sqrt(e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2]);
  if (!(n2 > 1e-9 * na)) fail("degenerate Lattice (a and b are parallel)");
  for (double& v : e2) v /= n2;
  double e3[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                  e1[0] * e2[1] - e1[1] * e2[0]};
  const double cd = c[0] * e3[0] + c[1] * e3[1] + c[2] * e3[2];
  if (std::fabs(cd) <= 1e-9 * na) fail("degenerate Lattice (c lies in the ab plane)");
  if (cd < 0) {
    for (double& v : e3) v = -v;
  }
  rot = {e1[0], e1[1], e1[2], e2[0], e2[1], e2[2], e3[0], e3[1], e3[2]};
  std::array<double, 9> out{};
  for (int r = 0; r < 3; ++r) {
    for (int k = 0; k < 3; ++k) {
      out[3 * r + k] = box[3 * r] * rot[3 * k] + box[3 * r + 1] * rot[3 * k + 1] +
                       box[3 * r + 2] * rot[3 * k + 2];
    }
  }
  out[1] = out[2] = out[5] = 0;  // zero by construction; drop rounding noise
  box = out;
  return true;
}

void XyzReader::read_atom_lines(const AtomColumns& columns, const std::array<double, 9>* rot,
                                TrajectoryFrame& frame, std::vector<std::string>* species) {
  // Storage grows with the atom lines read: the count line alone must not allocate.
  const size_t n_atoms = static_cast<size_t>(natoms_);
  const size_t ncols = columns.count;
  const size_t expected = text::reservable(in_, path_, n_atoms, 2 * ncols);
  frame.xyz.clear();
  frame.xyz.reserve(3 * expected);
  if (species != nullptr) {
    species->clear();
    species->reserve(expected);
  }
  for (size_t i = 0; i < n_atoms; ++i) {
    if (!read_line(line_)) fail(text::missing_atom_lines(i, n_atoms));
    split_ws(line_, fields_);
    if (fields_.size() < ncols) {
      fail("atom line has " + std::to_string(fields_.size()) + " columns, Properties needs " +
           std::to_string(ncols));
    }
    double r[3];
    if (const std::string* bad = text::parse_position(fields_, columns.pos, r)) {
      fail("bad coordinate '" + excerpt(*bad) + "'");
    }
    if (rot != nullptr) {
      const std::array<double, 9>& m = *rot;
      const double x = r[0], y = r[1], z = r[2];
      for (int d = 0; d < 3; ++d) r[d] = m[3 * d] * x + m[3 * d + 1] * y + m[3 * d + 2] * z;
    }
    for (int d = 0; d < 3; ++d) frame.xyz.push_back(static_cast<float>(r[d] * kAngstromToNm));
    if (species != nullptr) {
      species->push_back(columns.species >= 0 ? fields_[static_cast<size_t>(columns.species)]
                                              : std::string());
    }
  }
  if (natoms_ > 0 && !last_had_newline_) {
    fail("truncated file: the last atom line has no newline");
  }
}

Topology read_xyz_topology(const std::string& path) {
  XyzReader reader(path);
  TrajectoryFrame frame;
  Topology top;
  std::vector<std::string> names;
  if (!reader.next(frame, &names)) {
    throw InputError(path + ": frame 0: no frame in the file (no complete frame)");
  }
  top.atom_names = analysis::NameColumn(names);
  top.xyz = std::move(frame.xyz);
  top.box = frame.box;
  top.title = reader.comment();
  top.residue_names.assign(top.atom_names.size(), std::string());
  top.residue_numbers.assign(top.atom_names.size(), 0);
  top.elements = top.atom_names;  // the species column holds chemical symbols (as ASE writes it)
  return top;
}

}  // namespace pairhist::io
