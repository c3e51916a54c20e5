#include "io/trajectory/lammps_dump_reader.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <utility>

#include "io/common/text_lines.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {

namespace {

constexpr double kAngstromToNm = 0.1;

using text::parse_double;
using text::parse_int;
using text::split_ws;

bool starts_with(const std::string& s, const char* prefix) {
  return s.compare(0, std::strlen(prefix), prefix) == 0;
}

}  // namespace

LammpsDumpReader::LammpsDumpReader(const std::string& path)
    : path_(path), in_(path, std::ios::binary) {
  if (!in_) throw InputError(path + ": cannot open LAMMPS dump: " + std::strerror(errno));
  if (!read_frame()) {
    throw InputError(path + ": frame 0: empty file, not a LAMMPS dump (no complete frame)");
  }
  have_pending_ = true;
}

void LammpsDumpReader::fail(const std::string& problem) {
  error_ = text::line_error(path_, frames_parsed_, line_no_, problem);
  cut_ = line_cut_;
  throw_frame_error(error_, cut_);
}

bool LammpsDumpReader::read_line(std::string& line) {
  line_cut_ = false;  // a read error or binary data is no cut
  switch (text::read_line(in_, line, line_no_, last_had_newline_)) {
    case text::LineStatus::end:
      line_cut_ = true;
      return false;
    case text::LineStatus::read_error:
      fail("read error");
    case text::LineStatus::binary:
      fail("binary data, not a LAMMPS text dump");
    default:
      line_cut_ = !last_had_newline_;
      return true;
  }
}

bool LammpsDumpReader::read_frame() {
  TrajectoryFrame& frame = pending_;
  if (!read_timestep(frame)) return false;
  read_time_and_units(frame);
  read_atom_count();
  const DumpBox box = read_box_bounds(frame);
  const AtomColumns columns = read_atoms_header();
  read_atom_lines(columns, box);
  sort_atoms_by_id();
  store_sorted_atoms(frame);
  ++frames_parsed_;
  return true;
}

void LammpsDumpReader::read_value_line(const char* what) {
  if (!read_line(line_)) fail(std::string("truncated file: missing ") + what);
  split_ws(line_, fields_);
  if (fields_.empty()) fail(std::string("empty ") + what + " line");
}

bool LammpsDumpReader::read_timestep(TrajectoryFrame& frame) {
  // Blank lines after the last frame are a clean end.
  do {
    if (!read_line(line_)) return false;
    split_ws(line_, fields_);
  } while (fields_.empty());
  if (!starts_with(line_, "ITEM: TIMESTEP")) {
    fail(frames_parsed_ == 0 ? "not a LAMMPS dump (expected 'ITEM: TIMESTEP')"
                             : "expected 'ITEM: TIMESTEP', got '" + excerpt(line_, 40) + "'");
  }
  read_value_line("timestep");
  long long step = 0;
  if (!parse_int(fields_[0], step)) fail("bad timestep '" + excerpt(fields_[0]) + "'");
  frame.step = step;
  frame.time = 0;
  frame.precision = 0;
  return true;
}

void LammpsDumpReader::read_time_and_units(TrajectoryFrame& frame) {
  // Optional items (dump_modify units/time) come before the atom count.
  double time = 0;
  bool have_time = false;
  for (;;) {
    if (!read_line(line_)) fail("truncated file: missing 'ITEM: NUMBER OF ATOMS'");
    if (starts_with(line_, "ITEM: NUMBER OF ATOMS")) break;
    if (starts_with(line_, "ITEM: UNITS")) {
      read_value_line("units");
      units_ = fields_[0];
      if (units_ != "real" && units_ != "metal") {
        fail("units '" + excerpt(units_) +
             "' are not supported (lengths must be Angstrom: real or metal)");
      }
    } else if (starts_with(line_, "ITEM: TIME")) {
      read_value_line("time");
      if (!parse_double(fields_[0], time)) fail("bad time '" + excerpt(fields_[0]) + "'");
      have_time = true;
    } else {
      fail("unexpected '" + excerpt(line_, 40) + "' before 'ITEM: NUMBER OF ATOMS'");
    }
  }
  if (have_time) {
    if (units_ == "real") frame.time = time * 1e-3;  // fs -> ps
    if (units_ == "metal") frame.time = time;
  }
}

void LammpsDumpReader::read_atom_count() {
  read_value_line("atom count");
  long long n = 0;
  if (!parse_int(fields_[0], n) || n < 0 || n > (1LL << 30)) {
    fail("bad atom count '" + excerpt(fields_[0]) + "'");
  }
  if (natoms_ < 0) natoms_ = static_cast<int>(n);
  if (n != natoms_) fail(text::atom_count_differs(n, natoms_));
}

