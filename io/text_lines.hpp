// Whitespace splitting and strict number parsing shared by the text trajectory readers (XYZ,
// LAMMPS dump). Header-only so that readers stay independent translation units.
#pragma once

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
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

}  // namespace pairhist::io::text
