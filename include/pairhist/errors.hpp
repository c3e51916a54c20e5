// Error types shared by every layer. Messages are one line and name the file, frame and problem,
// so drivers can print them as they are.
#pragma once

#include <stdexcept>
#include <string>

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

}  // namespace pairhist