LammpsDumpReader::DumpBox LammpsDumpReader::read_box_bounds(TrajectoryFrame& frame) {
  if (!read_line(line_)) fail("truncated file: missing 'ITEM: BOX BOUNDS'");
  if (!starts_with(line_, "ITEM: BOX BOUNDS")) {
    fail("expected 'ITEM: BOX BOUNDS', got '" + excerpt(line_, 40) + "'");
  }
  split_ws(line_.substr(16), fields_);
  bool triclinic = false;
  std::vector<std::string> flags;
  for (const auto& f : fields_) {
    if (f == "xy" || f == "xz" || f == "yz") {
      triclinic = true;
    } else if (f == "abc" || f == "origin") {
      fail("general triclinic dumps (BOX BOUNDS abc origin) are not supported");
    } else {
      flags.push_back(f);
    }
  }
  int periodic = 0;
  for (const auto& f : flags) periodic += f == "pp" ? 1 : 0;
  if (!flags.empty() && flags.size() != 3) fail("malformed 'ITEM: BOX BOUNDS' line");
  const bool has_box = flags.empty() || periodic == 3;
  if (!flags.empty() && periodic != 0 && periodic != 3) {
    fail("mixed periodic and non-periodic boundaries are not supported");
  }
  DumpBox box;
  for (int d = 0; d < 3; ++d) {
    read_value_line("box bounds");
    if (fields_.size() != (triclinic ? 3u : 2u) || !parse_double(fields_[0], box.lo[d]) ||
        !parse_double(fields_[1], box.hi[d]) ||
        (triclinic && !parse_double(fields_[2], box.tilt[d]))) {
      fail("bad box bounds line '" + excerpt(line_) + "'");
    }
  }
  // Dumps store the bounding box of a triclinic cell; the tilts shift its x and y extents.
  const double xy = box.tilt[0], xz = box.tilt[1], yz = box.tilt[2];
  if (triclinic) {
    box.lo[0] -= std::min({0.0, xy, xz, xy + xz});
    box.hi[0] -= std::max({0.0, xy, xz, xy + xz});
    box.lo[1] -= std::min(0.0, yz);
    box.hi[1] -= std::max(0.0, yz);
  }
  for (int d = 0; d < 3; ++d) box.length[d] = box.hi[d] - box.lo[d];
  const double lx = box.length[0], ly = box.length[1], lz = box.length[2];
  if (!(lx > 0 && ly > 0 && lz > 0)) fail("box has a non-positive length");
  frame.box.fill(0);
  if (has_box) {
    const double s = kAngstromToNm;
    frame.box = {static_cast<float>(lx * s),
                 0.0f,
                 0.0f,
                 static_cast<float>(xy * s),
                 static_cast<float>(ly * s),
                 0.0f,
                 static_cast<float>(xz * s),
                 static_cast<float>(yz * s),
                 static_cast<float>(lz * s)};
  }
  return box;
}

LammpsDumpReader::AtomColumns LammpsDumpReader::read_atoms_header() {
  if (!read_line(line_)) fail("truncated file: missing 'ITEM: ATOMS'");
  if (!starts_with(line_, "ITEM: ATOMS")) {
    fail("expected 'ITEM: ATOMS', got '" + excerpt(line_, 40) + "'");
  }
  split_ws(line_.substr(11), fields_);
  const std::vector<std::string>& names = fields_;
  auto column_of = [&](const std::string& name) {
    const auto it = std::find(names.begin(), names.end(), name);
    return it == names.end() ? -1 : static_cast<int>(it - names.begin());
  };
  AtomColumns columns;
  columns.id = column_of("id");
  columns.type = column_of("type");
  for (const char* suffix : {"", "u", "s", "su"}) {
    for (int d = 0; d < 3; ++d) columns.pos[d] = column_of(std::string(1, "xyz"[d]) + suffix);
    if (columns.pos[0] >= 0 && columns.pos[1] >= 0 && columns.pos[2] >= 0) {
      columns.scaled = suffix[0] == 's';
      break;
    }
  }
  if (columns.pos[0] < 0 || columns.pos[1] < 0 || columns.pos[2] < 0) {
    fail("no coordinate columns (x y z, xu yu zu, xs ys zs or xsu ysu zsu) in 'ITEM: ATOMS'");
  }
  columns.count = names.size();
  return columns;
}

