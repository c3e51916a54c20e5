// Error types shared by every layer. Messages are one line and name the file, frame and problem,
// so drivers can print them as they are.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace pairhist {

/// Bad input data: unreadable, truncated or inconsistent files, impossible selections.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Bad parameters given by the user (flags, config values).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Results could not be written: unwritable directory, full disk, failed rename.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Text taken from an input (a line, a name, a value) as it may appear inside a one-line message:
/// control characters written as \n, \r, \t or \xNN, and at most `max_length` characters of the
/// text, then "...". Bytes of UTF-8 sequences pass unchanged.
inline std::string excerpt(std::string_view text, size_t max_length = 60) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (i == max_length) {
      out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace pairhist
