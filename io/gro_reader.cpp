#include "io/gro_reader.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "io/text_lines.hpp"
#include "pairhist/errors.hpp"

namespace pairhist::io {

namespace {

// Fixed columns of an atom line before the coordinates: resnr, resname, atomname, atomnr.
constexpr size_t kCoordColumn = 20;
// The shortest atom line: the fixed columns, three coordinates of 4 characters, the newline.
constexpr uint64_t kMinAtomLineBytes = kCoordColumn + 3 * 4 + 1;

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

bool parse_int(std::string_view field, long long& out) {
  field = trim(field);
  if (!field.empty() && field.front() == '+') field.remove_prefix(1);
  if (field.empty()) return false;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), out);
  return ec == std::errc() && end == field.data() + field.size();
}

// Parsed through double and then rounded to float, as GROMACS reads .gro files, so both agree on
// the last bit. Locale-independent on purpose: a decimal-comma locale must not change results.
bool parse_float(std::string_view field, float& out) {
  field = trim(field);
  if (!field.empty() && field.front() == '+') field.remove_prefix(1);
  if (field.empty()) return false;
  double value = 0;
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || end != field.data() + field.size()) return false;
#else
  // Fallback for standard libraries without floating-point from_chars.
  char buf[64];
  if (field.size() >= sizeof buf) return false;
  std::memcpy(buf, field.data(), field.size());
  buf[field.size()] = '\0';
  char* end = nullptr;
  errno = 0;
  value = std::strtod(buf, &end);
  if (end != buf + field.size() || errno == ERANGE) return false;
#endif
  out = static_cast<float>(value);
  return std::isfinite(out);
}

class GroParser {
 public:
  explicit GroParser(const std::string& path) : path_(path), in_(path, std::ios::binary) {
    if (!in_) throw InputError(path + ": cannot open GRO file: " + std::strerror(errno));
  }

  Topology parse() {
    Topology top;
    if (!next_line()) fail_missing("empty file");
    top.title = std::string(trim(line_));

    if (!next_line()) fail_missing("missing atom count line");
    long long count = 0;
    if (!parse_int(line_, count) || count < 0 || count > 1'000'000'000LL) {
      fail("bad atom count '" + excerpt(trim(line_)) + "'");
    }
    const auto natoms = static_cast<size_t>(count);
    // The count is untrusted until the lines are there, so do not let it drive a huge reserve.
    const size_t reserve = text::reservable(in_, path_, natoms, kMinAtomLineBytes);
    top.atom_names.reserve(reserve);
    top.residue_names.reserve(reserve);
    top.residue_numbers.reserve(reserve);
    top.xyz.reserve(reserve * 3);

    for (size_t i = 0; i < natoms; ++i) {
      if (!next_line()) {
        fail_missing("file ends after " + std::to_string(i) + " of " + std::to_string(natoms) +
                     " atom lines (atom count in line 2 too large?)");
      }
      if (i == 0) find_field_width();
      parse_atom(top);
    }
    parse_box(top);
    return top;
  }

 private:
  bool next_line() {
    if (!std::getline(in_, line_)) {
      if (in_.bad()) fail(std::string("read error: ") + std::strerror(errno));
      return false;
    }
    ++line_no_;
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();  // CRLF files
    return true;
  }

  [[noreturn]] void fail(const std::string& problem) const { fail_at(line_no_, problem); }

  // For a line that is missing: names the line number it should have had.
  [[noreturn]] void fail_missing(const std::string& problem) const {
    fail_at(line_no_ + 1, problem);
  }

  [[noreturn]] void fail_at(size_t line, const std::string& problem) const {
    throw InputError(path_ + ": line " + std::to_string(line) + ": " + problem);
  }

  // On a parse error in an atom line, says whether the line is really the box line, i.e. the
  // file ends right after it, which points at an atom count that is too large.
  std::string count_hint() {
    std::string rest;
    while (std::getline(in_, rest)) {
      if (!trim(rest).empty()) return {};
    }
    return " (this looks like the box line: atom count in line 2 too large?)";
  }

  // GROMACS writes coordinates with a variable number of decimals; the distance between the
  // decimal points of x and y in the first atom line is the field width for the whole frame.
  void find_field_width() {
    const auto p1 = line_.find('.', kCoordColumn);
    const auto p2 = p1 == std::string::npos ? p1 : line_.find('.', p1 + 1);
    if (p2 == std::string::npos) {
      fail("cannot find the decimal points of the coordinates in the first atom line");
    }
    width_ = p2 - p1;
    if (width_ < 4 || width_ > 32) {
      fail("implausible coordinate field width " + std::to_string(width_));
    }
  }

  void parse_atom(Topology& top) {
    const std::string_view line(line_);
    const size_t need = kCoordColumn + 3 * width_;
    if (line.size() < need) {
      const std::string hint = count_hint();
      fail("atom line too short (" + std::to_string(line.size()) + " characters, need " +
           std::to_string(need) + ")" + hint);
    }
    long long resnr = 0;
    if (!parse_int(line.substr(0, 5), resnr)) {
      const std::string hint = count_hint();
      fail("bad residue number '" + excerpt(line.substr(0, 5)) + "'" + hint);
    }
    float xyz[3];
    static const char* const kAxis[3] = {"x", "y", "z"};
    for (size_t d = 0; d < 3; ++d) {
      const auto field = line.substr(kCoordColumn + d * width_, width_);
      if (!parse_float(field, xyz[d])) {
        const std::string hint = count_hint();
        fail(std::string("bad ") + kAxis[d] + " coordinate '" + excerpt(field) + "'" + hint);
      }
    }
    top.residue_numbers.push_back(static_cast<int>(resnr));
    top.residue_names.emplace_back(trim(line.substr(5, 5)));
    top.atom_names.emplace_back(trim(line.substr(10, 5)));
    top.xyz.insert(top.xyz.end(), xyz, xyz + 3);
  }

  // Free-format: v1(x) v2(y) v3(z) [v1(y) v1(z) v2(x) v2(z) v3(x) v3(y)].
  void parse_box(Topology& top) {
    if (!next_line()) fail_missing("missing box line");
    std::vector<float> values;
    std::string_view rest(line_);
    while (true) {
      const auto start = rest.find_first_not_of(" \t");
      if (start == std::string_view::npos) break;
      rest.remove_prefix(start);
      const auto len = std::min(rest.find_first_of(" \t"), rest.size());
      float v = 0;
      if (!parse_float(rest.substr(0, len), v)) {
        fail("bad box line '" + excerpt(line_) + "' (atom count in line 2 too small?)");
      }
      values.push_back(v);
      rest.remove_prefix(len);
    }
    if (values.size() != 3 && values.size() != 9) {
      fail("box line must hold 3 or 9 numbers, found " + std::to_string(values.size()));
    }
    top.box = {};
    top.box[0] = values[0];
    top.box[4] = values[1];
    top.box[8] = values[2];
    if (values.size() == 9) {
      top.box[1] = values[3];
      top.box[2] = values[4];
      top.box[3] = values[5];
      top.box[5] = values[6];
      top.box[6] = values[7];
      top.box[7] = values[8];
    }
  }

  std::string path_;
  std::ifstream in_;
  std::string line_;
  size_t line_no_ = 0;
  size_t width_ = 8;
};

}  // namespace

Topology read_gro(const std::string& path) {
  return GroParser(path).parse();
}

}  // namespace pairhist::io