void LammpsDumpReader::read_atom_lines(const AtomColumns& columns, const DumpBox& box) {
  // Storage grows with the atom lines read: the count line alone must not allocate.
  const size_t na = static_cast<size_t>(natoms_);
  const size_t ncols = columns.count;
  const size_t expected = text::reservable(in_, path_, na, 2 * ncols);
  ids_.clear();
  raw_.clear();
  raw_types_.clear();
  ids_.reserve(expected);
  raw_.reserve(3 * expected);
  raw_types_.reserve(expected);
  const double lx = box.length[0], ly = box.length[1], lz = box.length[2];
  const double xy = box.tilt[0], xz = box.tilt[1], yz = box.tilt[2];
  for (size_t i = 0; i < na; ++i) {
    if (!read_line(line_)) fail(text::missing_atom_lines(i, na));
    split_ws(line_, fields_);
    if (fields_.size() != ncols) {
      fail("atom line has " + std::to_string(fields_.size()) + " columns, 'ITEM: ATOMS' names " +
           std::to_string(ncols));
    }
    long long id = static_cast<long long>(i);
    if (columns.id >= 0 && !parse_int(fields_[static_cast<size_t>(columns.id)], id)) {
      fail("bad atom id '" + excerpt(fields_[static_cast<size_t>(columns.id)]) + "'");
    }
    ids_.push_back(id);
    double r[3];
    if (const std::string* bad = text::parse_position(fields_, columns.pos, r)) {
      fail("bad coordinate '" + excerpt(*bad) + "'");
    }
    if (columns.scaled) {
      const double xs = r[0], ys = r[1], zs = r[2];
      r[0] = box.lo[0] + xs * lx + ys * xy + zs * xz;
      r[1] = box.lo[1] + ys * ly + zs * yz;
      r[2] = box.lo[2] + zs * lz;
    }
    raw_.insert(raw_.end(), r, r + 3);
    raw_types_.push_back(columns.type >= 0 ? fields_[static_cast<size_t>(columns.type)]
                                           : std::string());
  }
  if (na > 0 && !last_had_newline_) fail("truncated file: the last atom line has no newline");
}

void LammpsDumpReader::sort_atoms_by_id() {
  // Dumps from parallel runs come in processor order; sort by id for a stable atom order.
  const size_t na = static_cast<size_t>(natoms_);
  order_.resize(na);
  std::iota(order_.begin(), order_.end(), size_t{0});
  if (!std::is_sorted(ids_.begin(), ids_.end())) {
    std::sort(order_.begin(), order_.end(), [&](size_t a, size_t b) { return ids_[a] < ids_[b]; });
  }
  for (size_t k = 1; k < na; ++k) {
    if (ids_[order_[k]] == ids_[order_[k - 1]]) {
      fail("atom id " + std::to_string(ids_[order_[k]]) + " appears twice");
    }
  }
  if (frames_parsed_ == 0) {
    first_ids_.resize(na);
    for (size_t k = 0; k < na; ++k) first_ids_[k] = ids_[order_[k]];
  } else {
    for (size_t k = 0; k < na; ++k) {
      if (ids_[order_[k]] != first_ids_[k]) {
        fail("atom ids differ from the first frame (id " + std::to_string(ids_[order_[k]]) +
             " where the first frame has " + std::to_string(first_ids_[k]) + ")");
      }
    }
  }
}

void LammpsDumpReader::store_sorted_atoms(TrajectoryFrame& frame) {
  const size_t na = static_cast<size_t>(natoms_);
  frame.xyz.resize(3 * na);
  types_.resize(na);
  for (size_t k = 0; k < na; ++k) {
    const size_t i = order_[k];
    for (size_t d = 0; d < 3; ++d) {
      frame.xyz[3 * k + d] = static_cast<float>(raw_[3 * i + d] * kAngstromToNm);
    }
    types_[k] = raw_types_[i];
  }
}

bool LammpsDumpReader::next(TrajectoryFrame& frame) {
  return next(frame, nullptr);
}

bool LammpsDumpReader::next(TrajectoryFrame& frame, std::vector<std::string>* types) {
  if (!error_.empty()) throw_frame_error(error_, cut_);
  if (!have_pending_ && !read_frame()) return false;
  have_pending_ = false;
  frame.step = pending_.step;
  frame.time = pending_.time;
  frame.box = pending_.box;
  frame.precision = 0;
  frame.xyz.swap(pending_.xyz);
  if (types != nullptr) *types = types_;
  ++frames_read_;
  return true;
}

Topology read_lammps_dump_topology(const std::string& path) {
  LammpsDumpReader reader(path);
  TrajectoryFrame frame;
  Topology top;
  std::vector<std::string> names;
  reader.next(frame, &names);
  top.atom_names = analysis::NameColumn(names);
  top.xyz = std::move(frame.xyz);
  top.box = frame.box;
  top.title = "LAMMPS dump " + path + ", timestep " + std::to_string(frame.step);
  top.residue_names.assign(top.atom_names.size(), std::string());
  top.residue_numbers.assign(top.atom_names.size(), 0);
  top.types = top.atom_names;  // no elements: a LAMMPS type is a number, not a chemical symbol
  return top;
}

}  // namespace pairhist::io
