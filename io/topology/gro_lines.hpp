// The lines of a .gro file, shared by the GRO topology reader (io/topology/gro_reader.cpp) and
// the multi-frame GRO trajectory reader (io/trajectory/gro_trajectory_reader.cpp): title, atom
// lines (fixed columns, coordinates in fields whose width the first atom line's decimal points
// give) and the free-format box line. Inline: a topology of 11M atoms parses 33M fields.
#pragma once

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "pairhist/errors.hpp"

namespace pairhist::io::gro {

// Fixed columns of an atom line before the coordinates: resnr, resname, atomname, atomnr.
constexpr size_t kCoordColumn = 20;

inline bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

// By hand: find_first_not_of(" \t\r") costs a memchr over the set per character, and an
// 11M-atom file has 66M fields.
inline std::string_view trim(std::string_view s) {
  size_t first = 0, last = s.size();
  while (first < last && is_blank(s[first])) ++first;
  while (last > first && is_blank(s[last - 1])) --last;
  return s.substr(first, last - first);
}

inline bool parse_int(std::string_view field, long long& out) {
  field = trim(field);
  if (!field.empty() && field.front() == '+') field.remove_prefix(1);
  if (field.empty()) return false;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), out);
  return ec == std::errc() && end == field.data() + field.size();
}

// Parsed through double and then rounded to float, as GROMACS reads .gro files, so both agree on
// the last bit. Locale-independent on purpose: a decimal-comma locale must not change results.
// The fixed-point fields GROMACS writes ("-1.234"), at most 15 digits: the digits as an integer
// divided by a power of ten is the correctly rounded double of the decimal (both operands are
// exact and IEEE division rounds correctly), the same double from_chars gives, 4x faster.
inline bool parse_fixed_point(std::string_view field, double& value) {
  static constexpr double kPow10[16] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                        1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  const bool negative = !field.empty() && field.front() == '-';
  if (negative) field.remove_prefix(1);
  if (field.size() - 1 > 15) return false;  // also an empty field (size 0 wraps)
  // One pass (a find('.') first cost a library call per field: 11M atoms have 33M fields).
  size_t point = std::string_view::npos;
  int64_t digits = 0;
  for (size_t i = 0; i < field.size(); ++i) {
    const unsigned d = static_cast<unsigned>(static_cast<unsigned char>(field[i])) - '0';
    if (d <= 9) {
      digits = digits * 10 + d;
    } else if (field[i] == '.' && point == std::string_view::npos) {
      point = i;
    } else {
      return false;
    }
  }
  if (point == 0 || point == std::string_view::npos || point + 1 == field.size()) return false;
  value = static_cast<double>(digits) / kPow10[field.size() - 1 - point];
  if (negative) value = -value;
  return true;
}

/// A number field (fixed point, else any form from_chars reads), as a finite float.
bool parse_float_slow(std::string_view field, float& out);

inline bool parse_float(std::string_view field, float& out) {
  field = trim(field);
  if (!field.empty() && field.front() == '+') field.remove_prefix(1);
  if (field.empty()) return false;
  double value = 0;
  if (parse_fixed_point(field, value)) {
    out = static_cast<float>(value);
    return true;
  }
  return parse_float_slow(field, out);
}

/// GROMACS writes coordinates with a variable number of decimals; the distance between the
/// decimal points of x and y in the first atom line is the field width for the whole frame.
/// The problem when the line gives none, else "" with `width` set.
std::string field_width(std::string_view first_atom_line, size_t& width);

/// The coordinates of an atom line into xyz[0..2]; the problem when the line is malformed, else "".
inline std::string parse_coordinates(std::string_view line, size_t width, float* xyz) {
  static const char* const kAxis[3] = {"x", "y", "z"};
  for (size_t d = 0; d < 3; ++d) {
    const auto field = line.substr(kCoordColumn + d * width, width);
    if (!parse_float(field, xyz[d]))
      return std::string("bad ") + kAxis[d] + " coordinate '" + excerpt(field) + "'";
  }
  return {};
}

/// The problem when an atom line is too short for its coordinates in fields of `width`, else "".
std::string check_atom_line_length(std::string_view line, size_t width);

/// The box line (free format: v1(x) v2(y) v3(z) [v1(y) v1(z) v2(x) v2(z) v3(x) v3(y)]) into
/// `box` (rows a, b, c as TrajectoryFrame's); the problem when it is malformed, else "".
std::string parse_box(std::string_view line, std::array<float, 9>& box);

/// GROMACS's "t= <ps>" and "step= <n>" in a frame's title line, where present.
void parse_title_time(std::string_view title, double& time, bool& has_time, int64_t& step);

}  // namespace pairhist::io::gro
