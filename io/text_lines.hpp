// Whitespace splitting and strict number parsing shared by the text trajectory readers (XYZ,
// LAMMPS dump). Header-only so that readers stay independent translation units.
#pragma once

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <istream>
#include <string>
#include <vector>

namespace pairhist::io::text {

/// Splits `s` at runs of whitespace into `out` (cleared first); empty fields are dropped.
inline void split_ws(const std::string& s, std::vector<std::string>& out) {
  out.clear();
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    const size_t start = i;
    while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
}

/// Parses all of `s` as a finite double; false on empty input, trailing text or overflow.
inline bool parse_double(const std::string& s, double& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  v = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && errno != ERANGE && std::isfinite(v);
}

/// Parses all of `s` as a decimal integer; false on empty input, trailing text or overflow.
inline bool parse_int(const std::string& s, long long& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  v = std::strtoll(s.c_str(), &end, 10);
  return end == s.c_str() + s.size() && errno != ERANGE;
}

/// The text readers' one-line error: "path: frame K: line N: problem (last complete frame ...)".
inline std::string line_error(const std::string& path, int64_t frame, int64_t line,
                              const std::string& problem) {
  std::string msg =
      path + ": frame " + std::to_string(frame) + ": line " + std::to_string(line) + ": " + problem;
  msg += frame > 0 ? " (last complete frame is " + std::to_string(frame - 1) + ")"
                   : " (no complete frame)";
  return msg;
}

enum class LineStatus { ok, end, read_error, binary };

/// Reads the next line without its newline (and a trailing CR), counting lines. had_newline
/// tells whether the line was terminated: a file cut inside its last line is then detectable.
/// A NUL byte means the file is binary, not text.
inline LineStatus read_line(std::istream& in, std::string& line, int64_t& line_no,
                            bool& had_newline) {
  if (!std::getline(in, line)) return in.bad() ? LineStatus::read_error : LineStatus::end;
  ++line_no;
  had_newline = !in.eof();
  if (!line.empty() && line.back() == '\r') line.pop_back();
  for (char c : line)
    if (c == '\0') return LineStatus::binary;
  return LineStatus::ok;
}

}  // namespace pairhist::io::text
