// Error types shared by every layer. Messages are one line and name the file, frame and problem,
// so drivers can print them as they are.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace pairhist {

/// Bad input data: unreadable, truncated or inconsistent files, impossible selections.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A trajectory that ends inside a frame: cut short while it was being written or copied. The
/// frames before it are whole, so a run keeps them (drivers/job/frame_source.hpp). Readers throw
/// it only where the file ends inside the frame's records (or inside its last line, which has no
/// newline), never for a frame damaged with more of the file after it: that is an InputError.
class TruncatedFrame : public InputError {
 public:
  using InputError::InputError;
};

/// How a reader reports the frame it could not read, and reports it again on every later call:
/// TruncatedFrame where the file ends inside it (`cut`), else InputError.
[[noreturn]] inline void throw_frame_error(const std::string& message, bool cut) {
  if (cut) throw TruncatedFrame(message);
  throw InputError(message);
}

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

/// A GPU task could not count its share (a failed launch: no device memory for its workspace, a
/// broken device): the histograms of the frames in flight are incomplete. `frame()` is the
/// engine's number of the earliest frame concerned (from 0, in submission order).
class DeviceError : public std::runtime_error {
 public:
  DeviceError(const std::string& what, std::string problem, uint64_t frame)
      : std::runtime_error(what), problem_(std::move(problem)), frame_(frame) {}
  /// What failed, without the frame ("GPU 0: cell sort: out of memory").
  const std::string& problem() const noexcept { return problem_; }
  uint64_t frame() const noexcept { return frame_; }

 private:
  std::string problem_;
  uint64_t frame_ = 0;
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
