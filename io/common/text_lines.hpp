// Whitespace splitting, strict number parsing, line reading with line numbers and the messages
// shared by the text trajectory readers (XYZ, LAMMPS dump), so that each reader's frame parse
// reads like its format. Header-only so that readers stay independent translation units.
#pragma once

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <istream>
#include <string>
#include <system_error>
#include <vector>

#include "pairhist/errors.hpp"

namespace pairhist::io::text {

/// Splits `s` at runs of whitespace into `out` (cleared first); empty fields are dropped.
/// `s` without leading and trailing blanks and tabs.
inline std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

/// One line naming the file and its line: "PATH: line N: PROBLEM".
[[noreturn]] inline void fail_at_line(const std::string& path, long long line,
                                      const std::string& problem) {
  throw InputError(path + ": line " + std::to_string(line) + ": " + problem);
}

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

/// Parses the three coordinates of an atom line, fields[cols[0..3)], into r; the field that is not
/// a finite number (for the reader's "bad coordinate" error), or nullptr when all three are.
inline const std::string* parse_position(const std::vector<std::string>& fields, const int cols[3],
                                         double r[3]) {
  for (int d = 0; d < 3; ++d) {
    const std::string& f = fields[static_cast<size_t>(cols[d])];
    if (!parse_double(f, r[d])) return &f;
  }
  return nullptr;
}

/// The problem of a frame whose atom count is not the first frame's.
inline std::string atom_count_differs(long long count, long long first) {
  return "atom count " + std::to_string(count) + " differs from " + std::to_string(first) +
         " in the first frame";
}

/// The problem of a file that ends after `present` of a frame's `declared` atom lines.
inline std::string missing_atom_lines(size_t present, size_t declared) {
  return "truncated file: " + std::to_string(present) + " of " + std::to_string(declared) +
         " atom lines present";
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

/// How many of `declared` items, each taking at least `min_bytes` of the file, can still follow the
/// read position of `in` (opened from `path`): the capacity worth reserving for them. A count
/// declared in a file is untrusted until its lines are there, so it never reserves more than the
/// rest of the file can hold, nor more than 2^16 items where the size is unknown (a pipe); what
/// lies beyond grows as the lines arrive.
inline size_t reservable(std::istream& in, const std::string& path, uint64_t declared,
                         uint64_t min_bytes) {
  uint64_t fits = uint64_t{1} << 16;
  std::error_code ec;
  const auto pos = in.tellg();
  if (pos >= 0 && std::filesystem::is_regular_file(path, ec)) {
    const auto size = std::filesystem::file_size(path, ec);
    const auto at = static_cast<uint64_t>(pos);
    if (!ec) fits = size > at ? (size - at) / min_bytes : 0;
  }
  return static_cast<size_t>(declared < fits ? declared : fits);
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

/// read_line for a reader whose errors throw: true for a line, false at the end of the file;
/// `fail(problem)`, which must throw, on a read error, or on a NUL byte with `binary_problem`
/// (what the file then is not).
template <class Fail>
bool next_line_or_fail(std::istream& in, std::string& line, int64_t& line_no, bool& had_newline,
                       const std::string& binary_problem, Fail&& fail) {
  switch (read_line(in, line, line_no, had_newline)) {
    case LineStatus::ok:
      return true;
    case LineStatus::end:
      return false;
    case LineStatus::read_error:
      fail(std::string("read error"));
      break;
    case LineStatus::binary:
      fail(binary_problem);
      break;
  }
  return false;
}

}  // namespace pairhist::io::text
