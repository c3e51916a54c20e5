#include "io/trajectory/pdb_reader.hpp"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "pairhist/errors.hpp"

namespace pairhist::io {

namespace {

constexpr double kPi = 3.14159265358979323846;

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

// Columns are 1-based and inclusive, as the PDB specification numbers them; columns past the end
// of a short line read as blanks.
std::string columns(const std::string& line, size_t first, size_t last) {
  if (line.size() < first) return "";
  return line.substr(first - 1, last - first + 1);
}

bool parse_double(const std::string& field, double& out) {
  const std::string t = trim(field);
  if (t.empty()) return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtod(t.c_str(), &end);
  return errno == 0 && end == t.c_str() + t.size() && std::isfinite(out);
}

bool parse_int(const std::string& field, long& out) {
  const std::string t = trim(field);
  if (t.empty()) return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtol(t.c_str(), &end, 10);
  return errno == 0 && end == t.c_str() + t.size();
}

bool record_is(const std::string& line, const char* name) {
  const size_t n = std::strlen(name);
  if (line.compare(0, n, name) != 0) return false;
  // "END" must not match "ENDMDL"; the rest of a record name field is blank.
  for (size_t k = n; k < 6 && k < line.size(); ++k) {
    if (line[k] != ' ') return false;
  }
  return true;
}

double cos_degrees(double deg) {
  // Exact zero for right angles, so rectangular boxes get exact zero off-diagonal terms.
  return deg == 90.0 ? 0.0 : std::cos(deg * kPi / 180.0);
}

}  // namespace

void PdbReader::FileCloser::operator()(std::FILE* f) const {
  if (f != nullptr) std::fclose(f);
}

PdbReader::PdbReader(const std::string& path) : PdbReader(path, nullptr) {}

PdbReader::PdbReader(const std::string& path, Topology* topology) : path_(path) {
  file_.reset(std::fopen(path.c_str(), "rb"));
  if (!file_) throw InputError(path + ": cannot open PDB file: " + std::strerror(errno));
  if (!parse_frame(first_, topology)) {
    throw InputError(path + ": frame 0: no ATOM or HETATM records, not a PDB structure");
  }
  first_pending_ = true;
}

PdbReader::~PdbReader() = default;

void PdbReader::fail(const std::string& problem) {
  const int64_t frame = frames_parsed_;
  std::string msg = path_ + ": frame " + std::to_string(frame) + ": ";
  if (line_number_ > 0) msg += "line " + std::to_string(line_number_) + ": ";
  msg += problem;
  msg += frame > 0 ? " (last complete frame is " + std::to_string(frame - 1) + ")"
                   : " (no complete frame)";
  error_ = msg;
  cut_ = line_cut_;
  throw_frame_error(msg, cut_);
}

bool PdbReader::read_line() {
  line_.clear();
  line_cut_ = false;  // a read error is no cut
  char buf[256];
  bool any = false;
  while (std::fgets(buf, sizeof buf, file_.get()) != nullptr) {
    any = true;
    line_ += buf;
    if (!line_.empty() && line_.back() == '\n') break;
  }
  if (std::ferror(file_.get())) fail(std::string("read error: ") + std::strerror(errno));
  line_cut_ = line_.empty() || line_.back() != '\n';
  if (!any) return false;
  ++line_number_;
  while (!line_.empty() && (line_.back() == '\n' || line_.back() == '\r')) line_.pop_back();
  return true;
}

void PdbReader::parse_cryst1() {
  double v[6];
  static const size_t kCols[6][2] = {{7, 15}, {16, 24}, {25, 33}, {34, 40}, {41, 47}, {48, 54}};
  static const char* const kNames[6] = {"a", "b", "c", "alpha", "beta", "gamma"};
  for (int k = 0; k < 6; ++k) {
    if (!parse_double(columns(line_, kCols[k][0], kCols[k][1]), v[k])) {
      fail(std::string("CRYST1: cannot read ") + kNames[k] + " in columns " +
           std::to_string(kCols[k][0]) + "-" + std::to_string(kCols[k][1]));
    }
  }
  const double a = v[0], b = v[1], c = v[2];
  box_ = {};
  if (a == 0 && b == 0 && c == 0) return;
  // The PDB specification's placeholder for "no unit cell" (NMR and model structures).
  if (a == 1 && b == 1 && c == 1 && v[3] == 90 && v[4] == 90 && v[5] == 90) return;
  if (!(a > 0 && b > 0 && c > 0)) fail("CRYST1: cell lengths must be positive");
  for (int k = 3; k < 6; ++k) {
    if (!(v[k] > 0 && v[k] < 180)) fail("CRYST1: cell angles must lie strictly between 0 and 180");
  }
  const double ca = cos_degrees(v[3]), cb = cos_degrees(v[4]), cg = cos_degrees(v[5]);
  const double sg = std::sin(v[5] * kPi / 180.0);
  // a along x, b in the xy plane, c completing the cell: the GROMACS convention.
  const double bx = b * cg, by = b * sg;
  const double cx = c * cb, cy = c * (ca - cb * cg) / sg;
  const double cz2 = c * c - cx * cx - cy * cy;
  if (!(cz2 > 0)) fail("CRYST1: cell angles do not describe a three-dimensional cell");
  const double to_nm = 0.1;
  box_ = {static_cast<float>(a * to_nm),
          0.0f,
          0.0f,
          static_cast<float>(bx * to_nm),
          static_cast<float>(by * to_nm),
          0.0f,
          static_cast<float>(cx * to_nm),
          static_cast<float>(cy * to_nm),
          static_cast<float>(std::sqrt(cz2) * to_nm)};
}

bool PdbReader::parse_frame(TrajectoryFrame& frame, Topology* topology) {
  frame.xyz.clear();
  frame.precision = 0;
  bool in_model = false;
  bool have_title_time = false;
  double time = 0;
  int64_t step = frames_parsed_;
  int64_t atoms = 0;

  auto finish = [&] {
    if (natoms_ >= 0 && atoms != natoms_) {
      fail("model has " + std::to_string(atoms) + " atoms, the first has " +
           std::to_string(natoms_));
    }
    natoms_ = static_cast<int>(atoms);
    frame.box = box_;
    frame.time = have_title_time ? time : 0;
    frame.step = step;
    ++frames_parsed_;
    return true;
  };

  while (read_line()) {
    const std::string& line = line_;
    if (record_is(line, "ATOM") || record_is(line, "HETATM")) {
      if (uses_models_ && !in_model) fail("ATOM/HETATM record outside MODEL ... ENDMDL");
      parse_atom(line, atoms, frame, topology);
      ++atoms;
    } else if (record_is(line, "MODEL")) {
      if (in_model) fail("MODEL inside a MODEL (missing ENDMDL)");
      if (frames_parsed_ > 0 && !uses_models_)
        fail("MODEL record in a file whose first frame had none");
      if (atoms > 0) fail("MODEL record after ATOM records of the same frame");
      uses_models_ = true;
      in_model = true;
    } else if (record_is(line, "ENDMDL")) {
      if (!in_model) fail("ENDMDL without MODEL");
      return finish();
    } else if (record_is(line, "END")) {
      if (in_model) fail("END inside a MODEL (missing ENDMDL)");
      if (!uses_models_ && atoms > 0) return finish();
    } else if (record_is(line, "CRYST1")) {
      parse_cryst1();
    } else if (record_is(line, "TITLE")) {
      parse_title(line, time, have_title_time, step, topology);
    }
    // Everything else (REMARK, TER, CONECT, ANISOU, ...) carries nothing a histogram needs.
  }
  if (in_model) fail("truncated file: MODEL without ENDMDL");
  if (atoms == 0) return false;
  return finish();
}

void PdbReader::parse_atom(const std::string& line, int64_t atoms, TrajectoryFrame& frame,
                           Topology* topology) {
  if (line.size() < 54) {
    fail("ATOM/HETATM record too short for coordinates (" + std::to_string(line.size()) +
         " characters, need 54)");
  }
  double x[3];
  for (int d = 0; d < 3; ++d) {
    const size_t first = 31 + 8 * static_cast<size_t>(d);
    if (!parse_double(columns(line, first, first + 7), x[d])) {
      fail(std::string("cannot read ") + "xyz"[d] + " coordinate in columns " +
           std::to_string(first) + "-" + std::to_string(first + 7));
    }
  }
  if (atoms >= INT_MAX || (natoms_ >= 0 && atoms >= natoms_)) {
    fail("model has more atoms than the first (" + std::to_string(natoms_) + ")");
  }
  // Angstrom to nm; the float product can differ from x/10 in the last bit only.
  for (int d = 0; d < 3; ++d) frame.xyz.push_back(static_cast<float>(x[d] * 0.1));
  if (topology != nullptr) {
    long resnum = 0;
    if (!parse_int(columns(line, 23, 26), resnum)) fail("cannot read residue number");
    topology->atom_names.push_back(trim(columns(line, 13, 16)));
    // GROMACS writes four-letter residue names into column 21, left blank by the standard.
    topology->residue_names.push_back(trim(columns(line, 18, 21)));
    topology->residue_numbers.push_back(static_cast<int>(resnum));
    // Right-justified symbol; a blank field (or a line that stops short) leaves this atom
    // without an element rather than one guessed from its name.
    topology->elements.push_back(trim(columns(line, 77, 78)));
  }
}

void PdbReader::parse_title(const std::string& line, double& time, bool& have_title_time,
                            int64_t& step, Topology* topology) {
  // GROMACS appends "t= <ps> step= <n>" to the title of each frame.
  const size_t t = line.find(" t=");
  if (t != std::string::npos) {
    char* end = nullptr;
    const double v = std::strtod(line.c_str() + t + 3, &end);
    if (end != line.c_str() + t + 3 && std::isfinite(v)) {
      time = v;
      have_title_time = true;
    }
    const size_t s = line.find("step=", t);
    if (s != std::string::npos) {
      const long long n = std::strtoll(line.c_str() + s + 5, &end, 10);
      if (end != line.c_str() + s + 5) step = n;
    }
  }
  if (topology != nullptr && topology->title.empty()) {
    topology->title = trim(columns(line, 11, t == std::string::npos ? line.size() : t));
  }
}

bool PdbReader::next(TrajectoryFrame& frame) {
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

Topology read_pdb_topology(const std::string& path) {
  Topology topology;
  PdbReader reader(path, &topology);
  topology.xyz = reader.first_.xyz;
  topology.box = reader.first_.box;
  return topology;
}

}  // namespace pairhist::io
